import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState, type ReactNode } from 'react'
import type { WorkersSettings as Settings } from '../../../../shared/api/workers'
import type { Project } from '../../../../shared/project'
import type { WorkerBackend } from '../../../../shared/workersConfig'
import { useClient } from '../../app/ClientProvider'
import { FieldError } from '../../app/FieldError'
import { callKey, useCall } from '../../app/queries'
import { Badge, Banner, Button } from '../../ui'
import { WorkersCheckStatus } from './WorkersCheckStatus'
import { checkForm, formOf, type WorkersField, type WorkersForm } from './workersForm'
import { WorkersSecrets } from './WorkersSecrets'

const KUBERNETES_HINT =
  'Experimental: Kubernetes workers have not yet run on a real cluster (only against a faithful stand-in of its API).'

const backends: readonly { value: WorkerBackend; label: string; hint: string }[] = [
  { value: 'local', label: 'Local', hint: 'Each lane runs on this machine, in its own copy of the project.' },
  {
    value: 'docker',
    label: 'Docker',
    hint: 'Each lane runs as a container on a Docker engine (this machine’s, a remote host’s, or Podman’s).',
  },
  {
    value: 'kubernetes',
    label: 'Kubernetes',
    hint: 'Each lane runs as a Kubernetes Job in your kubeconfig’s cluster.',
  },
]

/** The project whose workers are shown first: the one opened last. */
const latest = (projects: Project[]): Project | null =>
  projects.reduce<Project | null>((a, p) => (!a || p.lastOpenedAt > a.lastOpenedAt ? p : a), null)

/** Settings → Workers (issue #39): where a project's build lanes run, its limits, and a check of the backend. */
export function WorkersSettings() {
  const projects = useCall('projects.list', {})
  const [chosen, setChosen] = useState<number | null>(null)
  if (projects.error) return <FieldError error={projects.error} />
  if (!projects.data) return null
  if (projects.data.length === 0)
    return <p className="hint">Open a project first: these settings belong to each project.</p>
  const project = projects.data.find((p) => p.id === chosen) ?? latest(projects.data)!
  return (
    <div className="card workers-settings">
      {projects.data.length > 1 ? (
        <div className="field workers-project">
          <label htmlFor="workers-project">Project</label>
          <select id="workers-project" value={project.id} onChange={(e) => setChosen(Number(e.target.value))}>
            {projects.data.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
        </div>
      ) : (
        <p className="setting-label">{project.name}</p>
      )}
      <p className="hint sandbox-path">{project.path}/.ralph/config.json</p>
      <ProjectWorkers key={project.id} projectId={project.id} />
    </div>
  )
}

function ProjectWorkers({ projectId }: { projectId: number }) {
  const settings = useCall('workers.get', { projectId })
  if (settings.error) return <FieldError error={settings.error} />
  if (!settings.data) return <p className="hint">Reading the project’s settings…</p>
  return <WorkersFormView projectId={projectId} settings={settings.data} />
}

function WorkersFormView({ projectId, settings }: { projectId: number; settings: Settings }) {
  const client = useClient()
  const queryClient = useQueryClient()
  const [form, setForm] = useState<WorkersForm>(() => formOf(settings.config))
  const [errors, setErrors] = useState<Partial<Record<WorkersField, string>>>({})
  const [other, setOther] = useState<string | null>(null)
  const [saved, setSaved] = useState(false)
  const save = useMutation({
    mutationFn: (workers: Settings['config']) => client.call('workers.set', { projectId, workers }),
    onSuccess: (next) => {
      queryClient.setQueryData(callKey('workers.get', { projectId }), next)
      setSaved(true)
    },
  })
  const test = useMutation({
    mutationFn: (workers: Settings['config']) => client.call('workers.test', { projectId, workers }),
  })
  const stop = useMutation({ mutationFn: () => client.call('workers.stopTest', { projectId }) })

  const update = (patch: Partial<WorkersForm>) => {
    setForm((f) => ({ ...f, ...patch }))
    setSaved(false)
    // A field's error goes once the field changes; the others stay until the next Save or Test.
    setErrors((e) => {
      const next = { ...e }
      for (const k of Object.keys(patch) as WorkersField[]) delete next[k]
      return next
    })
  }
  /** The form checked against the schema: its settings, or each field's error shown and nothing sent. */
  const checked = () => {
    const check = checkForm(form)
    setErrors(check.ok ? {} : check.errors)
    setOther(check.ok ? null : check.other)
    return check.ok ? check.config : null
  }
  const remote = form.backend !== 'local'
  const hints: Partial<Record<WorkersField, string>> = {
    image:
      form.backend === 'docker'
        ? 'The image jobs run in; it needs node, git and ralph (npm run worker:image builds one).'
        : 'An image the cluster’s nodes can pull; it needs node, git and ralph.',
    dockerHost:
      'unix:///path/to/docker.sock, tcp://HOST:2376 or ssh://USER@HOST; Podman’s service the same way.',
    timeoutMinutes: 'A job running longer is stopped and its lane fails.',
  }
  const describedBy = (name: WorkersField) =>
    [hints[name] ? `workers-${name}-hint` : null, errors[name] ? `workers-${name}-error` : null]
      .filter(Boolean)
      .join(' ') || undefined
  const field = (name: WorkersField, label: string, input: ReactNode) => (
    <FormField name={name} label={label} error={errors[name]} hint={hints[name]}>
      {input}
    </FormField>
  )
  const text = (name: WorkersField, placeholder?: string) => (
    <input
      id={`workers-${name}`}
      value={form[name] as string}
      placeholder={placeholder}
      spellCheck={false}
      aria-invalid={errors[name] ? true : undefined}
      aria-describedby={describedBy(name)}
      onChange={(e) => update({ [name]: e.target.value })}
    />
  )
  const number = (name: WorkersField) => (
    <input
      id={`workers-${name}`}
      type="number"
      inputMode="decimal"
      step="any"
      value={form[name] as string}
      aria-invalid={errors[name] ? true : undefined}
      aria-describedby={describedBy(name)}
      onChange={(e) => update({ [name]: e.target.value })}
    />
  )
  return (
    <form
      className="form workers-form"
      aria-label="Workers"
      // The schema's errors show next to each field; the browser's own checks would stop the submit silently.
      noValidate
      onSubmit={(e) => {
        e.preventDefault()
        const config = checked()
        if (config) save.mutate(config)
      }}
    >
      {settings.problem ? (
        <Banner tone="warn">
          The saved settings cannot be used, so the defaults are shown: {settings.problem} Saving replaces
          them.
        </Banner>
      ) : null}
      <fieldset className="workers-backend">
        <legend className="setting-label">Where lanes run</legend>
        <div className="segmented" role="radiogroup" aria-label="Backend">
          {backends.map((b) => (
            <label
              key={b.value}
              className="segmented-option"
              title={b.value === 'kubernetes' ? `${b.hint} ${KUBERNETES_HINT}` : b.hint}
            >
              <input
                type="radio"
                name={`workers-backend-${projectId}`}
                value={b.value}
                checked={form.backend === b.value}
                onChange={() => update({ backend: b.value })}
              />
              {b.label}
            </label>
          ))}
        </div>
        {form.backend === 'kubernetes' ? (
          <p className="hint">
            <Badge tone="warn" title={KUBERNETES_HINT}>
              Experimental
            </Badge>{' '}
            It has not yet run on a real cluster.
          </p>
        ) : null}
        <p className="hint">
          {backends.find((b) => b.value === form.backend)!.hint}{' '}
          {remote
            ? 'Its result comes back and is merged and verified here, with Ralph’s own nonce. A build can choose other workers in the Queue’s Build controls.'
            : 'A build can choose other workers in the Queue’s Build controls.'}
        </p>
      </fieldset>

      {remote ? (
        <>
          <div className="workers-grid">
            {field('image', 'Image', text('image'))}
            {form.backend === 'docker'
              ? field('dockerHost', 'Docker host', text('dockerHost', 'DOCKER_HOST, or the local one'))
              : null}
            {form.backend === 'docker'
              ? field('network', 'Network', text('network', 'the engine’s default (bridge)'))
              : null}
            {form.backend === 'kubernetes'
              ? field('context', 'Kubernetes context', text('context', 'the kubeconfig’s current one'))
              : null}
            {form.backend === 'kubernetes'
              ? field('namespace', 'Namespace', text('namespace', 'the context’s, else default'))
              : null}
          </div>
          <fieldset className="workers-limits">
            <legend className="setting-label">Limits per job</legend>
            <div className="workers-grid workers-grid-4">
              {field('cpus', 'CPUs', number('cpus'))}
              {field('memoryMb', 'Memory (MB)', number('memoryMb'))}
              {field('pids', 'Processes', number('pids'))}
              {field('timeoutMinutes', 'Time limit (min)', number('timeoutMinutes'))}
            </div>
          </fieldset>
          <fieldset className="workers-retry">
            <legend className="setting-label">After a worker fault</legend>
            <p className="hint" id={`workers-retry-hint-${projectId}`}>
              A worker that dies, cannot be reached, passes its time limit or brings back a bad result: the
              lane runs once more, and nothing partial is merged.
            </p>
            <div
              className="segmented"
              role="radiogroup"
              aria-label="After a worker fault"
              aria-describedby={`workers-retry-hint-${projectId}`}
            >
              {(
                [
                  ['worker', 'Retry on a worker'],
                  ['local', 'Retry on this machine'],
                ] as const
              ).map(([value, label]) => (
                <label key={value} className="segmented-option">
                  <input
                    type="radio"
                    name={`workers-retry-${projectId}`}
                    value={value}
                    checked={form.retry === value}
                    onChange={() => update({ retry: value })}
                  />
                  {label}
                </label>
              ))}
            </div>
          </fieldset>
          <WorkersSecrets
            names={settings.secretNames}
            ticked={form.remoteSecrets}
            error={errors.remoteSecrets}
            onChange={(remoteSecrets) => update({ remoteSecrets })}
          />
        </>
      ) : null}

      {other ? (
        <p className="field-error" role="alert">
          {other}
        </p>
      ) : null}
      <FieldError error={save.error} />
      {saved ? (
        <p className="field-ok" role="status">
          Saved to .ralph/config.json.
        </p>
      ) : null}
      <WorkersCheckStatus
        running={test.isPending}
        result={test.data ?? null}
        error={test.error}
        stopping={stop.isPending}
        onStop={() => stop.mutate()}
      />
      <div className="form-actions">
        <Button
          type="button"
          disabled={test.isPending}
          aria-busy={test.isPending || undefined}
          title="Reach the backend, find the image and run a no-op job, as ralph workers test does"
          onClick={() => {
            const config = checked()
            if (config) test.mutate(config)
          }}
        >
          {test.isPending ? 'Testing…' : 'Test workers'}
        </Button>
        <Button
          type="submit"
          variant="primary"
          disabled={save.isPending}
          aria-busy={save.isPending || undefined}
        >
          {save.isPending ? 'Saving…' : 'Save workers'}
        </Button>
      </div>
    </form>
  )
}

function FormField({
  name,
  label,
  error,
  hint,
  children,
}: {
  name: WorkersField
  label: string
  error: string | undefined
  hint?: string
  children: ReactNode
}) {
  return (
    <div className="field">
      <label htmlFor={`workers-${name}`}>{label}</label>
      {children}
      {hint ? (
        <p className="hint" id={`workers-${name}-hint`}>
          {hint}
        </p>
      ) : null}
      {error ? (
        <p className="field-error" id={`workers-${name}-error`} role="alert">
          {error}
        </p>
      ) : null}
    </div>
  )
}
