import { describe, expect, it } from 'vitest'
import { priceFor } from '../llm'
import { BYTES_PER_TOKEN, MEDIA_TOKENS, decideCall, promptTokensOf, type CallRates } from './proxyBudget'
import { boundedRequest, callKind, readCallRequest, type CallRequest } from './proxyWire'

/** Claude Sonnet 4.5 as the catalog prices it: $3 / $15 per 1M tokens, $3.75 a 5-minute cache write. */
const SONNET = priceFor('claude-sonnet-4-5', {}, 'claude-code')!
const GPT = priceFor('gpt-5.1', {}, 'codex')!

const call = (over: Partial<CallRequest> = {}): CallRequest => ({
  model: 'claude-sonnet-4-5',
  maxOutputTokens: 32_000,
  thinkingBudget: null,
  textBytes: 30_000,
  media: 0,
  ...over,
})

const decide = (
  capUsd: number,
  spentUsd: number,
  c: CallRequest,
  rates: CallRates = SONNET,
  boundable = true,
) => decideCall({ wire: 'anthropic-messages', capUsd, spentUsd, call: c, rates, boundable })

describe('the cost cap before a model call is forwarded', () => {
  it('prices the prompt from its size, images at a fixed allowance, at the cache-write rate', () => {
    expect(SONNET).toMatchObject({ input: 3, output: 15, cacheWrite: 3.75 })
    expect(promptTokensOf({ textBytes: 30_000, media: 2 })).toBe(30_000 / BYTES_PER_TOKEN + 2 * MEDIA_TOKENS)
    // 10,000 tokens at $3.75/M = $0.0375 held for the prompt; the rest of $0.10 buys (0.0625 / 15e-6) tokens.
    expect(decide(0.1, 0, call())).toEqual({ maxOutputTokens: 4166, reserveUsd: 0.0375 + (4166 * 15) / 1e6 })
  })

  it('lets a request through as it is when what it asks for fits', () => {
    expect(decide(10, 1, call({ maxOutputTokens: 8_000 }))).toEqual({
      maxOutputTokens: null,
      reserveUsd: 0.0375 + (8_000 * 15) / 1e6,
    })
  })

  it('refuses once the cap is reached, and a prompt that alone would pass it', () => {
    const reached = decide(0.01, 0.01, call())
    expect(reached).toEqual({ refused: expect.stringContaining("Ralph's cost cap of $0.01 is reached") })
    const big = decide(0.05, 0.02, call())
    expect(big).toEqual({
      refused: expect.stringContaining('its prompt alone (about 10000 tokens, $0.0375)'),
    })
    expect((big as { refused: string }).refused).toContain("Ralph's cost cap of $0.05 is reached")
  })

  it('refuses what cannot buy the least answer the API takes: one token, 1025 with thinking on, 16 on Responses', () => {
    // $0.0375 of prompt leaves $0.0000149: no token of answer at $15/M.
    expect(decide(0.0375149, 0, call())).toEqual({ refused: expect.stringContaining('a single token') })
    // 1,000 tokens of answer are left: enough without thinking, not with it.
    const left = 0.0375 + (1_000 * 15) / 1e6
    expect(decide(left, 0, call())).toMatchObject({ maxOutputTokens: 1000 })
    expect(decide(left, 0, call({ thinkingBudget: 10_000 }))).toEqual({
      refused: expect.stringContaining('the least the API takes (1025 tokens)'),
    })
    const gpt = (capUsd: number) =>
      decideCall({
        wire: 'openai-responses',
        capUsd,
        spentUsd: 0,
        call: call({ model: 'gpt-5.1', maxOutputTokens: null }),
        rates: GPT,
        boundable: true,
      })
    const prompt = (10_000 * GPT.input) / 1e6
    expect(gpt(prompt + (15 * GPT.output) / 1e6)).toEqual({ refused: expect.stringContaining('(16 tokens)') })
    expect(gpt(prompt + (500 * GPT.output) / 1e6)).toMatchObject({ maxOutputTokens: 500 })
    // Plenty left: a request that sets no bound keeps none (a model's own maximum may be below a large one).
    expect(gpt(100)).toMatchObject({ maxOutputTokens: null })
  })

  it('where the answer cannot be bounded (ChatGPT, compaction) it holds the prompt and refuses only', () => {
    expect(decide(0.1, 0, call({ maxOutputTokens: null }), SONNET, false)).toEqual({
      maxOutputTokens: null,
      // The whole rest of the cap: an unbounded answer may take it all.
      reserveUsd: expect.closeTo(0.1, 4),
    })
    expect(decide(0.03, 0, call(), SONNET, false)).toHaveProperty('refused')
  })

  it('a prompt over the long-context threshold is priced at the long-context rates', () => {
    const rates: CallRates = {
      ...SONNET,
      longContext: { input: 6, output: 22.5, cacheWrite: 7.5, above: 200_000 },
    }
    // 210,000 tokens at $7.50/M = $1.575 of prompt.
    const d = decide(2, 0, call({ textBytes: 630_000 }), rates)
    expect(d).toEqual({
      maxOutputTokens: Math.floor(((2 - 1.575) * 1e6) / 22.5),
      reserveUsd: expect.any(Number),
    })
  })
})

describe("a model call's request as the cap reads and bounds it", () => {
  it('meters the paid calls only', () => {
    expect(callKind('anthropic-messages', 'POST', '/v1/messages?beta=true')).toEqual({
      metered: true,
      boundable: true,
    })
    expect(callKind('anthropic-messages', 'POST', '/v1/messages/count_tokens')).toEqual({ metered: false })
    expect(callKind('anthropic-messages', 'GET', '/v1/messages')).toEqual({ metered: false })
    expect(callKind('openai-responses', 'POST', '/v1/responses')).toEqual({ metered: true, boundable: true })
    expect(callKind('openai-responses', 'POST', '/responses/compact')).toEqual({
      metered: true,
      boundable: false,
    })
    expect(callKind('openai-responses', 'GET', '/models')).toEqual({ metered: false })
  })

  it("reads the model, the answer's length, thinking, and the prompt's size without its base64 media", () => {
    const image = 'A'.repeat(50_000)
    const body = Buffer.from(
      JSON.stringify({
        model: 'claude-sonnet-4-5',
        max_tokens: 32_000,
        thinking: { type: 'enabled', budget_tokens: 10_000 },
        messages: [
          {
            role: 'user',
            content: [
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: image } },
              { type: 'text', text: 'what is this?' },
            ],
          },
        ],
      }),
    )
    const read = readCallRequest('anthropic-messages', body)!
    expect(read.call).toEqual({
      model: 'claude-sonnet-4-5',
      maxOutputTokens: 32_000,
      thinkingBudget: 10_000,
      textBytes: body.length - image.length,
      media: 1,
    })
    const bounded = JSON.parse(boundedRequest('anthropic-messages', read.json, 4_000).toString()) as Record<
      string,
      unknown
    >
    // The thinking budget stays below max_tokens, as the API requires; the rest is untouched.
    expect(bounded).toMatchObject({ max_tokens: 4_000, thinking: { type: 'enabled', budget_tokens: 3_999 } })
    expect(bounded.messages).toEqual(read.json.messages)

    const responses = Buffer.from(
      JSON.stringify({
        model: 'gpt-5.1',
        input: [
          { role: 'user', content: [{ type: 'input_image', image_url: `data:image/png;base64,${image}` }] },
        ],
      }),
    )
    const r = readCallRequest('openai-responses', responses)!
    expect(r.call).toMatchObject({ model: 'gpt-5.1', maxOutputTokens: null, media: 1 })
    expect(r.call.textBytes).toBeLessThan(200)
    expect(JSON.parse(boundedRequest('openai-responses', r.json, 700).toString())).toMatchObject({
      max_output_tokens: 700,
    })
    expect(readCallRequest('openai-responses', Buffer.from('not json'))).toBeNull()
    expect(readCallRequest('openai-responses', Buffer.from('[1]'))).toBeNull()
  })
})
