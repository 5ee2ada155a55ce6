import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchChromium, SCREENSHOTS, shootThemes } from '../helpers/browser'
import { startFakeLlmServer, type FakeLlmServer } from '../fixtures/fakeLlmServer'
import { makeTempDir } from '../helpers/tempDir'
import { callApi, startWebHost, type WebHost } from '../helpers/webHost'

/** A page without the app (no data-theme to wait for): the scheme is emulated, then the shot taken. */
async function shootPlain(page: Page, name: string): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme })
    await page.screenshot({ path: join(SCREENSHOTS, `${name}-${scheme}.png`) })
  }
  await page.emulateMedia({ colorScheme: 'light' })
}

// A web host stopped and started again on the same port has a new token: the old tab says so and where the new
// address is while it keeps the conversation and the typed draft on screen (read-only), a reload reads a page that
// says the same (still 401), and the new address opens the project the tab was on, with the draft.
describe('a restarted web host in Chromium', { timeout: 180_000 }, () => {
  let home: ReturnType<typeof makeTempDir>
  let work: ReturnType<typeof makeTempDir> | undefined
  let llm: FakeLlmServer
  let first: WebHost | undefined
  let second: WebHost | undefined
  let browser: Browser
  let page: Page
  let env: NodeJS.ProcessEnv
  let projectId: number
  const DRAFT = 'Add a contact page with a form'

  beforeAll(async () => {
    home = makeTempDir('ralph-home-')
    llm = await startFakeLlmServer()
    env = {
      RALPH_HOME: home.path,
      RALPH_PROVIDER: 'openai-compatible',
      RALPH_MODEL: 'fake-model',
      RALPH_BASE_URL: llm.baseUrl,
    }
    first = await startWebHost(env)
    work = makeTempDir('ralph-work-')
    const dir = join(work.path, 'restart-project')
    mkdirSync(dir)
    const opened = await callApi(first, 'projects.open', { path: dir })
    if (!opened.ok) throw new Error(`projects.open failed: ${JSON.stringify(opened)}`)
    projectId = opened.value.id as number
    llm.enqueue({ kind: 'text', text: 'The page is a single index.html.' })
    await callApi(first, 'chat.send', { projectId, mode: 'ask', text: 'What is in this project?' })
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1280, height: 760 } })
  })

  afterAll(async () => {
    await browser?.close()
    await first?.stop()
    await second?.stop()
    await llm?.close()
    home?.cleanup()
    work?.cleanup()
  })

  it('says in the old tab that the host restarted and where its new address is, the conversation and draft kept', async () => {
    await page.goto(first!.url)
    const connection = page.getByTestId('connection')
    await connection.filter({ hasText: 'Connected' }).waitFor()
    await expect.poll(() => page.getByTestId('host-lost').count()).toBe(0)
    await page.goto(`${first!.origin}/#/project/${projectId}`)
    const log = page.getByRole('log', { name: 'Conversation' })
    await log.getByText('The page is a single index.html.').waitFor()
    await page.getByRole('textbox', { name: 'Message' }).fill(DRAFT)

    const port = first!.port
    await first!.stop()
    second = await startWebHost(env, port)
    expect(second.token).not.toBe(first!.token)

    const banner = page.getByTestId('host-lost')
    await banner.filter({ hasText: 'The web host restarted.' }).waitFor()
    expect(await banner.textContent()).toContain(
      'Open the new address (with its new token) that the host printed in the terminal where it was started',
    )
    expect(await banner.getAttribute('role')).toBe('alert')
    await expect.poll(() => connection.textContent()).toBe('Host restarted')
    // The page comes back into view (a refetch would fail now): what it showed stays, read-only.
    await page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
    // Nothing may replace it: a check that something does NOT happen needs a grace period, not a condition.
    await page.waitForTimeout(500)
    await log.getByText('The page is a single index.html.').waitFor()
    expect(await page.getByText(/Cannot reach the web host/).count()).toBe(0)
    expect(await page.getByRole('textbox', { name: 'Message' }).inputValue()).toBe(DRAFT)
    // The status bar's item explains itself on hover.
    await connection.hover()
    await page.getByRole('tooltip').filter({ hasText: 'access ended with the old host' }).waitFor()
    // Read-only: Send says why it cannot.
    const send = page.getByRole('button', { name: 'Send' })
    expect(await send.getAttribute('aria-disabled')).toBe('true')
    // Focused from the keyboard, it says why (the pointer is on the status bar's tooltip).
    await send.focus()
    await page
      .getByRole('tooltip')
      .filter({ hasText: 'The web host restarted: open the new address' })
      .waitFor()
    await shootThemes(page, 'shell-host-restarted')
    await page.setViewportSize({ width: 1024, height: 700 })
    await page.screenshot({ path: join(SCREENSHOTS, 'shell-host-restarted-1024.png') })
    await page.setViewportSize({ width: 1280, height: 760 })
  })

  it('reloaded, the tab reads a page that says the same, still with status 401', async () => {
    const response = await page.reload()
    expect(response?.status()).toBe(401)
    expect(response?.headers()['content-type']).toMatch(/^text\/html/)
    await page.getByRole('heading', { name: "This page needs the web host's current address" }).waitFor()
    expect(await page.locator('body').textContent()).toContain(
      'Open the new address that the host printed in the terminal where it was started',
    )
    await shootPlain(page, 'shell-unauthorized-page')
  })

  it('the new address works again, back on the project with the draft', async () => {
    await page.goto(second!.url)
    await expect.poll(() => page.url()).toBe(`${second!.origin}/#/project/${projectId}`)
    await page.getByTestId('connection').filter({ hasText: 'Connected' }).waitFor()
    expect(await page.getByTestId('host-lost').count()).toBe(0)
    await page
      .getByRole('log', { name: 'Conversation' })
      .getByText('The page is a single index.html.')
      .waitFor()
    expect(await page.getByRole('textbox', { name: 'Message' }).inputValue()).toBe(DRAFT)
    await expect.poll(() => page.getByRole('button', { name: 'Send' }).isEnabled()).toBe(true)
    await shootThemes(page, 'shell-host-returned')
    // Only once: the project list is where a later bare address lands.
    await page.goto(`${second!.origin}/`)
    await page.getByRole('heading', { name: 'Projects' }).waitFor()
    expect(page.url()).toBe(`${second!.origin}/`)
  })
})
