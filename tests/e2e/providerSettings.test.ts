import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { join } from 'node:path'
import { SCREENSHOTS, shootThemes } from '../helpers/browser'
import { startAppSession, type AppSession } from '../helpers/appSession'
import { startFakeLlmServer, type FakeLlmServer } from '../fixtures/fakeLlmServer'

// The provider form in Chromium against the real web host: the first run (no model configured, a local server
// found), the local-model and fast-model fields, one model on offer, and values the environment overrides.
describe('provider settings in Chromium', { timeout: 180_000 }, () => {
  let session: AppSession
  /** A second OpenAI-compatible server standing in for a local LM Studio the host finds. */
  let local: FakeLlmServer
  beforeAll(async () => {
    local = await startFakeLlmServer()
    local.models = ['qwen-local-7b']
    // Without RALPH_PROVIDER and friends, so the form is the user's to edit (the environment would lock it).
    session = await startAppSession(
      'settings',
      {},
      {
        RALPH_PROVIDER: '',
        RALPH_MODEL: '',
        RALPH_BASE_URL: '',
        RALPH_LOCAL_SERVERS: `LM Studio=${local.baseUrl}`,
      },
    )
  })
  afterAll(async () => {
    await session?.close()
    await local?.close()
  })

  it('first run: Projects asks for a model first, the composer will not send without one, and the local server found is one click', async () => {
    const { page, host, projectId } = session
    await page.goto(`${host.origin}/#/projects`)
    const setup = page.getByRole('region', { name: 'Choose a model first' })
    const form = setup.getByRole('form', { name: 'LLM provider' })
    await setup
      .getByTestId('local-offer')
      .getByText(/Found LM Studio \(1 model\)/)
      .waitFor()
    await expect.poll(() => form.getByLabel('Model', { exact: true }).inputValue()).toBe('qwen-local-7b')
    expect(await form.getByLabel(/^Base URL/).inputValue()).toBe(local.baseUrl)
    await shootThemes(page, 'firstrun-projects')
    await page.setViewportSize({ width: 1024, height: 700 })
    await page.screenshot({ path: join(SCREENSHOTS, 'firstrun-projects-1024.png') })
    await page.setViewportSize({ width: 1280, height: 820 })

    await page.goto(`${host.origin}/#/project/${projectId}`)
    const note = page.getByTestId('choose-model-first')
    await note.getByText('Choose a model first.').waitFor()
    await page.getByRole('textbox', { name: 'Message' }).fill('Add a contact page')
    const send = page.getByRole('button', { name: 'Send' })
    expect(await send.getAttribute('aria-disabled')).toBe('true')
    await send.hover()
    await page.getByRole('tooltip').getByText('Choose a model first: Settings → Model provider.').waitFor()
    // Ctrl+Enter sends nothing either.
    await page.getByRole('textbox', { name: 'Message' }).press('Control+Enter')
    await shootThemes(page, 'firstrun-composer')
    expect((await session.call('chat.history', { projectId })).value).toMatchObject({ messages: [] })

    await note.getByRole('button', { name: 'Use LM Studio · qwen-local-7b' }).click()
    await note.waitFor({ state: 'detached' })
    await expect.poll(() => send.getAttribute('aria-disabled')).toBe(null)
    expect(await send.isEnabled()).toBe(true)
    expect(await page.getByRole('textbox', { name: 'Message' }).inputValue()).toBe('Add a contact page')
    await expect
      .poll(() => page.getByTestId('status-provider').textContent())
      .toBe('openai-compatible · qwen-local-7b')
    await page.goto(`${host.origin}/#/projects`)
    await page.getByRole('heading', { name: 'Projects' }).waitFor()
    expect(await page.getByRole('region', { name: 'Choose a model first' }).count()).toBe(0)
  })

  it('shows Max context for Ollama and the fast model fields', async () => {
    const { page, host } = session
    await page.goto(`${host.origin}/#/settings`)
    const form = page.getByRole('form', { name: 'LLM provider' })
    await form.getByLabel('Provider').selectOption('ollama')
    const max = form.getByLabel(/Max context for local models/)
    await max.waitFor()
    await max.fill('16384')
    await form
      .getByLabel(/^Fast model/)
      .first()
      .fill('qwen3:4b')
    expect(await max.inputValue()).toBe('16384')
    await shootThemes(page, 'settings-provider-ollama')
  })

  it('a server offering one model fills the empty Model field', async () => {
    const { page, host, llm } = session
    llm.models = ['the-only-model']
    // A fresh page: the form shows what is stored, not the last test's unsaved edits.
    await page.goto(`${host.origin}/#/settings`)
    await page.reload()
    const form = page.getByRole('form', { name: 'LLM provider' })
    await expect.poll(() => form.getByLabel('Model', { exact: true }).inputValue()).toBe('qwen-local-7b')
    await form.getByLabel(/^Base URL/).fill(llm.baseUrl)
    await form.getByLabel('Model', { exact: true }).fill('')
    await form.getByRole('button', { name: 'List models' }).click()
    await expect.poll(() => form.getByLabel('Model', { exact: true }).inputValue()).toBe('the-only-model')
    await form.getByText('The server offers one model, the-only-model: it is filled in above.').waitFor()
    await shootThemes(page, 'firstrun-one-model')
  })
})

describe('settings the environment overrides, in Chromium', { timeout: 180_000 }, () => {
  let session: AppSession
  beforeAll(async () => {
    session = await startAppSession('env-settings', {}, { RALPH_API_KEY: 'sk-from-the-env-9z9z' })
  })
  afterAll(() => session?.close())

  it('each overridden field shows what calls use and the variable it comes from, over the stored value', async () => {
    const { page, host, llm } = session
    const stored = await session.call('settings.setProvider', {
      settings: { provider: 'openai-compatible', model: 'gpt-4o-mini', baseUrl: 'http://127.0.0.1:9/v1' },
      apiKey: 'sk-stored-key-a1b2',
    })
    expect(stored.ok).toBe(true)
    // Loaded after the save: the page may have opened before its event socket could hear of it.
    await page.goto(`${host.origin}/#/settings`)
    await page.reload()
    const form = page.getByRole('form', { name: 'LLM provider' })
    const model = form.getByLabel('Model', { exact: true })
    await expect.poll(() => model.inputValue()).toBe('gpt-4o-mini')
    await form
      .getByTestId('env-override-model')
      .getByText(
        'Calls use “fake-model” from RALPH_MODEL in the environment — it overrides the stored “gpt-4o-mini”.',
        { exact: false },
      )
      .waitFor()
    await form
      .getByTestId('env-override-provider')
      .getByText(
        'Calls use “openai-compatible” from RALPH_PROVIDER in the environment, the same as stored.',
        {
          exact: false,
        },
      )
      .waitFor()
    await form
      .getByTestId('env-override-baseUrl')
      .getByText(
        `Calls use “${llm.baseUrl}” from RALPH_BASE_URL in the environment — it overrides the stored “http://127.0.0.1:9/v1”.`,
        { exact: false },
      )
      .waitFor()
    await form
      .getByTestId('env-override-apiKey')
      .getByText(
        'Calls use the key …9z9z from RALPH_API_KEY in the environment — it overrides the stored key …a1b2.',
        {
          exact: false,
        },
      )
      .waitFor()
    expect(await form.getByLabel(/API key/).getAttribute('placeholder')).toBe(
      'Stored …a1b2 — type to replace',
    )
    await shootThemes(page, 'settings-env-overrides')
    await page.setViewportSize({ width: 1024, height: 700 })
    await page.screenshot({ path: join(SCREENSHOTS, 'settings-env-overrides-1024.png') })
  })
})
