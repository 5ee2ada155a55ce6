import { useState } from 'react'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { Plug } from 'lucide-react'
import type { McpServerInfo } from '../../../../shared/api/mcp'
import { useClient } from '../../app/ClientProvider'
import { HeaderDialog } from './HeaderDialog'
import { FieldError } from '../../app/FieldError'
import { callKey, useCall } from '../../app/queries'
import { routeHash } from '../../app/routes'
import { EmptyState, Switch, useSingleFlight } from '../../ui'
import { McpServerApproval } from '../settings'
import './mcpDialog.css'

function where(s: McpServerInfo): string {
  if (s.location !== 'stdio') return `remote (${s.location}), outside the sandbox`
  return s.sandboxed ? 'runs on this machine in the sandbox' : 'runs on this machine'
}

function ServerSwitch({ server, projectId }: { server: McpServerInfo; projectId: number }) {
  const client = useClient()
  const queryClient = useQueryClient()
  const [pending, setPending] = useState<boolean | null>(null)
  const save = useMutation({
    mutationFn: (enabled: boolean) =>
      client.call('mcp.setEnabled', { projectId, server: server.name, enabled }),
    onSuccess: (next) => queryClient.setQueryData(callKey('mcp.list', { projectId }), next),
  })
  const flight = useSingleFlight(async (checked: boolean) => {
    // Shown at once (a controlled checkbox would flip back until the core answers).
    setPending(checked)
    try {
      await save.mutateAsync(checked)
    } finally {
      setPending(null)
    }
  })
  const id = `mcp-${projectId}-${server.name.replace(/[^a-zA-Z0-9]/g, '-')}`
  const enabled = pending ?? server.enabled
  const from = server.origin === 'project' ? 'From .mcp.json' : 'From Settings (every project)'
  return (
    <li className="mcp-dialog-server">
      <Switch
        id={id}
        checked={enabled}
        disabled={flight.busy}
        onChange={(checked) => void flight.run(checked)}
      >
        {server.name}
      </Switch>
      <p className="hint" id={`${id}-hint`}>
        {`${from} · ${where(server)} · ${enabled ? 'on: the model can use its tools' : 'off: the model does not see it'}`}
      </p>
      <p className="hint mcp-dialog-target">{server.target}</p>
      <McpServerApproval server={server} projectId={projectId} />
      {server.missingSecrets.length ? (
        <p className="field-error">
          {`It needs the secret${server.missingSecrets.length === 1 ? '' : 's'} ${server.missingSecrets.join(', ')}: save ${server.missingSecrets.length === 1 ? 'it' : 'them'} in `}
          <a href={routeHash({ page: 'settings' })}>Settings</a>.
        </p>
      ) : null}
      <FieldError error={save.error} />
    </li>
  )
}

function ServerList({ projectId }: { projectId: number }) {
  const list = useCall('mcp.list', { projectId })
  if (list.error) return <FieldError error={list.error} />
  if (!list.data) return <p className="hint">Looking for servers…</p>
  const { servers, problems } = list.data
  return (
    <>
      {problems.length ? (
        <ul className="mcp-dialog-problems" aria-label="Mistakes in .mcp.json" role="alert">
          {problems.map((p, i) => (
            <li key={i} className="field-error">
              {p.server ? `${p.server}: ${p.message}` : `.mcp.json: ${p.message}`}
            </li>
          ))}
        </ul>
      ) : null}
      {servers.length === 0 ? (
        <EmptyState
          className="mcp-dialog-empty"
          icon={<Plug size={20} />}
          title="No MCP servers for this project"
        >
          <p>
            An MCP server gives the model more tools — a database, a browser, your issue tracker. A project
            lists its own in a file called .mcp.json at its root (the same file Claude Code reads); servers
            added in <a href={routeHash({ page: 'settings' })}>Settings</a> are offered to every project. Each
            can then be switched off here.
          </p>
        </EmptyState>
      ) : (
        <ul className="mcp-dialog-servers" aria-label="MCP servers of this project">
          {servers.map((s) => (
            <ServerSwitch key={`${s.origin}-${s.name}`} server={s} projectId={projectId} />
          ))}
        </ul>
      )}
    </>
  )
}

/**
 * The project's MCP servers (its `.mcp.json` and the app-level ones) with a switch each, kept in the project's
 * `.ralph/config.json`: a header button that opens them in a dialog. Looked up only when opened.
 */
export function McpServersDialog({ projectId }: { projectId: number }) {
  return (
    <HeaderDialog
      icon={<Plug size={16} aria-hidden />}
      title="MCP servers"
      description="Servers whose tools the model can call during this project's tasks. What a server does happens outside Ralph's snapshots: a rollback cannot undo it."
    >
      {() => <ServerList projectId={projectId} />}
    </HeaderDialog>
  )
}
