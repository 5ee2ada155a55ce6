// A model call's request as the cost cap needs it (proxyBudget.ts decides, this reads and rewrites): which calls
// are paid model calls, their model, how long an answer they ask for, and how big their prompt is — and the same
// request with its answer's length bounded.
import type { ModelWire } from './proxyUsage'

/** Whether a request is a paid model call, and whether its answer's length can be bounded. */
export type CallKind = { metered: false } | { metered: true; boundable: boolean }

/**
 * Anthropic: `POST …/messages` (not `…/messages/count_tokens`, which is free). Responses: `POST …/responses`, and
 * Codex's remote compaction `…/responses/compact`, which takes no `max_output_tokens`.
 */
export function callKind(wire: ModelWire, method: string | undefined, path: string): CallKind {
  if (method !== 'POST') return { metered: false }
  const pathname = path.split('?')[0]!.replace(/\/+$/, '')
  if (wire === 'anthropic-messages')
    return /\/messages$/.test(pathname) ? { metered: true, boundable: true } : { metered: false }
  if (/\/responses$/.test(pathname)) return { metered: true, boundable: true }
  if (/\/responses\/compact$/.test(pathname)) return { metered: true, boundable: false }
  return { metered: false }
}

/** What the cost cap reads of a request. */
export interface CallRequest {
  model: string | null
  /** The answer's length the request asks for (`max_tokens`, `max_output_tokens`); null when it sets none. */
  maxOutputTokens: number | null
  /** Anthropic's extended thinking budget (`thinking.budget_tokens`), which must stay below `max_tokens`. */
  thinkingBudget: number | null
  /** The prompt's size in bytes, without the base64 data of its images and documents … */
  textBytes: number
  /** … and how many of those there are (each is priced at a fixed allowance, proxyBudget.ts). */
  media: number
}

type Json = Record<string, unknown>
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)
const positive = (v: unknown): number | null =>
  typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : null

/** A base64 payload of an image or document: Anthropic's `source.data`, Responses' `image_url`/`file_data` data URLs. */
const DATA_URL = /^data:[^,]{0,100};base64,/

/** Walks the request, counting the bytes of base64 media (left out of the prompt's size) and how many there are. */
function mediaOf(value: unknown, found: { bytes: number; count: number }, depth = 0): void {
  if (depth > 64) return
  if (Array.isArray(value)) {
    for (const v of value) mediaOf(v, found, depth + 1)
    return
  }
  if (!isObject(value)) return
  if (value.type === 'base64' && typeof value.data === 'string') {
    found.bytes += value.data.length
    found.count++
    return
  }
  for (const [key, v] of Object.entries(value)) {
    if (typeof v === 'string' && (key === 'image_url' || key === 'file_data') && DATA_URL.test(v)) {
      found.bytes += v.length
      found.count++
    } else if (typeof v === 'object') mediaOf(v, found, depth + 1)
  }
}

/** The request's facts, or null when it is not a JSON object (then it is forwarded unbounded, see proxyBudget.ts). */
export function readCallRequest(wire: ModelWire, body: Buffer): { json: Json; call: CallRequest } | null {
  let json: unknown
  try {
    json = JSON.parse(body.toString('utf8'))
  } catch (err) {
    if (err instanceof SyntaxError) return null
    throw err
  }
  if (!isObject(json)) return null
  const media = { bytes: 0, count: 0 }
  mediaOf(json, media)
  const thinking = json.thinking
  return {
    json,
    call: {
      model: typeof json.model === 'string' && json.model !== '' ? json.model : null,
      maxOutputTokens: positive(wire === 'anthropic-messages' ? json.max_tokens : json.max_output_tokens),
      thinkingBudget:
        wire === 'anthropic-messages' && isObject(thinking) && thinking.type === 'enabled'
          ? positive(thinking.budget_tokens)
          : null,
      textBytes: Math.max(0, body.length - media.bytes),
      media: media.count,
    },
  }
}

/** Anthropic's smallest thinking budget (`max_tokens` must be above it when thinking is on). */
export const MIN_THINKING_BUDGET = 1024
/** The Responses API's smallest `max_output_tokens`. */
export const MIN_RESPONSES_OUTPUT = 16

/** The request with its answer bounded to `maxOutputTokens` (a thinking budget kept below it, as the API requires). */
export function boundedRequest(wire: ModelWire, json: Json, maxOutputTokens: number): Buffer {
  const out: Json = { ...json }
  if (wire === 'openai-responses') out.max_output_tokens = maxOutputTokens
  else {
    out.max_tokens = maxOutputTokens
    const thinking = out.thinking
    if (isObject(thinking) && thinking.type === 'enabled') {
      const budget = positive(thinking.budget_tokens) ?? 0
      if (budget >= maxOutputTokens) out.thinking = { ...thinking, budget_tokens: maxOutputTokens - 1 }
    }
  }
  return Buffer.from(JSON.stringify(out))
}
