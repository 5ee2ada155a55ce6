// A worker's MCP servers (issue #39): the job's servers, started by the task's loop as on the coordinator. They are
// registered in the worker's own database — an app-level entry as the user's, a `.mcp.json` entry approved for the
// worker's project with the job's SHA-256 (the lane's own .mcp.json must be that very entry to start) — and their
// `${NAME}` placeholders are filled from RALPH_SECRET_<NAME> of the worker's environment only, through a vault that
// lives in memory for the length of the job.
import type { JobMcpServer } from '../../shared/workerJob'
import { AppMcpServers, placeholderNames } from '../mcp'
import type { SecretVault } from '../secrets'
import type { Db } from '../store'
import { remoteSecretVar } from './remoteSecrets'

function memoryVault(): SecretVault {
  const values = new Map<string, string>()
  return {
    kind: 'file',
    get: (name) => values.get(name) ?? null,
    set: (name, value) => void values.set(name, value),
    delete: (name) => void values.delete(name),
  }
}

/** The environment without the ticked secrets: they reach a server through its placeholders, never wholesale. */
export function withoutRemoteSecrets(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([k]) => !k.startsWith('RALPH_SECRET_')))
}

/** The servers for the lane's task; null when the job carries none. */
export async function workerMcpServers(
  db: Db,
  servers: readonly JobMcpServer[],
  projectDir: string,
  env: NodeJS.ProcessEnv,
): Promise<AppMcpServers | null> {
  if (servers.length === 0) return null
  const app = new AppMcpServers(db, memoryVault())
  // Approved for the worker's project, whose approvals its lane's loop reads (as a local lane reads the user's).
  const approvals = await app.approvals(projectDir)
  for (const s of servers) {
    if (s.origin === 'app') app.set(s.name, s.config)
    else approvals.approve({ name: s.name, origin: 'project', config: s.config })
    for (const name of placeholderNames(s.config)) {
      const value = env[remoteSecretVar(name)]
      if (value) app.setSecret(name, value)
    }
  }
  return app
}
