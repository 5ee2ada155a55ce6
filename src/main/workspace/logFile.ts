import { appendFileSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { isMissing } from './failures'

/** Where failures that would otherwise vanish (a listener that threw, a queued task that could not start) go. */
export interface Logger {
  warn(message: string, err?: unknown): void
  error(message: string, err?: unknown): void
}

export interface LogFileOptions {
  /** A file grows to this size before it is rotated. */
  maxBytes?: number
  /** Rotated files kept besides the current one (ralph.1.log is the newest). */
  keep?: number
  /** Also written here, e.g. the web host's stderr. */
  echo?: (line: string) => void
  now?: () => Date
}

/** The app data folder's `logs/ralph.log`, rotated by size; one line per entry, the stack below an error. */
export function createFileLogger(appDataDir: string, options: LogFileOptions = {}): Logger {
  const dir = join(appDataDir, 'logs')
  const file = join(dir, 'ralph.log')
  const maxBytes = options.maxBytes ?? 1024 * 1024
  const keep = options.keep ?? 3
  const now = options.now ?? (() => new Date())

  const rotate = () => {
    rmSync(join(dir, `ralph.${keep}.log`), { force: true })
    for (let i = keep - 1; i >= 1; i--) {
      try {
        renameSync(join(dir, `ralph.${i}.log`), join(dir, `ralph.${i + 1}.log`))
      } catch (err) {
        // Not there yet: fewer rotations so far than `keep`.
        if (!isMissing(err)) throw err
      }
    }
    renameSync(file, join(dir, 'ralph.1.log'))
  }

  const write = (level: 'WARN' | 'ERROR', message: string, err?: unknown) => {
    const detail =
      err === undefined ? '' : `\n${err instanceof Error ? (err.stack ?? err.message) : String(err)}`
    const line = `${now().toISOString()} ${level} ${message}${detail}\n`
    options.echo?.(line.trimEnd())
    try {
      mkdirSync(dir, { recursive: true })
      const size = statSync(file, { throwIfNoEntry: false })?.size ?? 0
      if (size > 0 && size + line.length > maxBytes) rotate()
      appendFileSync(file, line)
    } catch (err) {
      // The log is the last resort: a full disk or a read-only folder must not turn a logged failure into a crash;
      // stderr is all that is left to say so.
      process.stderr.write(`ralph: the log ${file} could not be written (${String(err)}): ${line}`)
    }
  }
  return { warn: (m, e) => write('WARN', m, e), error: (m, e) => write('ERROR', m, e) }
}

/** For tests and tools that have no app data folder: entries are kept in memory. */
export function memoryLogger(): Logger & { lines: string[] } {
  const lines: string[] = []
  const push = (level: string) => (message: string, err?: unknown) =>
    void lines.push(`${level} ${message}${err === undefined ? '' : `: ${String(err)}`}`)
  return { lines, warn: push('WARN'), error: push('ERROR') }
}
