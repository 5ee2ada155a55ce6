// A project's `.mcp.json` servers wait for the user's approval (issue 34): tests that use them approve them first,
// through the same paths a user takes — the use case behind `ralph mcp approve`, the CLI itself, or `mcp.approve`.
import type { Db } from '../../src/main/store/database'
import { AppMcpServers, approveServer, readProjectServers } from '../../src/main/mcp'
import { FileVault } from '../../src/main/secrets/fileVault'
import { runCli } from './cli'

/** The app-level MCP list (and the approvals) over a test's database, with a file vault in `dataDir`. */
export function testMcpServers(db: Db, dataDir: string): AppMcpServers {
  return new AppMcpServers(db, new FileVault(dataDir))
}

/** Approves every server of the project's `.mcp.json` as it is now. */
export async function approveProjectServers(projectDir: string, app: AppMcpServers): Promise<void> {
  const { servers } = await readProjectServers(projectDir)
  for (const s of servers) await approveServer(projectDir, app, s.name)
}

/** `ralph mcp approve NAME` for each server, with the CLI's environment (its RALPH_HOME). */
export async function approveWithCli(
  projectDir: string,
  env: NodeJS.ProcessEnv,
  names: string[],
): Promise<void> {
  for (const name of names) {
    const r = await runCli(['mcp', 'approve', name, '--project', projectDir], { env })
    if (r.code !== 0) throw new Error(`ralph mcp approve ${name} failed: ${r.stderr}`)
  }
}

/** A contract call that returns the value or throws (useChatCore's `call`). */
type Call = (name: string, input: unknown) => Promise<unknown>

/** `mcp.approve` for each project server that waits, with the fingerprint `mcp.list` showed (as the UI does). */
export async function approveWithApi(call: Call, projectId: number): Promise<void> {
  const listed = (await call('mcp.list', { projectId })) as {
    servers: { name: string; approval: string; fingerprint: string }[]
  }
  for (const s of listed.servers.filter((x) => x.approval === 'waiting' || x.approval === 'changed'))
    await call('mcp.approve', { projectId, server: s.name, fingerprint: s.fingerprint })
}

/** The same for a web host's `call` (startAppSession), which answers `{ ok, value, error }`. */
export function approveInSession(session: {
  projectId: number
  call(name: string, input: unknown): Promise<{ ok: boolean; value: unknown; error?: { message: string } }>
}): Promise<void> {
  return approveWithApi(async (name, input) => {
    const r = await session.call(name, input)
    if (!r.ok) throw new Error(`${name} failed: ${r.error?.message ?? 'no reason given'}`)
    return r.value
  }, session.projectId)
}
