import { parseArgs, type ParseArgsConfig } from 'node:util'
import { AppError } from '../../shared/errors'

/** A command's own flags, in node:util parseArgs' format (the one way every command parses its arguments). */
export type CliOptions = NonNullable<ParseArgsConfig['options']>

/** Flags every command takes, wherever they appear on the line. */
export const globalOptions = {
  project: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies CliOptions

export type FlagValues = Record<string, string | boolean | (string | boolean)[] | undefined>

export interface ParsedLine {
  /** The command name, or null when the line names none. */
  command: string | null
  /** The rest of the line without the command name, for the command's own parse. */
  rest: string[]
}

/** Finds the command name: the first positional argument, skipping the global flags and their values. */
export function splitCommand(argv: string[]): ParsedLine {
  const { tokens } = parseArgs({ args: argv, options: globalOptions, strict: false, tokens: true })
  const first = tokens.find((t) => t.kind === 'positional' || t.kind === 'option-terminator')
  if (!first || first.kind !== 'positional') return { command: null, rest: argv }
  return { command: first.value, rest: [...argv.slice(0, first.index), ...argv.slice(first.index + 1)] }
}

/** Turns parseArgs' error into the sentence a person needs, with where to read more. */
function parseError(err: unknown, command: string): AppError {
  const e = err as NodeJS.ErrnoException
  const message = e.message ?? String(err)
  const flag = /'(-{1,2}[^' ]+)/.exec(message)?.[1]
  let sentence: string
  switch (e.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      sentence = `Unknown option ${flag ?? message}.`
      break
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      sentence = message.includes('does not take an argument')
        ? `${flag} takes no value.`
        : `${flag?.replace(/^(-\w), (--\S+)$/, '$2') ?? 'An option'} needs a value.`
      break
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      sentence = `Unexpected argument: ${message}`
      break
    default:
      sentence = message
  }
  return usageError(command, sentence)
}

/** A wrong command line: the sentence, then where the command's help is. */
export function usageError(command: string, sentence: string): AppError {
  return new AppError('invalid-input', `${sentence} See "ralph ${command} --help".`)
}

export interface CommandArgs {
  values: FlagValues
  positionals: string[]
}

/** Parses a command's line (global flags included) strictly: an unknown flag is a usage error (exit 2). */
export function parseCommandArgs(command: string, rest: string[], options: CliOptions = {}): CommandArgs {
  try {
    const { values, positionals } = parseArgs({
      args: rest,
      options: { ...globalOptions, ...options },
      allowPositionals: true,
      strict: true,
    })
    return { values: values as FlagValues, positionals }
  } catch (err) {
    throw parseError(err, command)
  }
}

/** `--name N` as a whole number ≥ min, or undefined when absent. */
export function intFlag(values: FlagValues, name: string, command: string, min = 0): number | undefined {
  const raw = values[name]
  if (raw === undefined) return undefined
  const n = Number(raw)
  if (typeof raw !== 'string' || raw.trim() === '' || !Number.isSafeInteger(n) || n < min) {
    throw usageError(
      command,
      `--${name} needs a whole number${min > 0 ? ` of at least ${min}` : ''}, got "${String(raw)}".`,
    )
  }
  return n
}

/** `--name X` as a non-negative number, or undefined when absent. */
export function numberFlag(values: FlagValues, name: string, command: string): number | undefined {
  const raw = values[name]
  if (raw === undefined) return undefined
  const n = Number(raw)
  if (typeof raw !== 'string' || raw.trim() === '' || !Number.isFinite(n) || n < 0) {
    throw usageError(command, `--${name} needs a number, got "${String(raw)}".`)
  }
  return n
}

export const stringFlag = (values: FlagValues, name: string): string | undefined => {
  const v = values[name]
  return typeof v === 'string' ? v : undefined
}

/** Refuses an action word the command does not have. */
export function expectAction(action: string, actions: readonly string[], command: string): void {
  if (!actions.includes(action)) throw usageError(command, `Unknown action "${action}".`)
}

/** Checks the count of positional arguments after the action word. */
export function expectPositionals(
  positionals: string[],
  min: number,
  max: number,
  shape: string,
  command: string,
): void {
  if (positionals.length < min) throw usageError(command, `Missing argument: ralph ${shape}.`)
  if (positionals.length > max)
    throw usageError(command, `Unexpected argument "${positionals[max]}": ralph ${shape}.`)
}
