import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { shootThemes } from '../helpers/browser'
import { startAppSession, type AppSession } from '../helpers/appSession'

// The provider form's local-model and fast-model fields in Chromium against the real web host.
describe('provider settings in Chromium', { timeout: 120_000 }, () => {
  let session: AppSession
  beforeAll(async () => {
    // Without RALPH_PROVIDER and friends, so the form is the user's to edit (the environment would lock it).
    session = await startAppSession(
      'settings',
      {},
      { RALPH_PROVIDER: '', RALPH_MODEL: '', RALPH_BASE_URL: '' },
    )
  })
  afterAll(() => session?.close())

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
})
