// "Update prices from the internet" on a real core: nothing is fetched while it is off; turned on, genai-prices'
// data is downloaded from the configured URL (here a local HTTP server serving a data file with a model newer than
// the bundled data, as Codex's gpt-6.1 defaults are), kept in the app data folder and used at the next pricing, in
// the app and in a `ralph` command; a bad file changes nothing and says why.
import { existsSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { waitForUpdate } from '@pydantic/genai-prices'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { estimateCost, priceFor } from '../../../src/main/llm/pricing'
import type { PriceUpdatesState } from '../../../src/shared/api/prices'
import { runCli } from '../../helpers/cli'
import { makeCore } from '../../helpers/core'

const NEW_MODEL = 'gpt-6.1-codex'

/** The bundled data plus one OpenAI model it does not know: what a newer published file looks like. */
async function newerData(): Promise<string> {
  const providers = structuredClone((await waitForUpdate())!) as unknown as {
    id: string
    models: unknown[]
  }[]
  providers
    .find((p) => p.id === 'openai')!
    .models.unshift({
      id: NEW_MODEL,
      name: 'GPT 6.1 Codex',
      match: { starts_with: 'gpt-6.1' },
      context_window: 400_000,
      prices: { input_mtok: 1.5, cache_read_mtok: 0.15, output_mtok: 12 },
    })
  return JSON.stringify(providers)
}

describe('price updates from the internet', { timeout: 120_000 }, () => {
  let server: Server
  let body = ''
  let requests = 0
  let url = ''
  let app: ReturnType<typeof makeCore>

  beforeAll(async () => {
    body = await newerData()
    server = createServer((_req, res) => {
      requests++
      res.writeHead(200, { 'content-type': 'application/json' }).end(body)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/prices/data.json`
    app = makeCore({ RALPH_PRICES_URL: url })
  })
  afterAll(async () => {
    await app.cleanup()
    await new Promise((resolve) => server.close(resolve))
  })

  async function call<T>(name: string, input: unknown): Promise<T> {
    const result = await app.core.dispatch(name, input)
    if (!result.ok) throw new Error(result.error.message)
    return result.value as T
  }

  it('is off by default and fetches nothing; turned on, the next pricing knows the newer model', async () => {
    expect(await call<PriceUpdatesState>('prices.updates', {})).toEqual({
      enabled: false,
      url,
      fetchedAt: null,
      models: null,
      error: null,
    })
    expect(requests).toBe(0)
    expect(priceFor(NEW_MODEL, {}, 'codex')).toBeNull()

    const on = await call<PriceUpdatesState>('prices.setUpdates', { enabled: true })
    expect(on).toMatchObject({ enabled: true, url, fetchedAt: expect.any(Number), error: null })
    expect(on.models).toBeGreaterThan(100)
    expect(requests).toBe(1)
    expect(existsSync(join(app.home, 'prices-data.json'))).toBe(true)
    expect(priceFor(NEW_MODEL, {}, 'codex')).toMatchObject({ input: 1.5, output: 12, cacheRead: 0.15 })
    const usage = { inputTokens: 1_000_000, cacheReadTokens: 500_000, outputTokens: 100_000 }
    expect(estimateCost(NEW_MODEL, usage, {}, 'codex')).toEqual({ usd: 0.75 + 0.075 + 1.2, known: true })
    // The bundled models are still priced.
    expect(priceFor('claude-sonnet-4-5', {}, 'anthropic')).toMatchObject({ input: 3 })
  })

  it('a `ralph` command prices with the kept data (it never downloads)', async () => {
    const before = requests
    const table = await runCli(['config', 'get', 'prices', '--json'], { env: { RALPH_HOME: app.home } })
    expect(table.code, table.stderr).toBe(0)
    const prices = (JSON.parse(table.stdout) as { prices: Record<string, { input: number }> }).prices
    expect(prices[NEW_MODEL]).toMatchObject({ input: 1.5 })
    expect(requests).toBe(before)
  })

  it('a file that is not price data changes nothing and says why', async () => {
    body = '<html>Not found</html>'
    const state = await call<PriceUpdatesState>('prices.updateNow', {})
    expect(state.error).toContain(`The price data from ${url} is not JSON`)
    expect(state.error).toContain('the prices stay as they were')
    expect(priceFor(NEW_MODEL, {}, 'codex')).toMatchObject({ input: 1.5 })
    // Half a file (one vendor, a model without prices) would leave the other vendors unpriced: refused whole.
    body = JSON.stringify([{ id: 'openai', models: [{ id: 'x', match: { equals: 'x' }, prices: 'free' }] }])
    const partial = await call<PriceUpdatesState>('prices.updateNow', {})
    expect(partial.error).toContain('has no models of anthropic')
    const unpriced = JSON.parse(await newerData()) as { id: string; models: { prices: unknown }[] }[]
    unpriced.find((p) => p.id === 'openai')!.models[0]!.prices = 'free'
    body = JSON.stringify(unpriced)
    const free = await call<PriceUpdatesState>('prices.updateNow', {})
    expect(free.error).toContain(
      `has a openai model (${NEW_MODEL}) without a match rule or with prices that are not rates`,
    )
    // A whole file with a rate that is not a number.
    const broken = JSON.parse(await newerData()) as { id: string; models: { prices: unknown }[] }[]
    broken.find((p) => p.id === 'openai')!.models[0]!.prices = { input_mtok: 'cheap' }
    body = JSON.stringify(broken)
    const refused = await call<PriceUpdatesState>('prices.updateNow', {})
    expect(refused.error).toContain('with prices that are not rates')
    expect(priceFor('claude-sonnet-4-5', {}, 'anthropic')).toMatchObject({ input: 3 })

    const off = await call<PriceUpdatesState>('prices.setUpdates', { enabled: false })
    expect(off).toMatchObject({ enabled: false, fetchedAt: null })
  })
})
