import { APICallError } from 'ai'
import { AppError } from '../../shared/errors'

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

function providerMessage(body: string | undefined): string | null {
  if (!body) return null
  try {
    const parsed = JSON.parse(body) as { error?: { message?: string } | string; message?: string }
    const msg = typeof parsed.error === 'string' ? parsed.error : (parsed.error?.message ?? parsed.message)
    return msg ? String(msg).slice(0, 300) : null
  } catch {
    return body.slice(0, 200)
  }
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
    if (status === 429)
      return `The provider is rate-limiting requests (429). Wait a moment and retry.${suffix}`
    if (status !== undefined && status >= 500)
      return `The provider failed with an error (${status}).${suffix}`
    if (status !== undefined) return `The provider rejected the request (${status}).${suffix}`
  }
  const message = err instanceof Error ? err.message : String(err)
  return `The call to ${where} failed: ${message}`
}

// OpenAI's code, Anthropic's and most servers' wording for "the request does not fit the context window".
const CONTEXT_LENGTH_PATTERN =
  /context_length_exceeded|maximum context length|context (?:window|length)|prompt is too long|too many (?:input )?tokens|exceeds? the (?:model's )?(?:context|token limit|maximum)|input is too long|request too large/i

/** A provider's "this request is longer than the model's context window" (a 400 or 413 that says so). */
export function isContextLengthError(err: unknown): boolean {
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
