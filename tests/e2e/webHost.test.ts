import { mkdirSync, writeFileSync, existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import WebSocket from 'ws'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchChromium, SCREENSHOTS } from '../helpers/browser'
import { startFakeLlmServer, type FakeLlmServer } from '../fixtures/fakeLlmServer'
import { makeTempDir } from '../helpers/tempDir'
import { startWebHost, type WebHost } from '../helpers/webHost'

/** The project screen with its side panel and the chat's task card laid out (the log renders after measuring). */
const projectReady = async (page: Page, role: 'tablist' | 'tabpanel', name: string) => {
  await page.getByRole(role, { name }).waitFor()
  await page.getByRole('log', { name: 'Conversation' }).getByRole('article').first().waitFor()
}

/** Follows a link in the sidebar. */
const nav = (page: Page, name: 'Projects' | 'Settings') =>
  page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click()

// Real `npm run web`, real Debian Chromium, real HTTP to a fake LLM server.
describe('web host in Chromium', { timeout: 120_000 }, () => {
  let home: ReturnType<typeof makeTempDir>
  let work: ReturnType<typeof makeTempDir>
  let llm: FakeLlmServer
  let host: WebHost
  let browser: Browser
  let page: Page

  beforeAll(async () => {
    home = makeTempDir('ralph-home-')
    work = makeTempDir('ralph-work-')
    llm = await startFakeLlmServer()
    host = await startWebHost({ RALPH_HOME: home.path, RALPH_LOCAL_SERVERS: `FakeLlama=${llm.baseUrl}` })
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1200, height: 760 } })
  })

  afterAll(async () => {
    await browser?.close()
    await host?.stop()
    await llm?.close()
    home?.cleanup()
    work?.cleanup()
  })

  it('loads with the token, then drops it from the address bar', async () => {
    await page.goto(host.url)
    await expect.poll(() => page.url()).toBe(`${host.origin}/`)
    await page.getByText('No projects yet.').waitFor()
    await page.getByTestId('connection').filter({ hasText: 'Connected' }).waitFor()
    await page.screenshot({ path: join(SCREENSHOTS, 'web-01-empty-projects.png') })
  })

  it('shows a clear error for a path that does not exist, and for a file', async () => {
    await page.fill('#project-path', join(work.path, 'missing'))
    await page.click('button[type=submit]')
    const error = page.getByRole('alert')
    await expect
      .poll(() => error.textContent())
      .toContain(`No folder exists at ${join(work.path, 'missing')}`)
    await page.screenshot({ path: join(SCREENSHOTS, 'web-02-invalid-path.png') })

    const file = join(work.path, 'notes.txt')
    writeFileSync(file, 'hello')
    await page.fill('#project-path', file)
    await page.click('button[type=submit]')
    await expect.poll(() => error.textContent()).toContain('is a file, not a folder')
    expect(existsSync(join(work.path, '.ralph'))).toBe(false)
  })

  it('opens a project by path and shows its name, path and state', async () => {
    const dir = join(work.path, 'my-app')
    mkdirSync(dir)
    writeFileSync(join(dir, 'index.html'), '<h1>hi</h1>')
    await page.fill('#project-path', dir)
    await page.click('button[type=submit]')
    await page.getByTestId('project-name').filter({ hasText: 'my-app' }).waitFor()
    expect(await page.getByTestId('project-path').textContent()).toBe(dir)
    expect(await page.getByTestId('project-status').textContent()).toContain('Waiting for your first message')
    expect(readFileSync(join(dir, '.ralph', 'origin.md'), 'utf8')).toContain('Ralph Studio web host')
    await page.screenshot({ path: join(SCREENSHOTS, 'web-03-project.png') })

    await nav(page, 'Projects')
    await page.getByRole('list', { name: 'Recent projects' }).getByText('my-app', { exact: true }).waitFor()
  })

  it('updates the recent list live when another client opens a project (events over the WebSocket)', async () => {
    await nav(page, 'Projects')
    const other = join(work.path, 'opened-elsewhere')
    mkdirSync(other)
    const res = await fetch(`${host.origin}/api/call/projects.open`, {
      method: 'POST',
      headers: { 'x-ralph-token': host.token, 'content-type': 'application/json' },
      body: JSON.stringify({ path: other }),
    })
    expect(res.status).toBe(200)
    await page
      .getByRole('list', { name: 'Recent projects' })
      .getByText('opened-elsewhere', { exact: true })
      .waitFor({ timeout: 5000 })
  })

  it('offers the local model server, tests the connection, saves, and keeps it after a reload', async () => {
    await nav(page, 'Settings')
    await page.getByTestId('local-offer').waitFor()
    expect(await page.inputValue('#base-url')).toBe(llm.baseUrl)
    expect(await page.inputValue('#model')).toBe('fake-model')
    await page.screenshot({ path: join(SCREENSHOTS, 'web-04-local-offer.png') })

    // Switching provider drops the local server's address; switching back offers it again.
    await page.selectOption('#provider', 'openai')
    expect(await page.inputValue('#base-url')).toBe('')
    await page.selectOption('#provider', 'openai-compatible')
    expect(await page.inputValue('#base-url')).toBe(llm.baseUrl)

    await page.fill('#model', 'fake-model-large')
    await page.getByRole('button', { name: 'Test connection' }).click()
    await expect
      .poll(() => page.getByTestId('test-result').textContent())
      .toContain('Connected to fake-model-large')
    const chat = llm.requests.filter((r) => r.path === '/v1/chat/completions').at(-1)
    expect((chat?.body as { model: string }).model).toBe('fake-model-large')

    await page.click('button[type=submit]')
    await page.getByTestId('saved').waitFor()
    await page.reload()
    await page
      .getByTestId('status-provider')
      .filter({ hasText: 'openai-compatible · fake-model-large' })
      .waitFor()
    await expect.poll(() => page.inputValue('#model')).toBe('fake-model-large')
    expect(await page.inputValue('#provider')).toBe('openai-compatible')
    await page.screenshot({ path: join(SCREENSHOTS, 'web-05-settings-saved.png') })
  })

  it('reports a provider 401 in plain words and a malformed base URL without saving anything', async () => {
    await nav(page, 'Settings')
    llm.apiKey = 'sk-right'
    await page.fill('#api-key', 'sk-wrong-key')
    await page.getByRole('button', { name: 'Test connection' }).click()
    await expect
      .poll(() => page.getByTestId('test-result').textContent())
      .toContain('refused the API key (401)')
    llm.apiKey = null

    await page.fill('#base-url', 'not a url')
    await page.click('button[type=submit]')
    await expect
      .poll(() => page.getByTestId('save-error').textContent())
      .toContain('Base URL must be a full http')
    await page.screenshot({ path: join(SCREENSHOTS, 'web-06-settings-errors.png') })
    await page.reload()
    await expect.poll(() => page.inputValue('#base-url')).toBe(llm.baseUrl)
    // The key typed with the failed save was not stored either.
    expect(await page.getByTestId('key-status').count()).toBe(0)
  })

  it('runs a task from the project page and shows its progress live', async () => {
    llm.enqueue(
      {
        kind: 'json',
        value: {
          type: 'bugfix',
          title: 'Greeting',
          requirements: [{ marker: 'FIX', description: 'greet properly', count: null }],
          scope: { preserve: [], affectedFiles: ['index.html'] },
          clarification: null,
        },
      },
      {
        kind: 'tools',
        text: 'I will fix the heading.',
        calls: [
          {
            name: 'edit_file',
            arguments: { path: 'index.html', old_string: 'hi', new_string: 'Hello, world' },
          },
        ],
      },
      {
        kind: 'tools',
        calls: [{ name: 'mark_complete', arguments: { summary: 'The heading now says Hello, world.' } }],
      },
    )
    await nav(page, 'Projects')
    await page.getByRole('list', { name: 'Recent projects' }).getByText('my-app', { exact: true }).click()
    await page.getByRole('textbox', { name: 'Message' }).fill('the heading should greet the world')
    await page.getByRole('button', { name: 'Send' }).click()
    const card = page
      .getByRole('log', { name: 'Conversation' })
      .getByRole('article', { name: 'Task 1: Greeting' })
    await card.getByText('Complete', { exact: true }).waitFor({ timeout: 20_000 })
    const content = await card.textContent()
    expect(content).toContain('edit_file')
    expect(content).toContain('index.html')
    expect(content).toContain('Files changed: passed')
    expect(readFileSync(join(work.path, 'my-app', 'index.html'), 'utf8')).toBe('<h1>Hello, world</h1>')
    await page.getByTestId('project-status').filter({ hasText: 'Last task complete' }).waitFor()
    await page.screenshot({ path: join(SCREENSHOTS, 'web-07-task-run.png'), fullPage: true })
  })

  it('shows the side panel beside the project: tabs by keyboard, the tab in the address, resizable and collapsible', async () => {
    const tablist = page.getByRole('tablist', { name: 'Side panel' })
    await tablist.waitFor()
    const tab = (name: string) => tablist.getByRole('tab', { name, exact: true })
    const selected = (name: string) => expect.poll(() => tab(name).getAttribute('aria-selected')).toBe('true')
    await selected('Timeline')
    // The task run above left its snapshots on the timeline.
    await page
      .getByRole('tabpanel', { name: 'Timeline' })
      .getByRole('list', { name: 'Snapshots' })
      .getByRole('listitem', { name: /^task-1-pre/ })
      .waitFor()

    await tab('Timeline').focus()
    await page.keyboard.press('ArrowRight')
    await selected('Plan')
    await expect.poll(() => page.url()).toMatch(/#\/project\/\d+\?panel=plan$/)
    await page.keyboard.press('End')
    await selected('Queue')
    await page.getByRole('tabpanel', { name: 'Queue' }).getByText('The work queue is empty').waitFor()

    await page.reload()
    await page.getByRole('tabpanel', { name: 'Queue' }).waitFor()
    await selected('Queue')

    // The split resizes from the keyboard (the separator is focusable and takes arrow keys).
    const side = page.locator('[data-panel][id=project-side]')
    const before = (await side.boundingBox())!.width
    await page.getByRole('separator', { name: 'Resize the side panel' }).focus()
    for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowLeft')
    await expect.poll(async () => (await side.boundingBox())!.width).toBeGreaterThan(before + 20)

    // Collapse with the button, bring it back with Ctrl+B; the choice survives a reload.
    await page.getByRole('button', { name: 'Hide side panel' }).click()
    await expect.poll(() => tablist.count()).toBe(0)
    await page.reload()
    await page.getByRole('button', { name: 'Show side panel' }).waitFor()
    expect(await tablist.count()).toBe(0)
    await page.keyboard.press('Control+b')
    await tablist.waitFor()
    // It reopens at a usable width, not squeezed to its minimum.
    await expect.poll(async () => (await side.boundingBox())!.width).toBeGreaterThan(300)
    await page.getByRole('button', { name: 'Hide side panel' }).waitFor()
  })

  it('follows the OS theme and lets Settings pin Light or Dark, kept after a reload', async () => {
    const theme = () => page.locator('html').getAttribute('data-theme')
    const background = () => page.evaluate<string>('getComputedStyle(document.body).backgroundColor')
    await page.emulateMedia({ colorScheme: 'light' })
    await nav(page, 'Settings')
    const group = page.getByRole('radiogroup', { name: 'Theme' })
    expect(await group.getByRole('radio', { name: 'System' }).isChecked()).toBe(true)
    await expect.poll(theme).toBe('light')
    const light = await background()
    await page.emulateMedia({ colorScheme: 'dark' })
    await expect.poll(theme).toBe('dark')
    expect(await background()).not.toBe(light)

    await group.getByRole('radio', { name: 'Light' }).check()
    await expect.poll(theme).toBe('light')
    expect(await background()).toBe(light)
    await page.reload()
    await expect.poll(theme).toBe('light')
    expect(await page.getByRole('radio', { name: 'Light' }).isChecked()).toBe(true)
    await page.getByRole('radio', { name: 'System' }).check()
    await expect.poll(theme).toBe('dark')
  })

  it('takes screenshots of every screen in light and dark', async () => {
    const projectUrl = page.url().replace(/#.*$/, '')
    const projectId = /project\/(\d+)/.exec(
      (await page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: 'my-app' })
        .getAttribute('href'))!,
    )![1]
    const screens: [string, string, () => Promise<unknown>][] = [
      ['projects', '#/projects', () => page.getByRole('list', { name: 'Recent projects' }).waitFor()],
      ['project-timeline', `#/project/${projectId}`, () => projectReady(page, 'tablist', 'Side panel')],
      ['project-plan', `#/project/${projectId}?panel=plan`, () => projectReady(page, 'tabpanel', 'Plan')],
      ['settings', '#/settings', () => page.getByRole('radiogroup', { name: 'Theme' }).waitFor()],
    ]
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme })
      for (const [name, hash, ready] of screens) {
        await page.goto(projectUrl + hash)
        await ready()
        await page.getByTestId('connection').filter({ hasText: 'Connected' }).waitFor()
        await page.screenshot({ path: join(SCREENSHOTS, `screen-${name}-${scheme}.png`) })
      }
    }
    // A dialog and a tooltip, in dark.
    await page.goto(projectUrl + `#/project/${projectId}`)
    await page.getByRole('button', { name: 'Project actions' }).click()
    await page.getByRole('menuitem', { name: 'Remove from recent…' }).click()
    await page.getByRole('alertdialog').waitFor()
    // Let the dialog's opening animation finish before the picture.
    await page
      .getByRole('alertdialog')
      .evaluate((el) =>
        Promise.all(
          el.getAnimations({ subtree: true }).map((a: { finished: Promise<unknown> }) => a.finished),
        ),
      )
    await page.screenshot({ path: join(SCREENSHOTS, 'screen-confirm-remove-dark.png') })
    await page.getByRole('button', { name: 'Cancel' }).click()
    // Keyboard focus: the focus ring on a tab, and a tooltip on an icon button.
    await page.getByRole('tab', { name: 'Plan' }).focus()
    await page.keyboard.press('ArrowLeft')
    await page.getByRole('button', { name: 'Hide side panel' }).hover()
    await page.getByRole('tooltip').waitFor()
    await page.screenshot({ path: join(SCREENSHOTS, 'screen-focus-tooltip-dark.png') })
    await page.emulateMedia({ colorScheme: 'light' })
  })

  it('refuses every request without the token, or with a wrong one, with 401 and nothing else', async () => {
    const paths = ['/', '/index.html', '/assets/does-not-matter.js', '/#/settings']
    for (const path of paths) {
      const res = await fetch(host.origin + path)
      expect(res.status).toBe(401)
      expect(await res.text()).toBe('Unauthorized\n')
    }
    const wrong = await fetch(`${host.origin}/api/call/app.info`, {
      method: 'POST',
      headers: { 'x-ralph-token': 'x'.repeat(43) },
      body: '{}',
    })
    expect(wrong.status).toBe(401)
    const withCookie = await fetch(`${host.origin}/`, { headers: { cookie: 'ralph_token=guess' } })
    expect(withCookie.status).toBe(401)

    const ws = new WebSocket(`ws://127.0.0.1:${host.port}/api/events`)
    const outcome = await new Promise<string>((resolve) => {
      ws.on('unexpected-response', (_req, res) => resolve(`http ${res.statusCode}`))
      ws.on('open', () => resolve('open'))
      ws.on('error', (err) => resolve(`error ${err.message}`))
    })
    expect(outcome).toMatch(/401/)

    // A fresh browser page without the token sees nothing of the app.
    const stranger = await browser.newPage()
    const response = await stranger.goto(host.origin + '/')
    expect(response?.status()).toBe(401)
    expect(await stranger.content()).not.toContain('Ralph Studio')
    await stranger.close()
  })
})
