import { useMutation, useQueryClient } from '@tanstack/react-query'
import { Loader2 } from 'lucide-react'
import { useState, type FormEvent, type ReactNode } from 'react'
import type { McpServerInfo } from '../../../../shared/api/mcp'
import type { Project } from '../../../../shared/project'
import { useClient } from '../../app/ClientProvider'
import { FieldError } from '../../app/FieldError'
import { callKey, errorMessage, useCall } from '../../app/queries'
import { ActionButton, Badge, Button, ConfirmDialog, Segmented, Tooltip, useSingleFlight } from '../../ui'
import { useNow } from '../../ui/useNow'
import {
  emptyDraft,
  readDraft,
  type DraftErrors,
  type McpDraft,
  type McpKind,
  type McpServerInput,
} from './mcpForm'
import { McpServerApproval } from './McpServerApproval'
import './mcp.css'

/** Where a server runs, in words, with what that means on hover. */
export function McpWhere({ server }: { server: Pick<McpServerInfo, 'location' | 'sandboxed'> }) {
  const remote = server.location !== 'stdio'
  return (
    <Tooltip
      content={
        remote
          ? 'A server elsewhere that Ralph reaches over the network; it runs outside this machine’s sandbox.'
          : 'Started on this machine inside the sandbox, under the same rules as the model’s commands.'
      }
    >
      <Badge tone={remote ? 'info' : 'ok'} tabIndex={0} className="mcp-where">
        {remote
          ? `Remote (${server.location})`
          : server.sandboxed
            ? 'Sandboxed (stdio)'
            : 'On this machine (stdio)'}
      </Badge>
    </Tooltip>
  )
}

/** A `${NAME}` placeholder the vault has no value for: a password field that stores it and never shows it back. */
function SecretField({ name, projectId }: { name: string; projectId: number }) {
  const client = useClient()
  const queryClient = useQueryClient()
  const [value, setValue] = useState('')
  const save = useMutation({
    mutationFn: () => client.call('mcp.setSecret', { name, value }),
    onSuccess: async () => {
      setValue('')
      await queryClient.invalidateQueries({ queryKey: callKey('mcp.list', { projectId }) })
    },
  })
  const id = `mcp-secret-${name}`
  return (
    <div className="field mcp-secret">
      <label htmlFor={id}>{`Secret ${name}`}</label>
      <div className="row">
        <input
          id={id}
          type="password"
          autoComplete="off"
          value={value}
          onChange={(e) => setValue(e.target.value)}
          aria-describedby={`${id}-hint`}
        />
        <ActionButton
          size="sm"
          disabledReason={value === '' ? 'Type the value first' : null}
          onAction={() => save.mutateAsync()}
        >
          Save secret
        </ActionButton>
      </div>
      <p className="hint" id={`${id}-hint`}>
        {`The server reads \${${name}} and cannot start without it. Kept in the vault, never shown again.`}
      </p>
      <FieldError error={save.error} />
    </div>
  )
}

type TestResult = {
  ok: boolean
  message: string
  tools: { name: string; readOnly: boolean; description: string }[]
}

function TestOutcome({ name, result }: { name: string; result: TestResult }) {
  if (!result.ok)
    return (
      <p className="field-error" role="status" data-testid="mcp-test-result">
        {`It did not start: ${result.message || 'no reason given.'}`}
      </p>
    )
  return (
    <div role="status" data-testid="mcp-test-result">
      <p className="field-ok">
        {`Started. ${String(result.tools.length)} tool${result.tools.length === 1 ? '' : 's'}${result.tools.length ? ':' : '.'}`}
      </p>
      {result.tools.length ? (
        <ul className="mcp-tools" aria-label={`Tools of ${name}`}>
          {result.tools.map((t) => (
            <li key={t.name}>
              <code>{t.name}</code>
              {t.readOnly ? (
                <Tooltip content="The server says it only reads: Ask mode may use it.">
                  <Badge tabIndex={0}>read-only</Badge>
                </Tooltip>
              ) : null}
              {t.description ? (
                <span className="hint" title={t.description}>
                  {` ${t.description}`}
                </span>
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  )
}

function Starting({ server }: { server: McpServerInfo }) {
  const [since] = useState(() => Date.now())
  const now = useNow(true)
  const seconds = Math.max(0, Math.round((now - since) / 1000))
  return (
    <p className="hint mcp-starting" role="status">
      <Loader2 size={14} className="spin" aria-hidden />
      {server.location === 'stdio'
        ? `Starting ${server.name} in the sandbox and asking for its tools…`
        : `Connecting to ${server.name} and asking for its tools…`}
      {seconds > 0 ? ` ${String(seconds)} s` : null}
    </p>
  )
}

function ServerRow({ server, projectId }: { server: McpServerInfo; projectId: number }) {
  const client = useClient()
  const queryClient = useQueryClient()
  const [confirming, setConfirming] = useState(false)
  const test = useMutation({
    mutationFn: () => client.call('mcp.test', { projectId, server: server.name }),
  })
  const remove = useMutation({
    mutationFn: () => client.call('mcp.removeServer', { projectId, name: server.name }),
    onSuccess: (next) => queryClient.setQueryData(callKey('mcp.list', { projectId }), next),
  })
  const keysWord = server.location === 'stdio' ? 'Environment' : 'Headers'
  const result: TestResult | null =
    test.data ?? (test.error ? { ok: false, message: errorMessage(test.error), tools: [] } : null)
  return (
    <li className="card mcp-server" aria-label={server.name}>
      <div className="mcp-server-head">
        <span className="setting-label">{server.name}</span>
        <McpWhere server={server} />
        <span className="mcp-server-actions">
          <ActionButton size="sm" onAction={() => test.mutateAsync()}>
            {test.isPending ? 'Testing…' : 'Test'}
          </ActionButton>
          <Button size="sm" variant="ghost" onClick={() => setConfirming(true)}>
            Remove
          </Button>
        </span>
      </div>
      <p className="hint mono mcp-target">{server.target}</p>
      {server.keys.length ? (
        <p className="hint">{`${keysWord}: ${server.keys.join(', ')} (values kept in the vault)`}</p>
      ) : null}
      {server.missingSecrets.map((name) => (
        <SecretField key={name} name={name} projectId={projectId} />
      ))}
      {test.isPending ? (
        <Starting server={server} />
      ) : result ? (
        <TestOutcome name={server.name} result={result} />
      ) : null}
      <FieldError error={remove.error} />
      <ConfirmDialog
        open={confirming}
        onOpenChange={setConfirming}
        title={`Remove the MCP server “${server.name}”?`}
        description="Its tools leave every project, and its saved environment or header values leave the vault."
        confirmLabel="Remove"
        onConfirm={() => remove.mutateAsync().finally(() => setConfirming(false))}
      />
    </li>
  )
}

function Field({
  id,
  label,
  hint,
  error,
  children,
}: {
  id: string
  label: ReactNode
  hint?: string
  error?: string
  children: (describedBy: string | undefined) => ReactNode
}) {
  const describedBy = error ? `${id}-error` : hint ? `${id}-hint` : undefined
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children(describedBy)}
      {error ? (
        <p className="field-error" id={`${id}-error`}>
          {error}
        </p>
      ) : hint ? (
        <p className="hint" id={`${id}-hint`}>
          {hint}
        </p>
      ) : null}
    </div>
  )
}

function AddServerForm({ projectId, taken }: { projectId: number; taken: string[] }) {
  const client = useClient()
  const queryClient = useQueryClient()
  const [draft, setDraft] = useState<McpDraft>(emptyDraft)
  const [errors, setErrors] = useState<DraftErrors>({})
  const [saved, setSaved] = useState<string | null>(null)
  const save = useMutation({
    mutationFn: (input: { name: string; server: McpServerInput }) =>
      client.call('mcp.saveServer', { projectId, ...input }),
    onSuccess: (next) => queryClient.setQueryData(callKey('mcp.list', { projectId }), next),
  })
  const set = (patch: Partial<McpDraft>) => {
    setDraft((d) => ({ ...d, ...patch }))
    setSaved(null)
  }
  const adding = useSingleFlight(async () => {
    const read = readDraft(draft, taken)
    if ('errors' in read) {
      setErrors(read.errors)
      return
    }
    setErrors({})
    await save.mutateAsync(read)
    setDraft({ ...emptyDraft, kind: draft.kind })
    setSaved(read.name)
  })
  const submit = (event: FormEvent) => {
    event.preventDefault()
    void adding.run()
  }
  const input = (key: keyof DraftErrors | 'args', describedBy: string | undefined, placeholder: string) => (
    <input
      id={`mcp-${key}`}
      value={draft[key]}
      placeholder={placeholder}
      spellCheck={false}
      aria-invalid={key in errors || undefined}
      aria-describedby={describedBy}
      onChange={(e) => set({ [key]: e.target.value })}
    />
  )
  const area = (key: 'args' | 'env' | 'headers', describedBy: string | undefined, placeholder: string) => (
    <textarea
      id={`mcp-${key}`}
      rows={3}
      value={draft[key]}
      placeholder={placeholder}
      spellCheck={false}
      aria-invalid={key in errors || undefined}
      aria-describedby={describedBy}
      onChange={(e) => set({ [key]: e.target.value })}
    />
  )
  return (
    <form className="card form mcp-add" onSubmit={submit} aria-label="Add an MCP server" noValidate>
      <p className="setting-label">Add a server</p>
      <Segmented<McpKind>
        label="How Ralph reaches it"
        className="mcp-kind"
        options={[
          ['stdio', 'A program on this machine (stdio)'],
          ['http', 'A remote server (http)'],
        ]}
        value={draft.kind}
        onChange={(kind) => {
          set({ kind })
          setErrors({})
        }}
      />
      <Field
        id="mcp-name"
        label="Name"
        error={errors.name}
        hint="The model sees its tools as mcp__name__tool."
      >
        {(d) => input('name', d, 'github')}
      </Field>
      {draft.kind === 'stdio' ? (
        <>
          <Field id="mcp-command" label="Command" error={errors.command}>
            {(d) => input('command', d, 'npx')}
          </Field>
          <Field
            id="mcp-args"
            label={
              <>
                Arguments <span className="optional">(one a line)</span>
              </>
            }
          >
            {(d) => area('args', d, '-y\n@modelcontextprotocol/server-github')}
          </Field>
          <Field
            id="mcp-env"
            label={
              <>
                Environment <span className="optional">(NAME=value, one a line)</span>
              </>
            }
            error={errors.env}
            hint="Values go to the vault and are never shown again. Write ${NAME} to use a secret kept apart: the server’s card then asks for its value."
          >
            {(d) => area('env', d, 'GITHUB_TOKEN=${GH_TOKEN}')}
          </Field>
        </>
      ) : (
        <>
          <Field id="mcp-url" label="Address" error={errors.url}>
            {(d) => input('url', d, 'https://mcp.example.com/mcp')}
          </Field>
          <Field
            id="mcp-headers"
            label={
              <>
                Headers <span className="optional">(Name: value, one a line)</span>
              </>
            }
            error={errors.headers}
            hint="Values go to the vault and are never shown again."
          >
            {(d) => area('headers', d, 'Authorization: Bearer ${API_TOKEN}')}
          </Field>
        </>
      )}
      <FieldError error={save.error} />
      {saved ? (
        <p className="field-ok" role="status">
          {`Added ${saved}.`}
        </p>
      ) : null}
      <div className="form-actions">
        <Button type="submit" variant="primary" disabled={adding.busy} aria-busy={adding.busy || undefined}>
          {adding.busy ? 'Adding…' : 'Add server'}
        </Button>
      </div>
    </form>
  )
}

/** The project whose sandbox tests run in: the one opened last. */
const latest = (projects: Project[]): Project | null =>
  projects.reduce<Project | null>((a, p) => (!a || p.lastOpenedAt > a.lastOpenedAt ? p : a), null)

function AppServers({ project }: { project: Project }) {
  const list = useCall('mcp.list', { projectId: project.id })
  if (list.error) return <FieldError error={list.error} />
  if (!list.data) return <p className="hint">Looking for servers…</p>
  const app = list.data.servers.filter((s) => s.origin === 'app')
  const own = list.data.servers.filter((s) => s.origin === 'project')
  return (
    <div className="mcp-settings">
      {own.length ? (
        <>
          <p className="setting-label">{`From ${project.name}’s .mcp.json`}</p>
          <p className="hint">
            A project’s servers start only once you approve them, exactly as written: a change to one asks
            again.
          </p>
          <ul className="mcp-servers" aria-label="Project MCP servers">
            {own.map((s) => (
              <li key={s.name} className="card mcp-server" aria-label={s.name}>
                <div className="mcp-server-head">
                  <span className="setting-label">{s.name}</span>
                  <McpWhere server={s} />
                </div>
                <McpServerApproval server={s} projectId={project.id} />
              </li>
            ))}
          </ul>
          <p className="setting-label">App-level servers</p>
        </>
      ) : null}
      {app.length === 0 ? (
        <p className="hint mcp-empty">
          No app-level servers yet. A server added here is offered to every project, next to the ones a
          project lists in its own .mcp.json file; each project can switch any of them off.
        </p>
      ) : (
        <ul className="mcp-servers" aria-label="App-level MCP servers">
          {app.map((s) => (
            <ServerRow key={s.name} server={s} projectId={project.id} />
          ))}
        </ul>
      )}
      <p className="hint">{`Tests run in the sandbox of ${project.name}, the project opened last.`}</p>
      <AddServerForm projectId={project.id} taken={app.map((s) => s.name)} />
    </div>
  )
}

/** Settings → MCP servers: the app-level list (every project gets them), with where each runs, Test and Remove. */
export function McpServers() {
  const projects = useCall('projects.list', {})
  if (projects.error) return <FieldError error={projects.error} />
  if (!projects.data) return null
  const project = latest(projects.data)
  if (!project)
    return <p className="hint">Open a project first: servers are tried out inside a project’s sandbox.</p>
  return <AppServers project={project} />
}
