// The shell line that starts a stdio server inside the sandbox. The server's own `env` must apply inside only: put
// on the environment of the launch it would act on the shell and bubblewrap Ralph starts outside (an `LD_PRELOAD`
// loads there, before any sandbox exists). So its values travel under inert names (RALPH_MCP_ENV_0 …, which no
// loader, shell or runtime reads) and the shell inside the sandbox exports them under their real names right before
// it becomes the server. Values never go on a command line, where any local user could read them with `ps`.
import type { StdioServerConfig } from './config'

const CARRIER = 'RALPH_MCP_ENV_'

export const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`

export interface LaunchLine {
  /** Runs inside the sandbox: exports the server's env, changes to its folder, then execs the server. */
  line: string
  /** The carriers of the server's env values, to add to the launch's (allowlisted) environment. */
  carriers: Record<string, string>
}

/** `workdir`: the server's working folder inside the sandbox; null keeps the sandbox's (the project). */
export function launchLine(config: StdioServerConfig, workdir: string | null): LaunchLine {
  const carriers: Record<string, string> = {}
  const steps: string[] = []
  Object.entries(config.env ?? {}).forEach(([name, value], i) => {
    // The names were checked to be variable names when the entry was read (config.ts).
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`"${name}" is not a variable name`)
    carriers[`${CARRIER}${i}`] = value
    steps.push(`export ${name}="$${CARRIER}${i}"`)
  })
  if (steps.length > 0) steps.push(`unset ${Object.keys(carriers).join(' ')}`)
  if (workdir !== null) steps.push(`cd ${shellQuote(workdir)}`)
  // The server replaces the shell (exec): its stdin and stdout are the transport's pipes.
  steps.push(`exec ${[config.command, ...(config.args ?? [])].map(shellQuote).join(' ')}`)
  return { line: steps.join(' && '), carriers }
}
