import { AppError, toErrorPayload, type ErrorKind, type ErrorPayload } from '../../shared/errors'
import { calls, events, isCallName } from '../../shared/api/contract'
import type { ApiContext, Handlers } from './types'
import type { Calls } from '../../shared/api/contract'
import { describeIssues } from '../../shared/describeIssues'
import type { Logger } from '../workspace/logFile'

export type CallResult = { ok: true; value: unknown } | { ok: false; error: ErrorPayload }

/**
 * The single entry both transports use: validates the input against the contract, runs the handler and
 * checks the output, so a bug in a handler surfaces here rather than as a malformed value in the UI. A failed call
 * is logged with its name and kind (the client's answer is the same either way).
 */
export function createDispatcher(handlers: Partial<Handlers<Calls>>, ctx: ApiContext, logger: Logger) {
  const inFlight = new Set<string>()
  return async function dispatch(name: string, rawInput: unknown): Promise<CallResult> {
    let flightKey: string | null = null
    try {
      if (!isCallName(name)) throw new AppError('invalid-input', `Unknown call "${name}".`)
      const def = calls[name]
      const handler = handlers[name] as ((input: unknown, c: ApiContext) => Promise<unknown>) | undefined
      if (!handler) throw new AppError('invalid-input', `"${name}" is not available in this host.`)
      const parsed = def.input.safeParse(rawInput ?? {})
      if (!parsed.success) {
        throw new AppError('invalid-input', describeIssues(parsed.error.issues), {
          issues: parsed.error.issues,
        })
      }
      if ('mutates' in def && def.mutates) {
        const key = `${name} ${JSON.stringify(parsed.data)}`
        if (inFlight.has(key)) throw duplicateMutation(name)
        inFlight.add(key)
        flightKey = key
      }
      const value = await handler(parsed.data, ctx)
      const out = def.output.safeParse(value)
      if (!out.success) {
        throw new AppError(
          'internal',
          `"${name}" produced an invalid result: ${describeIssues(out.error.issues)}`,
        )
      }
      return { ok: true, value: out.data }
    } catch (err) {
      const error = toErrorPayload(err)
      logFailedCall(logger, name, error, err)
      return { ok: false, error }
    } finally {
      if (flightKey) inFlight.delete(flightKey)
    }
  }
}

/** The refusal of a repeated mutation (a double click, a retried request) while the first is still running. */
function duplicateMutation(name: string): AppError {
  return new AppError(
    'busy',
    `The same request (${name}) is already running; it was not started twice. Its result shows when it finishes.`,
  )
}

export type Dispatch = ReturnType<typeof createDispatcher>

/** Refusals a user meets in normal use (a wrong input, a missing project, a held lock, a stop): warnings. */
const EXPECTED = new Set<ErrorKind>([
  'invalid-input',
  'not-found',
  'busy',
  'config',
  'unauthorized',
  'cancelled',
  'task-failed',
  'needs-clarification',
])

/** How loudly a failed call is logged: expected refusals warn; failures of the app or its world are errors. */
export const failureLevel = (kind: ErrorKind): 'warn' | 'error' => (EXPECTED.has(kind) ? 'warn' : 'error')

function logFailedCall(logger: Logger, name: string, error: ErrorPayload, err: unknown): void {
  const message = `call ${name} failed (${error.kind}): ${error.message}`
  if (failureLevel(error.kind) === 'warn') logger.warn(message)
  else logger.error(message, err)
}

/** Validates an event payload before it leaves the core; an invalid event is a bug, so it throws. */
export function checkEvent(name: string, payload: unknown): unknown {
  const schema = (events as Record<string, { parse(v: unknown): unknown }>)[name]
  if (!schema) throw new AppError('internal', `Unknown event "${name}".`)
  return schema.parse(payload)
}
