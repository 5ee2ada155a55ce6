import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runningTask } from '../../src/main/snapshots/taskLock'
import { startFakeLlmServer, type FakeLlmServer } from '../fixtures/fakeLlmServer'
import { launchChromium, shootThemes } from '../helpers/browser'
import { makeTempDir } from '../helpers/tempDir'
import { callApi, startWebHost, type WebHost } from '../helpers/webHost'

/** Polls until `cond` holds: CI is a loaded box, so generous budgets and never a fixed sleep. */
async function waitFor(cond: () => boolean | Promise<boolean>, what: string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

// Issue 12's interruption flow in Chromium against the real `npm run web`: the host is stopped with SIGTERM mid-task
// (an OS shutdown, a service manager; issue 37: a shutdown is an interruption, not the user's Stop), a new host
// starts on the same app data, the card says Interrupted, and Resume finishes the same task. The hard kill (SIGKILL)
// leaves the same state through crash recovery: tests/integration/loop/resume.test.ts.
describe('resume an interrupted task in Chromium', { timeout: 120_000 }, () => {
  const home = makeTempDir('ralph-home-')
  const work = makeTempDir('ralph-work-')
  const dir = join(work.path, 'coffee')
  let llm: FakeLlmServer
  let env: NodeJS.ProcessEnv
  const hosts: WebHost[] = []
  let browser: Browser
  let page: Page
  let projectId: number

  const host = () => hosts.at(-1)!
  const log = () => page.getByRole('log', { name: 'Conversation' })
  const card = () => log().getByRole('article', { name: 'Task 1: Greet the world' })

  /** A new web host on the same RALPH_HOME, with the browser signed in to it (its token is new per launch). */
  async function startHost() {
    hosts.push(await startWebHost(env))
    await page.goto(host().url)
    await page.waitForURL(`${host().origin}/`)
  }

  beforeAll(async () => {
    llm = await startFakeLlmServer()
    env = {
      RALPH_HOME: home.path,
      RALPH_PROVIDER: 'openai-compatible',
      RALPH_MODEL: 'fake-model',
      RALPH_BASE_URL: llm.baseUrl,
    }
    mkdirSync(dir)
    writeFileSync(join(dir, 'index.html'), '<h1>hi</h1>\n')
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1280, height: 820 } })
    await startHost()
    const opened = await callApi(host(), 'projects.open', { path: dir })
    if (!opened.ok) throw new Error(`projects.open failed: ${JSON.stringify(opened)}`)
    projectId = opened.value.id as number
  })

  afterAll(async () => {
    await browser?.close()
    for (const h of hosts) await h.stop()
    await llm?.close()
    home.cleanup()
    work.cleanup()
  })

  it('the web host stopped with SIGTERM mid-task and started again: the card says Interrupted, Resume finishes it', async () => {
    llm.enqueue(
      {
        kind: 'json',
        value: {
          type: 'bugfix',
          title: 'Greet the world',
          requirements: [{ marker: 'FIX', description: 'greet properly', count: null }],
          scope: { preserve: [], affectedFiles: ['index.html'] },
          clarification: null,
        },
      },
      {
        kind: 'tools',
        calls: [
          {
            name: 'edit_file',
            arguments: { path: 'index.html', old_string: 'hi', new_string: 'Hello, world' },
          },
        ],
      },
      // The model streams a few words and then nothing: the task stays mid-iteration until the host dies.
      { kind: 'stall', text: 'Now checking the rest of the page…' },
    )
    await page.goto(`${host().origin}/#/project/${projectId}`)
    const box = page.getByRole('textbox', { name: 'Message' })
    await box.fill('the heading should greet the world')
    await box.press('Control+Enter')
    await card().getByText('Running', { exact: true }).waitFor({ timeout: 30_000 })
    await card()
      .getByTestId('task-live')
      .filter({ hasText: 'Now checking the rest' })
      .waitFor({ timeout: 60_000 })
    expect(readFileSync(join(dir, 'index.html'), 'utf8')).toBe('<h1>Hello, world</h1>\n')

    // SIGTERM the process that runs the task (the web host's node process holds the project's task lock).
    const holder = await runningTask(dir)
    expect(holder?.info?.pid).toEqual(expect.any(Number))
    process.kill(holder!.info!.pid, 'SIGTERM')
    const killed = host()
    await waitFor(() => !killed.running(), 'the stopped web host to exit')
    // It ended the task itself, as interrupted: nothing is left for crash recovery to do.
    expect(readFileSync(join(dir, '.ralph/status.txt'), 'utf8').trim()).toBe('interrupted')

    await startHost()
    await page.goto(`${host().origin}/#/project/${projectId}`)
    await card().getByText('Interrupted', { exact: true }).waitFor({ timeout: 30_000 })
    await expect
      .poll(() => card().textContent())
      .toContain('Ralph was shut down (the web host was stopped by SIGTERM) during iteration 1.')
    const resume = card().getByRole('button', { name: 'Resume' })
    await resume.waitFor()
    await expect.poll(() => resume.getAttribute('aria-disabled')).toBeNull()
    await card().getByRole('button', { name: 'Roll back to before this task' }).waitFor()
    await page.getByTestId('connection').filter({ hasText: 'Connected' }).waitFor()
    await shootThemes(page, 'resume-01-interrupted')

    llm.enqueue({
      kind: 'tools',
      delayMs: 800,
      calls: [{ name: 'mark_complete', arguments: { summary: 'The heading now says Hello, world.' } }],
    })
    await resume.click()
    await card().getByText('Running', { exact: true }).waitFor({ timeout: 30_000 })
    await card().getByText('Complete', { exact: true }).waitFor({ timeout: 60_000 })
    await expect.poll(() => card().getByRole('button', { name: 'Resume' }).count()).toBe(0)
    await card().getByText('The heading now says Hello, world.').waitFor()
    // One card, one task: the resume continued task 1 rather than starting another.
    expect(await log().getByRole('article').count()).toBe(1)
    await shootThemes(page, 'resume-02-complete')

    const tags = await callApi(host(), 'snapshots.list', { projectId })
    const names = (tags.value.items as { tag: string }[]).map((s) => s.tag)
    expect(names.filter((t) => t === 'task-1-pre')).toHaveLength(1)
    expect(names).toContain('task-1-post')
    expect(names.filter((t) => t.startsWith('task-2'))).toEqual([])
  })
})
