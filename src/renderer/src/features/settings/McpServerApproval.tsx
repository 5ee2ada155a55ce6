import { useMutation, useQueryClient } from '@tanstack/react-query'
import type { McpServerInfo } from '../../../../shared/api/mcp'
import { useClient } from '../../app/ClientProvider'
import { FieldError } from '../../app/FieldError'
import { callKey } from '../../app/queries'
import { ActionButton, Badge } from '../../ui'

const STATE: Record<McpServerInfo['approval'], string> = {
  user: 'Added by you',
  approved: 'Approved',
  waiting: 'Waits for your approval',
  changed: 'Changed since you approved it',
}

/** Exactly what a server would run or contact, and the vault secrets it would get. */
function WhatItDoes({ server }: { server: McpServerInfo }) {
  const d = server.detail
  return (
    <dl className="mcp-approval-detail">
      {d.kind === 'stdio' ? (
        <>
          <dt>Runs, in the sandbox</dt>
          <dd>
            <code>{[d.command, ...d.args].join(' ')}</code>
          </dd>
          {d.env.length ? (
            <>
              <dt>With the environment</dt>
              <dd>
                {d.env.map((e) => (
                  <code key={e.name}>{e.value === null ? e.name : `${e.name}=${e.value}`}</code>
                ))}
              </dd>
            </>
          ) : null}
        </>
      ) : (
        <>
          <dt>Contacts</dt>
          <dd>
            <code>{d.url}</code>
          </dd>
          {d.headers.length ? (
            <>
              <dt>Sending the headers</dt>
              <dd>{d.headers.join(', ')}</dd>
            </>
          ) : null}
        </>
      )}
      <dt>Secrets from the vault</dt>
      <dd>{server.secrets.length ? server.secrets.join(', ') : 'none'}</dd>
    </dl>
  )
}

/**
 * A project server's approval (DESIGN.md §9): what it would run or contact and which secrets it would get, with
 * Approve (for exactly this configuration: its fingerprint) or Revoke. Nothing for an app-level server.
 */
export function McpServerApproval({ server, projectId }: { server: McpServerInfo; projectId: number }) {
  const client = useClient()
  const queryClient = useQueryClient()
  const change = useMutation({
    mutationFn: (approve: boolean) =>
      approve
        ? client.call('mcp.approve', { projectId, server: server.name, fingerprint: server.fingerprint })
        : client.call('mcp.revoke', { projectId, server: server.name }),
    onSuccess: (next) => queryClient.setQueryData(callKey('mcp.list', { projectId }), next),
  })
  if (server.origin !== 'project') return null
  const waits = server.approval === 'waiting' || server.approval === 'changed'
  return (
    <div className={`mcp-approval${waits ? ' mcp-approval-waiting' : ''}`}>
      <div className="mcp-approval-head">
        <Badge tone={waits ? 'warn' : 'ok'}>{STATE[server.approval]}</Badge>
        {waits ? (
          <span className="hint">It does not start, and gets no secret, until you approve it as shown.</span>
        ) : null}
        <span className="mcp-approval-action">
          <ActionButton
            size="sm"
            variant={waits ? 'primary' : 'ghost'}
            onAction={() => change.mutateAsync(waits)}
          >
            {waits ? 'Approve' : 'Revoke'}
          </ActionButton>
        </span>
      </div>
      {waits ? <WhatItDoes server={server} /> : null}
      <FieldError error={change.error} />
    </div>
  )
}
