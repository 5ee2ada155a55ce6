/**
 * Stable error kinds that cross every boundary (IPC, HTTP/WebSocket, CLI). Callers branch on `kind`,
 * never on message text; the message is for people and says what was wrong and what to do.
 */
export const errorKinds = [
  'invalid-input', // the caller sent something malformed (CLI exit 2)
  'not-found', // a project, tag, file … that does not exist
  'busy', // another operation holds the lock
  'config', // missing or invalid configuration (CLI exit 5)
  'provider', // the LLM provider refused or failed (CLI exit 5)
  'io', // the file system refused (permissions, disk full …)
  'git', // git is missing, too old, or failed
  'store', // the database is corrupt, newer than this app, or unwritable
  'unauthorized', // a missing or wrong web-host token
  'cancelled', // the user stopped it (CLI exit 130)
  'task-failed', // gates, stall, max iterations (CLI exit 4)
  'needs-clarification', // the task parser asked the user a question (CLI exit 3)
  'internal', // a bug: should never happen
] as const

export type ErrorKind = (typeof errorKinds)[number]

// A plain type, not a zod schema: the CLI reports errors on its fastest paths (--help, usage errors), which must not
// pay for loading zod.
export interface ErrorPayload {
  kind: ErrorKind
  message: string
  details?: unknown
}

function isErrorPayload(value: unknown): value is ErrorPayload {
  if (typeof value !== 'object' || value === null) return false
  const v = value as Record<string, unknown>
  return (errorKinds as readonly unknown[]).includes(v.kind) && typeof v.message === 'string'
}

export class AppError extends Error {
  readonly kind: ErrorKind
  readonly details?: unknown

  /** `cause`: the underlying error, kept for the log; it never reaches the client. */
  constructor(kind: ErrorKind, message: string, details?: unknown, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'AppError'
    this.kind = kind
    this.details = details
  }

  toPayload(): ErrorPayload {
    return this.details === undefined
      ? { kind: this.kind, message: this.message }
      : { kind: this.kind, message: this.message, details: this.details }
  }
}

/** Turns anything thrown into a payload that is safe to send across a boundary (no stack traces). */
export function toErrorPayload(err: unknown): ErrorPayload {
  if (err instanceof AppError) return err.toPayload()
  if (isErrorPayload(err)) {
    return err.details === undefined
      ? { kind: err.kind, message: err.message }
      : { kind: err.kind, message: err.message, details: err.details }
  }
  const message = err instanceof Error ? err.message : String(err)
  return { kind: 'internal', message: message || 'Unexpected error' }
}

export function isAppError(err: unknown, kind?: ErrorKind): err is AppError {
  return err instanceof AppError && (kind === undefined || err.kind === kind)
}

/**
 * Whether an error is the file system's refusal (it carries an errno code: ENOENT, EISDIR, EACCES …), the expected
 * failure of reading a path someone else controls, as opposed to a bug.
 */
export function isFsError(err: unknown): boolean {
  return typeof (err as { code?: unknown } | null)?.code === 'string'
}
