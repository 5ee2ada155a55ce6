import { APICallError } from 'ai'
import { AppError } from '../../shared/errors'
import { parseJsonOr } from '../../shared/json'

export interface ProviderTarget {
  provider: string
  model: string
  baseUrl?: string | null
}

/** The first string `code` on the error or its `cause` chain (undici nests ECONNREFUSED two levels deep). */
export function findCode(err: unknown): string | undefined {
  let current: unknown = err
  for (let depth = 0; depth < 6 && current; depth++) {
    const code = (current as { code?: unknown }).code
    if (typeof code === 'string') return code
    current = (current as { cause?: unknown }).cause
  }
  return undefined
}

/**
 * An error a provider reported INSIDE a 200 stream, which the AI SDK hands on as the event's plain object, not as an
 * APICallError: Anthropic's `event: error` (`{ type: 'overloaded_error', message }`), OpenAI Responses' `error`
 * event once output has started (`{ code: 'server_error', message, statusCode?, isRetryable? }`).
 */
export interface StreamError {
  /** The HTTP status the same error has when the service answers with a status (Anthropic 529 overloaded …). */
  status: number | undefined
  /** The service's own name for it (`overloaded_error`, `server_error`, …). */
  type: string
  message: string
}

// Anthropic's error types and the status each is sent with outside a stream (docs: "Errors").
const ANTHROPIC_STATUS: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
}

// OpenAI's error codes/types seen in stream error events.
const OPENAI_STATUS: Record<string, number> = {
  server_error: 500,
  rate_limit_exceeded: 429,
  context_length_exceeded: 400,
  invalid_request_error: 400,
}

/** The stream error inside `err` (the object itself or its `error`), or null for anything else. */
export function streamErrorOf(err: unknown): StreamError | null {
  if (!err || typeof err !== 'object' || err instanceof Error) return null
  const outer = err as Record<string, unknown>
  const inner = (outer.error && typeof outer.error === 'object' ? outer.error : outer) as Record<
    string,
    unknown
  >
  const type = [inner.type, inner.code, outer.type, outer.code].find(
    (v): v is string => typeof v === 'string' && v !== 'error',
  )
  const message = typeof inner.message === 'string' ? inner.message : undefined
  if (!type && !message) return null
  const given = [outer.statusCode, inner.statusCode, inner.status].find((v) => typeof v === 'number')
  const status =
    (given as number | undefined) ?? (type ? (ANTHROPIC_STATUS[type] ?? OPENAI_STATUS[type]) : undefined)
  return { status, type: type ?? 'error', message: message ?? type ?? 'error' }
}

/** The message of a provider's error body (JSON `error.message`, `error` or `message`), or its start when not JSON. */
export function providerMessage(body: string | undefined): string | null {
  if (!body) return null
  const parsed = parseJsonOr(body, null) as { error?: { message?: string } | string; message?: string } | null
  if (parsed === null) return body.slice(0, 200)
  const msg = typeof parsed.error === 'string' ? parsed.error : (parsed.error?.message ?? parsed.message)
  return msg ? String(msg).slice(0, 300) : null
}

/**
 * OpenAI's 429 `insufficient_quota`: the account has no credit left. Unlike a rate limit it does not pass with
 * time, so it is neither retried nor waited for.
 */
export function isQuotaExhausted(err: unknown): boolean {
  return (
    APICallError.isInstance(err) &&
    err.statusCode === 429 &&
    /"(?:code|type)"\s*:\s*"insufficient_quota"/.test(err.responseBody ?? '')
  )
}

/** Turns whatever a provider call threw into one plain sentence a user can act on. */
export function describeProviderError(err: unknown, target: ProviderTarget): string {
  const where = target.baseUrl ?? `the ${target.provider} API`
  const code = findCode(err)
  if (code === 'ECONNREFUSED')
    return `Nothing is listening at ${where} (connection refused). Is the server running?`
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return `Cannot resolve the host of ${where}. Check the address.`
  if (code === 'ETIMEDOUT' || code === 'UND_ERR_CONNECT_TIMEOUT' || (err as Error)?.name === 'TimeoutError') {
    return `${where} did not answer in time. Check the address and your network.`
  }
  if (/bad port/i.test(String((err as { cause?: unknown })?.cause ?? '') + String((err as Error)?.message))) {
    return `Node refuses to connect to the port in ${where} (a reserved port). Use the server's real port.`
  }
  if (APICallError.isInstance(err)) {
    const status = err.statusCode
    const detail = providerMessage(err.responseBody)
    const suffix = detail ? ` The provider said: ${detail}` : ''
    if (status === 401 || status === 403) {
      return `The provider refused the API key (${status}). Check the key in Settings or the environment.${suffix}`
    }
    if (status === 404) {
      return `The provider does not know the model "${target.model}" or the address is wrong (404).${suffix}`
    }
    if (isQuotaExhausted(err))
      return `The provider says the account has no credit left (429 insufficient_quota). Add credit or change the plan, then run the task again.${suffix}`
    const described = describeStatus(status, suffix)
    if (described) return described
  }
  const streamed = streamErrorOf(err)
  if (streamed) {
    const suffix = ` The provider said: ${streamed.message.slice(0, 300)}`
    return (
      describeStatus(streamed.status, `${suffix} (an error event in the stream)`) ??
      `The provider ended the stream with an error (${streamed.type}).${suffix}`
    )
  }
  const message = err instanceof Error ? err.message : String(err)
  return `The call to ${where} failed: ${message}`
}

function describeStatus(status: number | undefined, suffix: string): string | null {
  if (status === undefined) return null
  if (status === 429) return `The provider is rate-limiting requests (429). Wait a moment and retry.${suffix}`
  if (status === 529) return `The provider is overloaded (529). Try again in a few minutes.${suffix}`
  if (status >= 500) return `The provider failed with an error (${status}).${suffix}`
  return `The provider rejected the request (${status}).${suffix}`
}

// OpenAI's code, Anthropic's and most servers' wording for "the request does not fit the context window".
const CONTEXT_LENGTH_PATTERN =
  /context_length_exceeded|maximum context length|context (?:window|length)|prompt is too long|too many (?:input )?tokens|exceeds? the (?:model's )?(?:context|token limit|maximum)|input is too long|request[ _]too[ _]large/i

/** A provider's "this request is longer than the model's context window" (a 400 or 413 that says so). */
export function isContextLengthError(err: unknown): boolean {
  const streamed = streamErrorOf(err)
  if (streamed)
    return (
      (streamed.status === 400 || streamed.status === 413) &&
      CONTEXT_LENGTH_PATTERN.test(`${streamed.type} ${streamed.message}`)
    )
  if (!APICallError.isInstance(err)) return false
  if (err.statusCode !== 400 && err.statusCode !== 413) return false
  return CONTEXT_LENGTH_PATTERN.test(`${err.responseBody ?? ''} ${err.message}`)
}

/** The context window overflowed: the loop turns this into a checkpoint, never a failed task. */
export class ContextOverflowError extends AppError {
  constructor(message: string, status: number | undefined) {
    super('provider', message, { status, contextLength: true })
    this.name = 'ContextOverflowError'
  }
}
