import type { Writable } from 'node:stream'
import type { Logger } from '../workspace/logFile'
import type { CliOptions, FlagValues } from './args'

/** Exit codes of DESIGN.md §10. */
export const ExitCode = {
  ok: 0,
  usage: 2,
  needsClarification: 3,
  taskFailed: 4,
  config: 5,
  interrupted: 130,
} as const

/** What every command receives, its line already parsed (global flags included) by its own options. */
export interface CliContext {
  /** Absolute project folder (--project DIR resolved against the caller's folder, default cwd). */
  projectDir: string
  json: boolean
  /** Positional arguments after the command name. */
  positionals: string[]
  /** Parsed flags, by long name. */
  values: FlagValues
  env: NodeJS.ProcessEnv
  stdout: Writable
  stderr: Writable
  /** Aborted on SIGINT/SIGTERM, or when the reader of stdout went away. */
  signal: AbortSignal
  /** The app data folder's log: where failures a command survives are recorded. */
  logger: Logger
}

export interface CliCommand {
  name: string
  /** Full help for `ralph <name> --help`. */
  usage: string
  /** The command's own flags; anything else on the line is a usage error. */
  options?: CliOptions
  run(ctx: CliContext): Promise<number>
}
