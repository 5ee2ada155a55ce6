import type { Writable } from 'node:stream'

/** Exit codes of DESIGN.md §10. */
export const ExitCode = {
  ok: 0,
  usage: 2,
  needsClarification: 3,
  taskFailed: 4,
  config: 5,
  interrupted: 130,
} as const

/** What every command receives. Global flags (--project, --json) are already parsed out of `args`. */
export interface CliContext {
  /** Absolute project folder (--project DIR, default cwd). */
  projectDir: string
  json: boolean
  /** Arguments after the command name, with the global flags removed. */
  args: string[]
  env: NodeJS.ProcessEnv
  stdout: Writable
  stderr: Writable
  /** Aborted on SIGINT/SIGTERM. */
  signal: AbortSignal
}

export interface CliCommand {
  name: string
  /** One line for `ralph --help`. */
  summary: string
  /** Full help for `ralph <name> --help`. */
  usage: string
  run(ctx: CliContext): Promise<number>
}
