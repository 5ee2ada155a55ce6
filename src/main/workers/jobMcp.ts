// The MCP servers a job carries (issue #39, DESIGN.md §9 and §14): the ones the task would get on this machine —
// enabled for the project, and approved (`.mcp.json` entries pinned to their SHA-256) or the user's own (Settings) —
// with their `${NAME}` placeholders left unfilled. A worker fills them from the vault secrets the user ticked for
// remote workers, and from nothing else. A server that needs a secret which is not ticked, or an app-level server
// whose values live in this machine's vault, stops the job here with a sentence naming both: never a silent start
// without them on the worker.
import { AppError } from '../../shared/errors'
import type { JobMcpServer } from '../../shared/workerJob'
import { listServers, placeholderNames, type AppMcpServers, type ServerConfig } from '../mcp'

/** `${NAME}` or `${NAME:-default}`, as placeholders.ts reads them. */
const PLACEHOLDER = /\$\{[A-Za-z_][A-Za-z0-9_.-]*(?::-[^}]*)?\}/g

/** The names of an app-level server's env or headers holding more than placeholders: values from the vault. */
function vaultValues(config: ServerConfig): string[] {
  const values = 'url' in config ? (config.headers ?? {}) : (config.env ?? {})
  return Object.entries(values)
    .filter(([, v]) => v.replace(PLACEHOLDER, '').trim() !== '')
    .map(([k]) => k)
}

const TICK = 'tick it under "Secrets for remote workers" in Settings → Workers'

export async function jobMcpServers(
  projectDir: string,
  app: AppMcpServers | null,
  ticked: (name: string) => boolean,
): Promise<JobMcpServer[]> {
  const { servers } = await listServers(projectDir, app)
  const out: JobMcpServer[] = []
  for (const s of servers) {
    // As on this machine: a server switched off, or waiting for (re)approval, is never started; never sent either.
    if (!s.enabled || s.approval === 'waiting' || s.approval === 'changed') continue
    const off = `or switch "${s.name}" off for this project in Settings → MCP servers`
    if (s.origin === 'app') {
      const keys = vaultValues(s.config)
      if (keys.length > 0)
        throw new AppError(
          'config',
          `The MCP server "${s.name}" keeps ${'url' in s.config ? 'header' : 'env'} ${keys.join(', ')} in this ` +
            "machine's vault, which a remote worker never gets: write each as ${NAME} with a named secret and " +
            `${TICK}, ${off}.`,
          { server: s.name, keys },
        )
    }
    for (const name of placeholderNames(s.config)) {
      if (ticked(name)) continue
      // One the vault does not hold: the worker does as this machine does (its default, or the server refused).
      if ((app?.secret(name) ?? null) === null) continue
      throw new AppError(
        'config',
        `The MCP server "${s.name}" needs the vault secret ${name}, which is not ticked for remote workers, so a ` +
          `worker could not start it: ${TICK}, ${off}.`,
        { server: s.name, secret: name },
      )
    }
    out.push({ name: s.name, origin: s.origin, config: s.config })
  }
  return out
}
