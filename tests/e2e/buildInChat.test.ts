import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { recordToasts, shootThemes } from '../helpers/browser'
import { startAppSession, type AppSession } from '../helpers/appSession'
import { parsed, tools } from '../integration/loop/harness'

// A build started with the Queue panel's Build, seen from the project's main view in Chromium against the real
// `npm run web` and the fake LLM: the header's badge counts the task being built, the chat pins the build above
// the composer with Stop and Open Queue, and the composer says (as the core does) that a Task message can't start
// meanwhile. Then the ends a build can need the user for: waiting for approval, paused, escalated; the escalated
// task in the Queue panel, Build again (starts nothing) and Retry (builds it again at once, to a PASS).

const CHECK = `const fs = require('fs')
const [file, want] = process.argv.slice(2)
const got = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() : '(missing)'
if (got !== want) { console.error(file + ': expected "' + want + '", got "' + got + '"'); process.exit(1) }
`

describe('a panel build in the project header and the chat', { timeout: 120_000 }, () => {
  let session: AppSession
  let page: Page
  /** The task the last build escalates. */
  let escalatedId = ''

  const header = () => page.getByRole('status', { name: 'Project status' })
  const strip = () => page.getByRole('region', { name: 'Queue build' })
  const panel = () => page.getByRole('tabpanel', { name: 'Queue' })
  const queueTask = (name: string) =>
    panel().getByRole('list', { name: 'Work queue' }).getByRole('listitem', { name, exact: true })
  const shoot = (name: string) => shootThemes(page, `build-in-chat-${name}`)
  const criterion = (file: string, want: string) => `DET: \`node check.cjs ${file} ${want}\` exits 0`
  /** One attempt: the parse, then one iteration that writes FILE and marks the task complete. */
  const attempt = (file: string, content: string) => [
    parsed({ type: 'fresh', title: `Write ${file}` }),
    tools(
      ['write_file', { path: file, content: `${content}\n` }],
      ['mark_complete', { summary: `Wrote ${file}.` }],
    ),
  ]
  async function addTask(name: string, file: string, want: string, deps: string[] = []) {
    const r = await session.call('queue.addTask', {
      projectId: session.projectId,
      name,
      accept: [criterion(file, want)],
      deps,
      spec: 'spec.md',
    })
    expect(r.ok, JSON.stringify(r.error)).toBe(true)
    return (r.value as { ids: string[] }).ids[0]!
  }
  async function startBuild(mode?: string) {
    await page.goto(`${session.host.origin}/#/project/${session.projectId}?panel=queue`)
    if (mode) await panel().getByRole('combobox', { name: 'Build mode' }).selectOption(mode)
    await clickBuild()
  }
  /** Build is disabled until the panel has read a queue with something to build. */
  async function clickBuild() {
    const build = panel().getByRole('button', { name: 'Build', exact: true })
    await expect.poll(() => build.getAttribute('aria-disabled'), { timeout: 30_000 }).toBeNull()
    await build.click()
  }

  beforeAll(async () => {
    session = await startAppSession('build-in-chat', { 'spec.md': '# Letters\n', 'check.cjs': CHECK })
    page = session.page
  })

  afterAll(async () => {
    await session?.close()
  })

  it('shows the running build in the header and the chat, outside the Queue tab', async () => {
    const a = await addTask('Write a.txt', 'a.txt', 'alpha')
    await addTask('Write b.txt', 'b.txt', 'beta', [a])
    // The second task's model call never answers: the build stays on it until stopped.
    session.llm.enqueue(...attempt('a.txt', 'alpha'), parsed({ type: 'fresh', title: 'Write b.txt' }), {
      kind: 'hang',
    })
    await startBuild()
    // The project's main view with the Timeline beside it: the Queue tab is not what shows the build.
    await page.getByRole('tab', { name: 'Timeline' }).click()

    await header().getByText('Building · 2 of 2').waitFor({ timeout: 60_000 })
    expect(await header().textContent()).toContain('Write b.txt')
    await strip().getByText('Build running').waitFor()
    expect(await strip().textContent()).toContain('task 2 of 2: Write b.txt')
    expect(await strip().textContent()).toContain('Attempt 1 of 3')
    await strip()
      .getByRole('listitem', { name: 'Write a.txt: accepted, last verification PASS' })
      .waitFor({ timeout: 30_000 })
    await strip()
      .getByText(/Iteration 1 of/)
      .waitFor({ timeout: 30_000 })
    expect(readFileSync(join(session.dir, 'a.txt'), 'utf8')).toBe('alpha\n')
  })

  it('says before typing that a Task message waits for the build, as the core refuses one', async () => {
    await page.getByTestId('composer-building').waitFor()
    await page.getByRole('textbox', { name: 'Message' }).fill('Add a footer')
    const send = page.getByRole('button', { name: 'Send' })
    expect(await send.getAttribute('aria-disabled')).toBe('true')
    await shoot('running')

    // What the composer says is what the core does: a Task message sent now is refused and not kept.
    const sent = await session.call('chat.send', {
      projectId: session.projectId,
      mode: 'task',
      text: 'Add a footer',
    })
    expect(sent.ok).toBe(false)
    expect(sent.error?.kind).toBe('busy')
    expect(sent.error?.message).toMatch(/A build is running in this project/)
    const history = await session.call('chat.history', { projectId: session.projectId })
    expect((history.value as { messages: unknown[] }).messages).toEqual([])
  })

  it('stops the build from the chat', async () => {
    await strip().getByRole('button', { name: 'Stop build' }).click()
    await strip().waitFor({ state: 'detached', timeout: 60_000 })
    await expect.poll(async () => await header().textContent()).not.toContain('Building')
    await page.getByTestId('composer-building').waitFor({ state: 'detached' })
    expect(await page.getByRole('button', { name: 'Send' }).getAttribute('aria-disabled')).toBeNull()
  })

  it('waits for approval, then shows the paused build after a refusal', async () => {
    session.llm.enqueue(...attempt('b.txt', 'beta'))
    await startBuild('interactive')
    await page.getByRole('tab', { name: 'Timeline' }).click()
    await header().getByText('Waiting for approval').waitFor({ timeout: 90_000 })
    expect(await strip().textContent()).toContain('Waiting for your approval')
    await shoot('approval')

    // Open Queue takes the user where the question is answered.
    await strip().getByRole('button', { name: 'Open Queue' }).click()
    const approval = panel().getByRole('group', { name: 'Approval' })
    await approval.getByRole('button', { name: 'Decide later' }).click()
    await header().getByText('Paused', { exact: true }).waitFor({ timeout: 60_000 })
    expect(await strip().textContent()).toContain('Build paused')
    await shoot('paused')
    await strip().getByRole('button', { name: 'Dismiss' }).click()
    await strip().waitFor({ state: 'detached' })
    expect(await header().textContent()).not.toContain('Paused')
  })

  it('shows an escalated build: three failed verifications rolled back', async () => {
    // The paused task is done and waits for a decision; accepting it lets the next build start.
    await queueTask('Write b.txt').getByRole('button', { name: 'Accept' }).click()
    await queueTask('Write b.txt').waitFor({ state: 'detached' })
    escalatedId = await addTask('Write c.txt', 'c.txt', 'gamma')
    session.llm.enqueue(...attempt('c.txt', 'one'), ...attempt('c.txt', 'two'), ...attempt('c.txt', 'three'))
    await panel().getByRole('combobox', { name: 'Build mode' }).selectOption('hybrid')
    await clickBuild()
    await header().getByText('Escalated').waitFor({ timeout: 110_000 })
    expect(await strip().textContent()).toContain('Build escalated')
    await strip()
      // Rolled back, then paused where the build escalated: either way its last verification failed.
      .getByRole('listitem', { name: /^Write c\.txt: [a-z ]+, last verification FAIL$/ })
      .waitFor({ timeout: 30_000 })
    await shoot('escalated')
  })

  // The same escalated build in the Queue panel (this walk replaces queueEscalation.test.ts, which built its own
  // escalation to check these): the task's state and reason, Build again, Retry.
  it('shows the escalated task in the Queue panel: rolled back, its reason and what happened', async () => {
    await strip().getByRole('button', { name: 'Open Queue' }).click()
    const task = queueTask('Write c.txt')
    await task.getByText('Escalated', { exact: true }).waitFor({ timeout: 30_000 })
    expect(await panel().getByRole('region', { name: 'Build progress' }).textContent()).toContain(
      'Build escalated.',
    )
    expect(await task.textContent()).toMatch(/Failed 3 times; the project was rolled back to task-\d+-pre/)
    expect(existsSync(join(session.dir, 'c.txt'))).toBe(false)
    await task.getByText('What happened').click()
    await task.getByText(/The last attempt failed: AC1: .* got "three"/).waitFor()
    await task.scrollIntoViewIfNeeded()
    await shootThemes(page, 'queue-escalated')
  })

  it('Build again starts nothing: no model call, and it names the task and what to do', async () => {
    const progress = panel().getByRole('region', { name: 'Build progress' })
    const calls = session.llm.requests.length
    await clickBuild()
    await expect
      .poll(async () => (await progress.textContent()) ?? '', { timeout: 30_000 })
      .toContain('“Write c.txt” is escalated')
    // The panel says which button to use; the CLI's `ralph build --retry` is for the terminal.
    expect(await progress.textContent()).toContain('Retry it with its Retry button in the queue')
    expect(await progress.textContent()).not.toContain('ralph build --retry')
    expect(await progress.textContent()).not.toContain(`${escalatedId} "Write c.txt"`)
    expect(session.llm.requests.length).toBe(calls)
  })

  it('Retry ends the escalation and builds the task again at once, to a PASS', async () => {
    const task = queueTask('Write c.txt')
    session.llm.enqueue(...attempt('c.txt', 'gamma'))
    // The build of the test before has ended (Build is offered again), so Retry's own build can start.
    await expect
      .poll(() => panel().getByRole('button', { name: 'Build', exact: true }).getAttribute('aria-disabled'), {
        timeout: 30_000,
      })
      .toBeNull()
    // Retry means "try it now" (issue 37): the panel starts the build itself once the core has ended the escalation.
    const toasts = await recordToasts(page)
    await task.getByRole('button', { name: 'Retry' }).click()
    await expect
      .poll(toasts, { timeout: 30_000 })
      .toContain('“Write c.txt” is no longer escalated: building it now')
    await task.getByText('Escalated', { exact: true }).waitFor({ state: 'detached', timeout: 30_000 })
    await panel()
      .getByRole('region', { name: 'Build progress' })
      .getByText(/Build complete\./)
      .waitFor({ timeout: 90_000 })
    expect(readFileSync(join(session.dir, 'c.txt'), 'utf8')).toBe('gamma\n')
  })
})
