// The user's approve and revoke of a project's `.mcp.json` server: the one use case the CLI (`ralph mcp approve`)
// and the API (`mcp.approve`, the Approve button) share.
import { AppError } from '../../shared/errors'
import type { AppMcpServers } from './appServers'
import { serverFingerprint } from './approval'
import { MCP_FILE } from './config'
import { listServers, type ListedServer } from './sources'

async function projectServer(projectDir: string, app: AppMcpServers, name: string): Promise<ListedServer> {
  const { servers, problems } = await listServers(projectDir, app)
  const s = servers.find((x) => x.name === name && x.origin === 'project')
  if (s) return s
  const problem = problems.find((p) => p.server === name)
  if (problem) throw new AppError('invalid-input', `${problem.message} Nothing was approved.`)
  if (servers.some((x) => x.name === name))
    throw new AppError(
      'invalid-input',
      `"${name}" is an app-level server: you added it, so it needs no approval.`,
    )
  const own = servers.filter((x) => x.origin === 'project').map((x) => x.name)
  throw new AppError(
    'not-found',
    `There is no MCP server "${name}" in this project's ${MCP_FILE} (its servers: ${own.join(', ') || 'none'}).`,
  )
}

/**
 * Approves one project server as it is now. `fingerprint`: the configuration the user was shown; when the entry
 * changed since, nothing is approved (the user approves what they saw, never what the file says later).
 */
export async function approveServer(
  projectDir: string,
  app: AppMcpServers,
  name: string,
  fingerprint?: string,
): Promise<ListedServer> {
  const s = await projectServer(projectDir, app, name)
  if (fingerprint !== undefined && fingerprint !== serverFingerprint(s.config)) {
    throw new AppError(
      'invalid-input',
      `The entry of "${name}" in ${MCP_FILE} changed since it was shown: look at it again before approving it.`,
    )
  }
  ;(await app.approvals(projectDir)).approve(s)
  return { ...s, approval: 'approved' }
}

/** Withdraws the approval of a project server: it waits for approval again. */
export async function revokeServer(projectDir: string, app: AppMcpServers, name: string): Promise<void> {
  const approvals = await app.approvals(projectDir)
  if (approvals.revoke(name)) return
  await projectServer(projectDir, app, name)
  throw new AppError(
    'invalid-input',
    `"${name}" is not approved in this project: there is nothing to revoke.`,
  )
}
