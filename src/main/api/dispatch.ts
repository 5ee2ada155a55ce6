import { AppError, toErrorPayload, type ErrorPayload } from '../../shared/errors'
import { calls, events, isCallName } from '../../shared/api/contract'
import type { ApiContext, Handlers } from './types'
import type { Calls } from '../../shared/api/contract'
import { describeIssues } from '../../shared/describeIssues'

export type CallResult = { ok: true; value: unknown } | { ok: false; error: ErrorPayload }

/**
 * The single entry both transports use: validates the input against the contract, runs the handler and
 * checks the output, so a bug in a handler surfaces here rather than as a malformed value in the UI.
 */
export function createDispatcher(handlers: Partial<Handlers<Calls>>, ctx: ApiContext) {
  return async function dispatch(name: string, rawInput: unknown): Promise<CallResult> {
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
      return { ok: false, error: toErrorPayload(err) }
    }
  }
}

export type Dispatch = ReturnType<typeof createDispatcher>

/** Validates an event payload before it leaves the core; an invalid event is a bug, so it throws. */
export function checkEvent(name: string, payload: unknown): unknown {
  const schema = (events as Record<string, { parse(v: unknown): unknown }>)[name]
  if (!schema) throw new AppError('internal', `Unknown event "${name}".`)
  return schema.parse(payload)
}
