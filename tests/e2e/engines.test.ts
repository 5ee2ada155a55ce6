import { mkdirSync, readFileSync, realpathSync, symlinkSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SCREENSHOTS, shootThemes } from '../helpers/browser'
import { makeTempDir } from '../helpers/tempDir'
import { startAppSession, type AppSession } from '../helpers/appSession'

// The engine chooser in Chromium against the real web host: the real Claude Code and Codex CLIs (devDependencies)
// found on the host's PATH, or a PATH without them. The host is started without npm so its PATH is exactly the
// test's (npm always puts node_modules/.bin first).
const BIN = resolve(__dirname, '../../node_modules/.bin')

/** Brings the Engine section to the top of its scrolling page, its heading in full. */
const scrollTo = (page: Page, selector: string) =>
  page
    .locator(selector)
    .first()
    .evaluate((el) => {
      el.scrollIntoView({ block: 'start' })
      let box = el.parentElement
      while (box && box.scrollHeight <= box.clientHeight) box = box.parentElement
      box?.scrollBy(0, -16)
    })

const readConfig = (dir: string): Record<string, unknown> => {
  try {
    return JSON.parse(readFileSync(join(dir, '.ralph/config.json'), 'utf8')) as Record<string, unknown>
  } catch {
    return {} // not written yet: the poll asks again
  }
}

describe('the engine chooser with Claude Code and Codex installed', { timeout: 180_000 }, () => {
  let session: AppSession
  beforeAll(async () => {
    session = await startAppSession(
      'engine-app',
      { 'index.html': '<h1>hi</h1>\n' },
      { PATH: `${BIN}:/usr/bin:/bin` },
      'node',
    )
  })
  afterAll(() => session?.close())

  it('Settings shows each CLI’s version, and Check again looks again', async () => {
    const { page, host } = session
    await page.goto(`${host.origin}/#/settings`)
    const installs = page.getByRole('list', { name: 'Engines on this machine' })
    await installs.getByTestId('engine-install-claude-code').getByText('2.1.328', { exact: true }).waitFor()
    await installs.getByTestId('engine-install-codex').getByText('0.169.0', { exact: true }).waitFor()
    const group = page.getByRole('radiogroup', { name: 'Engine' })
    await expect.poll(() => group.getByRole('radio', { name: 'Built-in' }).isChecked()).toBe(true)
    expect(await group.getByRole('radio', { name: 'Claude Code' }).isEnabled()).toBe(true)
    expect(await group.getByRole('radio', { name: 'Codex' }).isEnabled()).toBe(true)
    await page.getByRole('button', { name: 'Check again' }).click()
    await expect
      .poll(() => page.getByRole('button', { name: 'Check again' }).getAttribute('aria-busy'))
      .toBe(null)
    await installs.getByText('2.1.328', { exact: true }).waitFor()
    await scrollTo(page, '#engine-heading')
    await shootThemes(page, 'engui-settings')
  })

  it('the header’s Engine dialog writes Claude Code to .ralph/config.json; the chip and status bar say it, after a reload too', async () => {
    const { page, host, projectId, dir } = session
    await page.goto(`${host.origin}/#/project/${projectId}`)
    const status = page.getByTestId('status-provider')
    await expect.poll(() => status.textContent()).toBe('openai-compatible · fake-model')
    await page.getByRole('button', { name: 'Engine: Built-in' }).click()
    const dialog = page.getByRole('dialog', { name: 'Engine' })
    const group = dialog.getByRole('radiogroup', { name: 'Engine' })
    await dialog.getByText('2.1.328').waitFor()
    await shootThemes(page, 'engui-dialog')

    await group.getByRole('radio', { name: 'Claude Code' }).check()
    await dialog.getByLabel('Engine model').fill('sonnet')
    await dialog.getByRole('button', { name: 'Save engine' }).click()
    await dialog.getByText('Saved: this project’s next tasks run with Claude Code.').waitFor()
    await expect.poll(() => readConfig(dir)).toMatchObject({ engine: 'claude-code', engineModel: 'sonnet' })
    await shootThemes(page, 'engui-dialog-saved')
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'detached' })
    await page.getByRole('button', { name: 'Engine: Claude Code 2.1.328' }).waitFor()
    await expect.poll(() => status.textContent()).toBe('Claude Code · sonnet')
    await shootThemes(page, 'engui-header')

    await page.reload()
    await page.getByRole('button', { name: 'Engine: Claude Code 2.1.328' }).waitFor()
    await expect.poll(() => status.textContent()).toBe('Claude Code · sonnet')
    // A narrow window: the chip moves to a line of its own, whole.
    await page.setViewportSize({ width: 1100, height: 760 })
    const chipBox = await page.getByTestId('engine-chip').boundingBox()
    const nameBox = await page.getByTestId('project-name').boundingBox()
    expect(chipBox!.x + chipBox!.width).toBeLessThanOrEqual(1100)
    expect(await page.getByTestId('engine-chip').evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(
      true,
    )
    expect(nameBox!.width).toBeGreaterThan(50)
    await shootThemes(page, 'engui-header-narrow')
    await page.setViewportSize({ width: 1280, height: 820 })
    await page.getByRole('button', { name: 'Engine: Claude Code 2.1.328' }).click()
    await expect.poll(() => dialog.getByRole('radio', { name: 'Claude Code' }).isChecked()).toBe(true)
    expect(await dialog.getByLabel('Engine model').inputValue()).toBe('sonnet')
    await page.keyboard.press('Escape')

    // A change made elsewhere (the CLI, another window) reaches this page through the core's event.
    const set = await session.call('engines.setForProject', { projectId, engine: 'codex', engineModel: null })
    expect(set.ok).toBe(true)
    const chip = page.getByTestId('engine-chip')
    await expect.poll(() => chip.textContent()).toBe('Engine: Codex 0.169.0')
    await expect.poll(() => status.textContent()).toBe('Codex · its default model')
    // Back to the built-in loop: the status bar names the provider again.
    await session.call('engines.setForProject', { projectId, engine: 'built-in' })
    await expect.poll(() => chip.textContent()).toBe('Engine: Built-in')
    await expect.poll(() => status.textContent()).toBe('openai-compatible · fake-model')
  })
})

describe('the engine chooser without the CLIs', { timeout: 180_000 }, () => {
  let session: AppSession
  let cleanupOdd: (() => void) | null = null
  beforeAll(async () => {
    session = await startAppSession('no-engines', {}, { PATH: '/usr/bin:/bin' }, 'node')
  })
  afterAll(async () => {
    await session?.close()
    cleanupOdd?.()
  })

  it('Settings says Not installed with the install commands; the radios are disabled with the reason', async () => {
    const { page, host } = session
    await page.goto(`${host.origin}/#/settings`)
    const claude = page.getByTestId('engine-install-claude-code')
    const codex = page.getByTestId('engine-install-codex')
    await claude.getByText('Not installed', { exact: true }).waitFor()
    await codex.getByText('Not installed', { exact: true }).waitFor()
    await claude.locator('code', { hasText: 'npm install -g @anthropic-ai/claude-code' }).waitFor()
    await codex.locator('code', { hasText: 'npm install -g @openai/codex' }).waitFor()
    const group = page.getByRole('radiogroup', { name: 'Engine' })
    const claudeRadio = group.getByRole('radio', { name: 'Claude Code' })
    await expect.poll(() => claudeRadio.isDisabled()).toBe(true)
    expect(await group.getByRole('radio', { name: 'Codex' }).isDisabled()).toBe(true)
    expect(await group.getByRole('radio', { name: 'Built-in' }).isChecked()).toBe(true)
    await scrollTo(page, '#engine-heading')
    await shootThemes(page, 'engui-settings-missing')
    await group.getByText('Claude Code', { exact: true }).hover()
    await page.getByRole('tooltip').getByText('Claude Code is not installed on this machine.').waitFor()
    await shootThemes(page, 'engui-settings-missing-reason')
  })

  it('the header’s dialog offers only Built-in', async () => {
    const { page, host, projectId } = session
    await page.goto(`${host.origin}/#/project/${projectId}`)
    await page.getByRole('button', { name: 'Engine: Built-in' }).click()
    const dialog = page.getByRole('dialog', { name: 'Engine' })
    const codex = dialog.getByRole('radio', { name: 'Codex' })
    await expect.poll(() => codex.isDisabled()).toBe(true)
    expect(await dialog.getByRole('radio', { name: 'Claude Code' }).isDisabled()).toBe(true)
    await dialog.getByText('Not installed').first().waitFor()
    await dialog.getByRole('link', { name: 'Settings → Engine' }).waitFor()
    await shootThemes(page, 'engui-dialog-missing')
  })

  it('Locate… checks the real Claude Code placed in an unusual folder; Settings and the chooser use it', async () => {
    const { page, host } = session
    const odd = makeTempDir('ralph-odd-tools-')
    cleanupOdd = odd.cleanup
    const program = join(odd.path, 'agents here', 'claude')
    mkdirSync(dirname(program), { recursive: true })
    symlinkSync(realpathSync(join(BIN, 'claude')), program)
    await page.goto(`${host.origin}/#/settings`)
    const claude = page.getByTestId('engine-install-claude-code')
    await claude.getByText('Not installed', { exact: true }).waitFor()
    await claude.getByText(/^Looked in \d+ folders$/).click()
    const folders = claude.getByRole('list', { name: 'Folders searched for Claude Code' })
    await folders.getByText('/usr/bin', { exact: true }).waitFor()
    await folders.getByText('/usr/local/bin', { exact: true }).waitFor()
    await claude.getByRole('button', { name: 'Locate…' }).click()
    const field = claude.getByLabel('Path of the Claude Code program')
    await field.fill(join(odd.path, 'agents here'))
    await claude.getByRole('button', { name: 'Check and use' }).click()
    await claude
      .getByRole('alert')
      .getByText(/is a folder: give the program inside it/)
      .waitFor()
    await scrollTo(page, '#engine-heading')
    await shootThemes(page, 'engui-locate-refused')

    await field.fill(program)
    await claude.getByRole('button', { name: 'Check and use' }).click()
    await claude.getByText('2.1.328', { exact: true }).waitFor()
    await claude.getByText(program, { exact: true }).waitFor()
    const group = page.getByRole('radiogroup', { name: 'Engine' })
    await expect.poll(() => group.getByRole('radio', { name: 'Claude Code' }).isEnabled()).toBe(true)
    expect(await group.getByRole('radio', { name: 'Codex' }).isDisabled()).toBe(true)
    await scrollTo(page, '#engine-heading')
    await shootThemes(page, 'engui-locate-done')
    // The host keeps it: a reload (a fresh lookup) still finds it there.
    await page.reload()
    await claude.getByText('2.1.328', { exact: true }).waitFor()
    await page.setViewportSize({ width: 1024, height: 700 })
    await scrollTo(page, '#engine-heading')
    await page.screenshot({ path: join(SCREENSHOTS, 'engui-locate-1024.png') })
    await page.setViewportSize({ width: 1280, height: 820 })
    // Forget: PATH is searched again, and it is not there.
    await claude.getByRole('button', { name: 'Forget' }).click()
    await claude.getByText('Not installed', { exact: true }).waitFor()
  })
})
