// The cost cap's decision for one model call of an engine session, before the proxy forwards it (issue 34): refused
// once the cap is reached or when its prompt alone would pass it; otherwise its answer bounded to what the rest of
// the cap buys. Pure: the session's meter (proxyMeter.ts) keeps the spend and acts on the decision.
import { formatUsd } from '../../shared/formatLoopEvent'
import { MIN_RESPONSES_OUTPUT, MIN_THINKING_BUDGET, type CallRequest } from './proxyWire'
import type { ModelWire } from './proxyUsage'

/** Dollars per million tokens of one model, as pricing.ts gives them (`priceFor`). */
export interface CallRates {
  input: number
  output: number
  /** A five-minute prompt-cache write: what a fresh prompt costs at most when the engine caches it. */
  cacheWrite: number
  /** The rates of a call whose prompt is over `above` tokens. */
  longContext?: { input: number; output: number; cacheWrite: number; above: number }
}

/**
 * Bytes of request per prompt token, on the safe side: tokenizers give about 4 bytes of English, code or JSON a
 * token; 3 covers denser text. JSON's own syntax is counted too, which the service does not bill.
 */
export const BYTES_PER_TOKEN = 3
/** Tokens allowed for one image or document (Anthropic bills an image at most ~1,600; a PDF page more). */
export const MEDIA_TOKENS = 3_000
/**
 * The Responses API's `max_output_tokens` is set only below this (every model takes it): above it, a request that
 * sets none keeps its model's own maximum, since a larger value than a model supports is refused.
 */
export const RESPONSES_BOUND_CEILING = 32_000

/** The prompt's tokens as the cap counts them: its text at BYTES_PER_TOKEN, each image or document at MEDIA_TOKENS. */
export function promptTokensOf(call: Pick<CallRequest, 'textBytes' | 'media'>): number {
  return Math.ceil(call.textBytes / BYTES_PER_TOKEN) + call.media * MEDIA_TOKENS
}

export type CallDecision =
  | { refused: string }
  | {
      /** The answer's bound to send in place of the request's; null: the request goes as it is. */
      maxOutputTokens: number | null
      /** The most the call can cost as sent (its prompt, and its answer at the bound): held until it is billed. */
      reserveUsd: number
    }

/** Words of a refusal, read by the engine (its error) and by the user (the task's end). */
export function capReachedWords(capUsd: number, spentUsd: number): string {
  return `Ralph's cost cap of ${formatUsd(capUsd)} is reached (${formatUsd(spentUsd)} spent or held by calls under way)`
}

/**
 * The decision for one call. `spentUsd` is the task's spend so far, calls still under way counted at their most.
 * The prompt is priced as a fresh one written to the prompt cache (the most it can cost: a cached prompt costs a
 * tenth), its answer at the output price; `boundable`: the request's answer length can be set (Anthropic's
 * `max_tokens`, Responses' `max_output_tokens` — not Codex's compaction, nor the ChatGPT backend, which refuses it).
 */
export function decideCall(f: {
  wire: ModelWire
  capUsd: number
  spentUsd: number
  call: CallRequest
  rates: CallRates
  boundable: boolean
}): CallDecision {
  const remaining = f.capUsd - f.spentUsd
  if (remaining <= 0) return { refused: `${capReachedWords(f.capUsd, f.spentUsd)}: no more model calls.` }
  const tokens = promptTokensOf(f.call)
  const long = f.rates.longContext
  const rates = long && tokens > long.above ? long : f.rates
  const promptUsd = (tokens * Math.max(rates.input, rates.cacheWrite)) / 1_000_000
  if (promptUsd >= remaining) {
    return {
      refused:
        `${capReachedWords(f.capUsd, f.spentUsd)} for this call: its prompt alone (about ${tokens} tokens, ` +
        `${formatUsd(promptUsd)}) would pass it, so it was not sent.`,
    }
  }
  const requested = f.call.maxOutputTokens
  const cost = (output: number) => promptUsd + (output * rates.output) / 1_000_000
  if (!(rates.output > 0)) return { maxOutputTokens: null, reserveUsd: promptUsd }
  const bound = Math.floor(((remaining - promptUsd) * 1_000_000) / rates.output)
  if (!f.boundable) return { maxOutputTokens: null, reserveUsd: cost(Math.min(bound, requested ?? bound)) }
  const least =
    f.wire === 'openai-responses'
      ? MIN_RESPONSES_OUTPUT
      : f.call.thinkingBudget !== null
        ? MIN_THINKING_BUDGET + 1
        : 1
  if (bound < least) {
    return {
      refused:
        `${capReachedWords(f.capUsd, f.spentUsd)} for this call: what is left would not buy its answer ` +
        `${least > 1 ? `the least the API takes (${least} tokens)` : 'a single token'}, so it was not sent.`,
    }
  }
  if (requested !== null && requested <= bound) return { maxOutputTokens: null, reserveUsd: cost(requested) }
  if (requested === null && f.wire === 'openai-responses' && bound >= RESPONSES_BOUND_CEILING) {
    // Not set: the model's own maximum applies (held at the ceiling, the most a long answer usually takes).
    return { maxOutputTokens: null, reserveUsd: cost(RESPONSES_BOUND_CEILING) }
  }
  return { maxOutputTokens: bound, reserveUsd: cost(bound) }
}
