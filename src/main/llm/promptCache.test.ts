import type { ModelMessage } from 'ai'
import { describe, expect, it } from 'vitest'
import { cachedPrompt, countBreakpoints, MAX_BREAKPOINTS, takesBreakpoints } from './promptCache'

const CLAUDE = { provider: 'anthropic', model: 'claude-sonnet-4-5' }
const ROUTED_CLAUDE = { provider: 'openrouter', model: 'anthropic/claude-sonnet-4.5' }
const GPT = { provider: 'openai', model: 'gpt-5' }
const LOCAL = { provider: 'openai-compatible', model: 'qwen3' }

const system = 'STABLE instructions. ## Phase\nplan'
const hints = {
  stableSystemChars: 'STABLE instructions. '.length,
  stableFirstMessageChars: 6,
  key: 'ralph-k',
}
const first: ModelMessage = { role: 'user', content: 'TASK. Iteration 2' }
const steps: ModelMessage[] = [
  first,
  { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'read_file', input: {} }] },
  {
    role: 'tool',
    content: [
      { type: 'tool-result', toolCallId: 'c1', toolName: 'read_file', output: { type: 'text', value: 'x' } },
    ],
  },
]
const mark = { anthropic: { cacheControl: { type: 'ephemeral' } } }

describe('cachedPrompt', () => {
  it('Anthropic: the stable system part, the stable part of the task and the last message', () => {
    const p = cachedPrompt(CLAUDE, system, steps, hints)
    expect(p.system).toEqual([
      { role: 'system', content: 'STABLE instructions. ', providerOptions: mark },
      { role: 'system', content: '## Phase\nplan' },
    ])
    expect(p.messages[0]!.content).toEqual([
      { type: 'text', text: 'TASK. ', providerOptions: mark },
      { type: 'text', text: 'Iteration 2' },
    ])
    expect(p.messages[2]!.providerOptions).toEqual(mark)
    expect(p.messages[1]!.providerOptions).toBeUndefined()
    // The previous step's last message keeps its mark (a read, whatever the service's 20-block lookback).
    expect(p.messages[0]!.providerOptions).toEqual(mark)
    expect(countBreakpoints(p)).toBe(MAX_BREAKPOINTS)
    expect(p.providerOptions).toBeUndefined()
    // The caller's messages are not changed: the next step marks its own last message.
    expect(steps[2]!.providerOptions).toBeUndefined()
    expect(first.content).toBe('TASK. Iteration 2')
  })

  it('stays within the limit on the first step and without hints', () => {
    const p = cachedPrompt(CLAUDE, system, [first], hints)
    expect(countBreakpoints(p)).toBe(3)
    const plain = cachedPrompt(CLAUDE, 'You judge.', [{ role: 'user', content: 'Evidence' }])
    expect(plain.system).toEqual([{ role: 'system', content: 'You judge.', providerOptions: mark }])
    expect(countBreakpoints(plain)).toBe(2)
    expect(countBreakpoints(plain)).toBeLessThanOrEqual(MAX_BREAKPOINTS)
  })

  it('a later step and the checkpoint request: never more than 4', () => {
    const later: ModelMessage[] = [...steps, steps[1]!, steps[2]!]
    const p = cachedPrompt(CLAUDE, system, later, hints)
    expect(p.messages.map((m) => m.providerOptions !== undefined)).toEqual([false, false, true, false, true])
    expect(countBreakpoints(p)).toBe(4)
    const checkpoint = cachedPrompt(
      CLAUDE,
      system,
      [...later, { role: 'user', content: 'Checkpoint now.' }],
      hints,
    )
    // The request before the checkpoint ended with the tool results before the newest assistant turn.
    expect(checkpoint.messages.map((m) => m.providerOptions !== undefined)).toEqual([
      false,
      false,
      true,
      false,
      false,
      true,
    ])
    expect(countBreakpoints(checkpoint)).toBe(4)
  })

  it('never sends an empty or blank block', () => {
    const p = cachedPrompt(CLAUDE, system, [{ role: 'user', content: 'TASK.   ' }], {
      stableSystemChars: system.length,
      stableFirstMessageChars: 5,
    })
    expect(p.system).toEqual([{ role: 'system', content: system, providerOptions: mark }])
    expect(p.messages[0]).toEqual({ role: 'user', content: 'TASK.   ', providerOptions: mark })
  })

  it('OpenRouter gets the same breakpoints', () => {
    expect(countBreakpoints(cachedPrompt(ROUTED_CLAUDE, system, steps, hints))).toBe(4)
  })

  it('OpenAI: the text as it is, and a prompt_cache_key per task', () => {
    const p = cachedPrompt(GPT, system, steps, hints)
    expect(p).toEqual({ system, messages: steps, providerOptions: { openai: { promptCacheKey: 'ralph-k' } } })
  })

  it('openai-compatible servers: nothing extra', () => {
    expect(cachedPrompt(LOCAL, system, steps, hints)).toEqual({ system, messages: steps })
  })

  it('marks breakpoints only where the model takes them: Claude and Gemini through OpenRouter, not GPT there', () => {
    expect(takesBreakpoints(CLAUDE)).toBe(true)
    expect(takesBreakpoints(ROUTED_CLAUDE)).toBe(true)
    expect(takesBreakpoints({ provider: 'openrouter', model: 'google/gemini-2.5-pro' })).toBe(true)
    expect(takesBreakpoints({ provider: 'openrouter', model: 'openai/gpt-5' })).toBe(false)
    expect(
      countBreakpoints(cachedPrompt({ provider: 'openrouter', model: 'openai/gpt-5' }, system, steps, hints)),
    ).toBe(0)
    expect(takesBreakpoints(GPT)).toBe(false)
  })
})
