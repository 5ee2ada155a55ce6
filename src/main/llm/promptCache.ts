import type { ModelMessage, SystemModelMessage } from 'ai'

/**
 * Prompt caching: what to send so a provider bills the unchanged front of a request as a cache read.
 *
 * The loop sends the whole conversation at every tool step, so without caching each step re-bills the system
 * prompt, the tools and everything said so far. The prompt is laid out stable-first (src/main/loop/context.ts):
 * the system prompt's stable part, then the phase's guidance; the first user message's stable part (task, plan),
 * then what changes per iteration. The hints say where those stable parts end.
 *
 * - Anthropic (and OpenRouter, which passes Anthropic's `cache_control` through): the 4 breakpoints allowed, at
 *   most. One on the stable system prompt (Anthropic's prompt order is tools → system → messages, so it covers the
 *   tools too), one on the stable part of the first user message (read by the next iteration of the same task), one
 *   on the last message (moved forward each step, so step k reads what step k-1 wrote), and one on the previous
 *   step's last message (the service looks back only 20 blocks from a breakpoint for a cached prefix; a step with
 *   many tool calls adds more).
 * - OpenAI (Responses) caches a stable prefix by itself; `prompt_cache_key` routes a task's requests to the same
 *   cache. The text is sent joined, byte-identical up to where it changes.
 * - openai-compatible servers (Ollama, LM Studio, …): nothing extra.
 */

type ProviderOptions = NonNullable<SystemModelMessage['providerOptions']>

export interface PromptCacheHints {
  /** system.slice(0, n) stays byte-identical across a task's iterations; the rest (the phase's guidance) may not. */
  stableSystemChars?: number
  /** The first message is a user message whose first n characters stay byte-identical across the task. */
  stableFirstMessageChars?: number
  /** Names one task's requests (OpenAI `prompt_cache_key`). */
  key?: string
}

export interface CachedPrompt {
  system: string | SystemModelMessage[]
  messages: ModelMessage[]
  providerOptions?: ProviderOptions
}

/**
 * Whether a model takes Anthropic's `cache_control` breakpoints: Anthropic's own, and through OpenRouter (which reads
 * `providerOptions.anthropic`) the families it documents as caching only where marked, Claude and Gemini. Others
 * behind OpenRouter (OpenAI, DeepSeek, Grok …) cache a repeated prefix by themselves.
 */
export function takesBreakpoints(target: { provider: string; model: string }): boolean {
  if (target.provider === 'anthropic') return true
  return target.provider === 'openrouter' && /^(anthropic|google)\//i.test(target.model)
}
/** Anthropic refuses a request with more. */
export const MAX_BREAKPOINTS = 4

const EPHEMERAL: ProviderOptions = { anthropic: { cacheControl: { type: 'ephemeral' } } }

/** Splits `text` at `at` when both sides hold something the service accepts (no empty or blank text block). */
function split(text: string, at: number | undefined): [string, string] | null {
  if (at === undefined || at <= 0 || at >= text.length) return null
  const head = text.slice(0, at)
  const tail = text.slice(at)
  return head.trim() && tail.trim() ? [head, tail] : null
}

function withBreakpoint(message: ModelMessage): ModelMessage {
  return { ...message, providerOptions: { ...message.providerOptions, ...EPHEMERAL } } as ModelMessage
}

function anthropicPrompt(system: string, messages: ModelMessage[], hints: PromptCacheHints): CachedPrompt {
  const parts = split(system, hints.stableSystemChars)
  const systemMessages: SystemModelMessage[] = parts
    ? [
        { role: 'system', content: parts[0], providerOptions: EPHEMERAL },
        { role: 'system', content: parts[1] },
      ]
    : system.trim()
      ? [{ role: 'system', content: system, providerOptions: EPHEMERAL }]
      : []
  const out = [...messages]
  const first = out[0]
  if (first?.role === 'user' && typeof first.content === 'string') {
    const userParts = split(first.content, hints.stableFirstMessageChars)
    if (userParts) {
      out[0] = {
        ...first,
        content: [
          { type: 'text', text: userParts[0], providerOptions: EPHEMERAL },
          { type: 'text', text: userParts[1] },
        ],
      }
    }
  }
  const last = out.length - 1
  if (last >= 0) out[last] = withBreakpoint(out[last]!)
  // The previous request's last message (the one before the newest assistant turn): already cached, so marking it
  // costs nothing, and the read still lands when one step adds more than the service's 20-block lookback.
  const assistant = out.findLastIndex((m) => m.role === 'assistant')
  if (assistant > 0 && assistant - 1 !== last) out[assistant - 1] = withBreakpoint(out[assistant - 1]!)
  return { system: systemMessages.length ? systemMessages : system, messages: out }
}

/** What to send for one request: the system prompt, the messages and the provider options, with cache hints. */
export function cachedPrompt(
  target: { provider: string; model: string },
  system: string,
  messages: ModelMessage[],
  hints: PromptCacheHints = {},
): CachedPrompt {
  if (takesBreakpoints(target)) return anthropicPrompt(system, messages, hints)
  if (target.provider === 'openai' && hints.key)
    return { system, messages, providerOptions: { openai: { promptCacheKey: hints.key } } }
  return { system, messages }
}

/** How many `cache_control` breakpoints a prepared prompt carries (for tests and checks). */
export function countBreakpoints(prompt: CachedPrompt): number {
  const marked = (o: ProviderOptions | undefined) => (o?.anthropic?.cacheControl ? 1 : 0)
  let n = 0
  if (Array.isArray(prompt.system)) for (const m of prompt.system) n += marked(m.providerOptions)
  for (const m of prompt.messages) {
    n += marked(m.providerOptions)
    if (Array.isArray(m.content))
      for (const p of m.content as { providerOptions?: ProviderOptions }[]) n += marked(p.providerOptions)
  }
  return n
}
