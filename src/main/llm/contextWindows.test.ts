import { describe, expect, it } from 'vitest'
import {
  AGENTIC_MIN_CONTEXT,
  contextWindowFor,
  localContextAdvice,
  DEFAULT_CONTEXT_WINDOW,
  parseContextTokens,
  parseContextWindowOverrides,
} from './contextWindows'

describe('context windows', () => {
  it('matches exact ids, prefixes and router ids; the user table wins; unknown models get the default', () => {
    expect(contextWindowFor('gpt-4o-2024-08-06')).toMatchObject({
      tokens: 128_000,
      key: 'gpt-4o',
      source: 'built-in',
    })
    expect(contextWindowFor('gpt-4o-mini').tokens).toBe(128_000)
    expect(contextWindowFor('anthropic/claude-sonnet-4-5').tokens).toBe(200_000)
    expect(contextWindowFor('my-local-model')).toEqual({
      tokens: DEFAULT_CONTEXT_WINDOW,
      key: null,
      source: 'fallback',
    })
    expect(contextWindowFor('gpt-4o', { 'gpt-4o': 64_000 })).toMatchObject({
      tokens: 64_000,
      source: 'override',
    })
    expect(contextWindowFor('qwen3:8b', { qwen3: 40_960 }).tokens).toBe(40_960)
  })

  it('reads what users type and keeps only valid table entries', () => {
    expect(parseContextTokens('128k')).toBe(128_000)
    expect(parseContextTokens('1m')).toBe(1_000_000)
    expect(parseContextTokens('32768')).toBe(32_768)
    expect(parseContextTokens('12')).toBeNull()
    expect(parseContextTokens('lots')).toBeNull()
    expect(parseContextWindowOverrides({ a: 8192, b: 'x', c: -1, ' ': 9000 })).toEqual({ a: 8192 })
    expect(parseContextWindowOverrides(null)).toEqual({})
  })

  it('says how to raise a local window under 16K, by what limits it, and nothing otherwise', () => {
    const ollama = (limitedBy: 'trained' | 'modelfile' | 'user-max' | 'default') =>
      localContextAdvice('m', { tokens: 8_192, source: 'ollama', limitedBy })
    expect(ollama('trained')).toContain('pick a model with a longer context')
    expect(ollama('modelfile')).toContain('PARAMETER num_ctx 8192')
    expect(ollama('user-max')).toContain('ralph config set localContextMax')
    expect(ollama('default')).toContain('ralph config set localContextMax')
    for (const limitedBy of ['trained', 'modelfile', 'user-max', 'default'] as const)
      expect(ollama(limitedBy)).toMatch(/^m runs with a 8192-token context window, under the 16384 tokens/)
    expect(
      localContextAdvice('m', { tokens: 4_096, source: 'lm-studio', limitedBy: 'not-loaded' }),
    ).toContain('lms load m --context-length')
    expect(
      localContextAdvice('m', { tokens: AGENTIC_MIN_CONTEXT, source: 'ollama', limitedBy: 'default' }),
    ).toBeNull()
    expect(localContextAdvice('m', { tokens: 8_000, source: 'override' })).toBeNull()
  })
})
