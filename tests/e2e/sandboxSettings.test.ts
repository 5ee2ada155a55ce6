import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchChromium, SCREENSHOTS } from '../helpers/browser'
import { callApi, startWebHost, type WebHost } from '../helpers/webHost'
import { makeTempDir } from '../helpers/tempDir'

/** Waits until an alert dialog's opening animation is over, for a steady picture. */
const settled = (page: Page) =>
  page
    .getByRole('alertdialog')
    .evaluate((el) =>
      Promise.all(el.getAnimations({ subtree: true }).map((a: { finished: Promise<unknown> }) => a.finished)),
    )

// Real `npm run web`, real Chromium, real folders: the home-like question and the per-project .env switch.
describe(
  'sandbox in the browser: a home-like folder asks first; Settings switches .env per project',
  { timeout: 120_000 },
  () => {
    let home: ReturnType<typeof makeTempDir>
    let work: ReturnType<typeof makeTempDir>
    let host: WebHost
    let browser: Browser
    let page: Page

    beforeAll(async () => {
      home = makeTempDir('ralph-home-')
      work = makeTempDir('ralph-work-')
      host = await startWebHost({ RALPH_HOME: home.path })
      browser = await launchChromium()
      page = await browser.newPage({ viewport: { width: 1200, height: 760 } })
    })

    afterAll(async () => {
      await browser?.close()
      await host?.stop()
      home?.cleanup()
      work?.cleanup()
    })

    it('refuses / with the reason, asks before opening a home-like folder, and opens it after "Open anyway"', async () => {
      const me = join(work.path, 'me')
      mkdirSync(join(me, '.ssh'), { recursive: true })
      mkdirSync(join(me, 'Documents'))
      writeFileSync(join(me, '.bashrc'), '')
      const root = await callApi(host, 'projects.open', { path: '/' })
      expect(root.ok).toBe(false)
      expect(root.error?.message).toContain('it is the root of the file system')

      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme })
        await page.goto(`${host.url}#/projects`)
        await page.getByTestId('connection').filter({ hasText: 'Connected' }).waitFor()
        await page.fill('#project-path', me)
        await page.click('button[type=submit]')
        const dialog = page.getByRole('alertdialog', { name: 'Open a folder that looks like a home folder?' })
        await dialog.waitFor()
        await expect.poll(() => dialog.textContent()).toContain(`${me} has .ssh, .bashrc, Documents`)
        await settled(page)
        await page.screenshot({ path: join(SCREENSHOTS, `sandbox-home-like-confirm-${scheme}.png`) })
        if (scheme === 'light') {
          await page.getByRole('button', { name: 'Cancel' }).click()
          await dialog.waitFor({ state: 'detached' })
          expect(existsSync(join(me, '.ralph'))).toBe(false)
        }
      }
      await page.getByRole('button', { name: 'Open anyway' }).click()
      await expect.poll(() => page.url()).toMatch(/#\/project\/\d+/)
      expect(existsSync(join(me, '.ralph'))).toBe(true)
      await page.emulateMedia({ colorScheme: 'light' })
    })

    it('shows the project in Settings → Sandbox and switches whether its commands may read .env files', async () => {
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme })
        await page.goto(`${host.url}#/settings`)
        const toggle = page.getByRole('switch', { name: 'Commands may read .env files' })
        await toggle.waitFor()
        await expect.poll(() => toggle.isEnabled()).toBe(true)
        if (scheme === 'light') {
          expect(await toggle.isChecked()).toBe(false)
          // The switch shows the saved setting, so it turns on once the core has written it: a click, then a wait
          // (check() wants the state changed at once, which a loaded machine does not give it).
          await toggle.click()
          await expect.poll(() => toggle.isChecked()).toBe(true)
        }
        await page
          .getByRole('list', { name: 'Sandbox settings per project' })
          .evaluate((el) => el.scrollIntoView({ block: 'end' }))
        await page.screenshot({ path: join(SCREENSHOTS, `sandbox-settings-env-files-${scheme}.png`) })
      }
      // The switch wrote the project's own settings file.
      const config = JSON.parse(readFileSync(join(work.path, 'me', '.ralph', 'config.json'), 'utf8')) as {
        sandbox?: { allowEnvFiles?: boolean }
      }
      expect(config.sandbox?.allowEnvFiles).toBe(true)
      await page.emulateMedia({ colorScheme: 'light' })
    })
  },
)
