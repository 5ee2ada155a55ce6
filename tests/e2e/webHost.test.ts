import { mkdirSync, writeFileSync, existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import WebSocket from 'ws'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchChromium, SCREENSHOTS } from '../helpers/browser'
import { startFakeLlmServer, type FakeLlmServer } from '../fixtures/fakeLlmServer'
import { makeTempDir } from '../helpers/tempDir'
import { startWebHost, type WebHost } from '../helpers/webHost'

// Real `npm run web`, real Debian Chromium, real HTTP to a fake LLM server.
describe('web host in Chromium', () => {
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

    await page.click('text=Projects')
    await page.getByRole('list', { name: 'Recent projects' }).getByText('my-app', { exact: true }).waitFor()
  })

  it('updates the recent list live when another client opens a project (events over the WebSocket)', async () => {
    await page.click('text=Projects')
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
    await page.click('text=Settings')
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
    await page.click('text=Test connection')
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
    await page.click('text=Settings')
    llm.apiKey = 'sk-right'
    await page.fill('#api-key', 'sk-wrong-key')
    await page.click('text=Test connection')
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
    await page.click('text=Projects')
    await page.getByRole('list', { name: 'Recent projects' }).getByText('my-app', { exact: true }).click()
    await page.fill('#task-message', 'the heading should greet the world')
    await page.click('text=Run task')
    await page.getByTestId('task-outcome').filter({ hasText: 'Task complete.' }).waitFor({ timeout: 20_000 })
    const log = await page.getByTestId('task-log').textContent()
    expect(log).toContain('▶ Task 1')
    expect(log).toContain('edit_file index.html')
    expect(log).toContain('gate ✓ changes-made')
    expect(log).toContain('snapshot task-1-post')
    expect(readFileSync(join(work.path, 'my-app', 'index.html'), 'utf8')).toBe('<h1>Hello, world</h1>')
    await page.getByTestId('project-status').filter({ hasText: 'Last task complete' }).waitFor()
    await page.screenshot({ path: join(SCREENSHOTS, 'web-07-task-run.png'), fullPage: true })
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
