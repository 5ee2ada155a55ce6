import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchChromium, openPage, shootThemes } from '../helpers/browser'
import { startFakeLlmServer, type FakeLlmServer } from '../fixtures/fakeLlmServer'
import { makeTempDir } from '../helpers/tempDir'
import { callApi, startWebHost, type WebHost } from '../helpers/webHost'

/** The values the model field offers (its datalist), read in the page. */
const offered = (page: Page): Promise<string[]> =>
  page.evaluate(`[...document.querySelectorAll('#model-options option')].map((o) => o.value)`)

// Settings asks a custom base URL's server which models it has (GET {base}/models) and offers them in the model
// field, which still takes any typed name.
describe('settings: a custom base URL’s models in Chromium', { timeout: 120_000 }, () => {
  let home: ReturnType<typeof makeTempDir>
  let llm: FakeLlmServer
  let host: WebHost
  let browser: Browser
  let page: Page

  beforeAll(async () => {
    home = makeTempDir('ralph-home-')
    llm = await startFakeLlmServer()
    llm.models = ['qwen2.5-coder-7b-instruct', 'llama-3.1-8b-instruct', 'mistral-small']
    // No local servers to find: the list can only come from the address the user types.
    host = await startWebHost({ RALPH_HOME: home.path, RALPH_LOCAL_SERVERS: '' })
    browser = await launchChromium()
    page = await openPage(browser, { width: 1280, height: 900 })
    await page.goto(host.url)
    await page.waitForURL(`${host.origin}/`)
  })
  afterAll(async () => {
    await browser?.close()
    await host?.stop()
    await llm?.close()
    home?.cleanup()
  })

  it('lists the server’s models on List models and after Test connection; a typed name is saved', async () => {
    await page.goto(`${host.origin}/#/settings`)
    const form = page.getByRole('form', { name: 'LLM provider' })
    await form.getByLabel('Provider').selectOption('openai-compatible')
    await form.getByLabel(/Base URL/).fill(llm.baseUrl)
    const model = form.getByRole('combobox', { name: 'Model' })
    expect(await offered(page)).toEqual([])

    await form.getByRole('button', { name: 'List models' }).click()
    await form.getByTestId('model-list-hint').filter({ hasText: 'The server offers 3 models' }).waitFor()
    expect(await offered(page)).toEqual(llm.models)
    expect(llm.requests.some((r) => r.path === '/v1/models')).toBe(true)
    await model.fill('mistral-small')
    await shootThemes(page, 'shell-settings-model-list')

    // Another address drops the list; Test connection at the right one brings it back.
    await form.getByLabel(/Base URL/).fill('http://127.0.0.1:9/v1')
    await expect.poll(() => offered(page)).toEqual([])
    await form.getByRole('button', { name: 'List models' }).click()
    await form.getByTestId('model-list-error').filter({ hasText: 'Nothing answered' }).waitFor()
    await form.getByLabel(/Base URL/).fill(llm.baseUrl)
    await form.getByRole('button', { name: 'Test connection' }).click()
    await form.getByTestId('test-result').filter({ hasText: 'Connected to mistral-small' }).waitFor()
    await expect.poll(() => offered(page)).toEqual(llm.models)

    // A name the server does not list still counts.
    await model.fill('my-own-finetune')
    await form.getByRole('button', { name: 'Save' }).click()
    await form.getByTestId('saved').waitFor()
    const saved = await callApi(host, 'settings.getProvider', {})
    expect(saved.value.settings).toMatchObject({ provider: 'openai-compatible', model: 'my-own-finetune' })
  })
})
