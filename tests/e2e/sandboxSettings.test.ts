import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer, type Socket } from 'node:net'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchChromium, SCREENSHOTS, shootThemes } from '../helpers/browser'
import { callApi, startWebHost, type WebHost } from '../helpers/webHost'
import { makeTempDir } from '../helpers/tempDir'

/** Waits until an alert dialog's opening animation is over, for a steady picture. */
const settled = (page: Page) =>
  page
    .getByRole('alertdialog')
    .evaluate((el) =>
      Promise.all(el.getAnimations({ subtree: true }).map((a: { finished: Promise<unknown> }) => a.finished)),
    )

/** A port nothing listens on: one a server had, closed again. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

// Real `npm run web`, real Chromium, real folders: the home-like question, the per-project .env switch, and
// Settings → Workers (#39) saved into the project's config.json and checked against a Docker host nobody serves.
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

    it('Settings → Workers: a bad value is said at its field; saved, only "workers" changes; Test says the unreachable host in one sentence', async () => {
      const file = join(work.path, 'me', '.ralph', 'config.json')
      const before = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>
      const port = await closedPort()
      const secret = await callApi(host, 'mcp.setSecret', {
        name: 'GITHUB_TOKEN',
        value: 'ghp_e2e0123456789',
      })
      expect(secret.ok).toBe(true)
      await page.setViewportSize({ width: 1200, height: 760 })
      await page.goto(`${host.url}#/settings`)
      const form = page.getByRole('form', { name: 'Workers' })
      await form.waitFor()
      await form.getByRole('radio', { name: 'Docker' }).check()
      await page
        .getByRole('heading', { name: 'Workers' })
        .evaluate((el) => el.scrollIntoView({ block: 'start' }))
      await page.screenshot({ path: join(SCREENSHOTS, 'settings-workers-top-light.png') })
      await form.getByRole('textbox', { name: 'Docker host' }).fill(`tcp://127.0.0.1:${port}`)
      const memory = form.getByRole('spinbutton', { name: 'Memory (MB)' })
      await memory.fill('10')
      await form.getByRole('button', { name: 'Save workers' }).click()
      await expect.poll(() => memory.getAttribute('aria-invalid')).toBe('true')
      await expect
        .poll(() => form.getByRole('alert').first().textContent())
        .toMatch(/Too small: expected number to be >=64/)
      expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(before)
      await memory.fill('2048')
      // The vault's secret is offered, not ticked; ticked with the keyboard, it is one that leaves this machine.
      const token = form
        .getByRole('group', { name: 'Secrets for remote workers' })
        .getByRole('checkbox', { name: 'GITHUB_TOKEN' })
      expect(await token.isChecked()).toBe(false)
      await token.focus()
      await page.keyboard.press('Space')
      await expect.poll(() => token.isChecked()).toBe(true)
      await form.getByRole('button', { name: 'Save workers' }).click()
      await form.getByText('Saved to .ralph/config.json.').waitFor()
      const after = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>
      const { workers, ...rest } = after
      expect(rest).toEqual(before)
      expect(workers).toMatchObject({
        backend: 'docker',
        dockerHost: `tcp://127.0.0.1:${port}`,
        memoryMb: 2048,
        remoteSecrets: ['GITHUB_TOKEN'],
      })

      await form.getByRole('button', { name: 'Test workers' }).click()
      const status = form.getByRole('status', { name: 'Workers check' })
      await expect
        .poll(() => status.textContent(), { timeout: 30_000 })
        .toMatch(
          new RegExp(
            `^The Docker engine at http://127\\.0\\.0\\.1:${port} \\("dockerHost" in Settings → Workers\\) cannot be reached: nothing listens there\\.$`,
          ),
        )
      // What to do is said apart from the one sentence.
      await form.getByText(/^To use it, start Docker/).waitFor()
      await form.evaluate((el) => el.scrollIntoView({ block: 'end' }))
      await shootThemes(page, 'settings-workers-unreachable')

      // An engine that takes the connection and never answers: the check shows its progress until stopped.
      const sockets: Socket[] = []
      const silent = createServer((socket) => sockets.push(socket))
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
      try {
        const silentPort = (silent.address() as { port: number }).port
        await form.getByRole('textbox', { name: 'Docker host' }).fill(`tcp://127.0.0.1:${silentPort}`)
        await form.getByRole('button', { name: 'Test workers' }).click()
        await expect.poll(() => status.textContent()).toContain('Checking: reaching the backend')
        await expect.poll(() => sockets.length, { timeout: 15_000 }).toBeGreaterThan(0)
        await form.evaluate((el) => el.scrollIntoView({ block: 'end' }))
        await page.screenshot({ path: join(SCREENSHOTS, 'settings-workers-checking-light.png') })
        await status.getByRole('button', { name: 'Stop test' }).click()
        await expect.poll(() => status.textContent(), { timeout: 15_000 }).toBe('The check was stopped.')
      } finally {
        for (const socket of sockets) socket.destroy()
        await new Promise<void>((resolve) => silent.close(() => resolve()))
      }
      // Testing saved nothing: the file still holds the host saved above.
      expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(after)
      await page.setViewportSize({ width: 1024, height: 700 })
      await form.getByRole('radio', { name: 'Kubernetes' }).check()
      await form.getByText('Experimental', { exact: true }).waitFor()
      await form.evaluate((el) => el.scrollIntoView({ block: 'start' }))
      await shootThemes(page, 'settings-workers-1024')
    })
  },
)
