import { createHash } from 'node:crypto'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SCREENSHOTS, shootThemes } from '../helpers/browser'
import type { FakeLlmServer } from '../fixtures/fakeLlmServer'
import { startAppSession, type AppSession } from '../helpers/appSession'
import type { WebHost } from '../helpers/webHost'

// The chat in Chromium against the real `npm run web`, the loop talking real HTTP to the fake LLM server.
// Each flow waits on conditions; the generous timeout is for CI's busy 2-core machine, not for a slow app.
describe('chat in Chromium', { timeout: 120_000 }, () => {
  let session: AppSession
  let llm: FakeLlmServer
  let host: WebHost
  let page: Page
  let dir: string
  let projectUrl: string

  const call = (name: string, input: unknown) => session.call(name, input)
  const log = () => page.getByRole('log', { name: 'Conversation' })
  const shoot = (name: string) => shootThemes(page, `chat-${name}`)

  beforeAll(async () => {
    session = await startAppSession('coffee', {
      'index.html': '<h1>hi</h1>\n',
      'README.md': '# Coffee\nA page for a coffee shop.\n',
    })
    ;({ llm, host, page, dir } = session)
    projectUrl = `${host.origin}/#/project/${session.projectId}`
  })

  afterAll(() => session?.close())

  it('starts with an empty chat that says what Ralph does', async () => {
    await page.goto(projectUrl)
    await log().getByText('Tell Ralph what to build').waitFor()
    await page.getByTestId('connection').filter({ hasText: 'Connected' }).waitFor()
    await shoot('01-empty')
  })

  it('sends a task and shows its card go Running → Complete, then the same card after a reload', async () => {
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
        text: 'I will fix the heading so it greets the world.',
        delayMs: 1500,
        calls: [
          {
            name: 'edit_file',
            arguments: { path: 'index.html', old_string: 'hi', new_string: 'Hello, world' },
          },
        ],
      },
      {
        kind: 'tools',
        delayMs: 800,
        calls: [{ name: 'mark_complete', arguments: { summary: 'The heading now says Hello, world.' } }],
      },
    )
    const box = page.getByRole('textbox', { name: 'Message' })
    await box.fill('the heading should greet the world')
    await box.press('Control+Enter')
    const card = log().getByRole('article', { name: 'Task 1: Greet the world' })
    await card.getByText('Running', { exact: true }).waitFor({ timeout: 15_000 })
    await page.getByRole('button', { name: 'Stop' }).waitFor()
    await expect.poll(() => box.inputValue()).toBe('')
    await shoot('02-running')

    await card.getByText('Complete', { exact: true }).waitFor({ timeout: 20_000 })
    await card.getByText('The heading now says Hello, world.').waitFor()
    await expect.poll(() => page.getByRole('button', { name: 'Stop' }).count()).toBe(0)
    // The files it changed, from task-1-pre to task-1-post, with their line counts.
    const files = card.getByRole('list', { name: 'Files changed' })
    await files.getByText('+1 −1').waitFor()
    expect(await files.getByRole('listitem').allTextContents()).toEqual(['~index.html+1 −1'])
    const before = await card.textContent()
    expect(before).toContain('edit_file')
    expect(before).toContain('Files changed: passed')
    expect(before).toContain('The heading now says Hello, world.')
    expect(before).toMatch(/\$0\.00|price unknown/)
    expect(readFileSync(join(dir, 'index.html'), 'utf8')).toBe('<h1>Hello, world</h1>\n')
    // Rolling back and comparing work from the card (the Timeline's dialog and diff); reviewing plan changes
    // needs a plan, which this project does not have, and the button says so.
    expect(await card.getByRole('button', { name: 'Roll back to before this task' }).isEnabled()).toBe(true)
    expect(await card.getByRole('button', { name: 'Compare' }).getAttribute('aria-disabled')).toBeNull()
    const review = card.getByRole('button', { name: 'Review plan changes' })
    expect(await review.getAttribute('aria-disabled')).toBe('true')
    // The user's message sits above the (tall) finished card: scroll the log up to it.
    await log().hover()
    await page.mouse.wheel(0, -2000)
    await log().getByText('the heading should greet the world').waitFor()
    await shoot('03-complete')
    await review.hover()
    await page.getByRole('tooltip').waitFor()
    await page.screenshot({ path: join(SCREENSHOTS, 'chat-04-disabled-tooltip-light.png') })

    await page.reload()
    const again = log().getByRole('article', { name: 'Task 1: Greet the world' })
    await again.getByText('Complete', { exact: true }).waitFor()
    await again.getByRole('list', { name: 'Files changed' }).getByText('+1 −1').waitFor()
    expect(await again.textContent()).toBe(before)
    await log().getByText('the heading should greet the world').waitFor()

    // Opened, the card shows its iteration as it happened, from SQLite: the model's text, then each tool call
    // (name, path, ok, duration), and opened, a tool call's arguments and answer; the gates it ran.
    const toggle = again.getByRole('button', { name: /^1 iteration · 2 tool calls/ })
    await toggle.click()
    const iterations = again.getByRole('region', { name: 'Iterations' })
    await iterations.getByRole('button', { name: /^Iteration 1/, expanded: true }).waitFor()
    await iterations.getByText('I will fix the heading so it greets the world.').waitFor()
    const edit = iterations.getByRole('button', { name: /edit_file/ })
    expect(await edit.textContent()).toMatch(/^edit_file\+1 −1index\.html\d+ (ms|s)$/)
    await edit.click()
    await iterations.getByRole('group', { name: 'Changes to index.html' }).getByText('Hello, world').waitFor()
    await iterations.getByText('Result', { exact: true }).waitFor()
    expect(await iterations.getByRole('list', { name: 'Gate results' }).textContent()).toContain(
      'Files changed: passed',
    )
    // The card is taller than the log now: its iterations' top in view.
    await iterations.evaluate((el) => el.scrollIntoView({ block: 'start' }))
    await shoot('03b-iterations-open')
    await toggle.click()
    await iterations.getByRole('button', { name: /^Iteration 1/ }).waitFor({ state: 'detached' })
  })

  it('streams the model’s text into the running card, and Stop stops it', async () => {
    llm.enqueue(
      {
        kind: 'json',
        value: {
          type: 'mutation',
          title: 'Add opening hours',
          requirements: [{ marker: 'ADD', description: 'opening hours', count: null }],
          scope: { preserve: [], affectedFiles: ['index.html'] },
          clarification: null,
        },
      },
      { kind: 'stall', text: 'Looking at index.html to find where the opening hours should go' },
    )
    await page.getByRole('textbox', { name: 'Message' }).fill('add the opening hours')
    await page.getByRole('button', { name: 'Send' }).click()
    const card = log().getByRole('article', { name: 'Task 2: Add opening hours' })
    await card.getByText('Running', { exact: true }).waitFor({ timeout: 15_000 })
    await card.getByText('Looking at index.html to find where the opening hours should go').waitFor()
    await card.getByText('Iteration 1/', { exact: false }).waitFor()
    await shoot('05-streaming')
    await page.getByRole('button', { name: 'Stop' }).click()
    await card.getByText('Stopped', { exact: true }).waitFor({ timeout: 15_000 })
    await expect.poll(() => page.getByRole('button', { name: 'Stop' }).count()).toBe(0)
    // The first card is untouched.
    await log()
      .getByRole('article', { name: 'Task 1: Greet the world' })
      .getByText('Complete', { exact: true })
      .waitFor()
    await shoot('06-stopped')
  })

  it('asks a clarifying question on the card, and the answer continues the same task', async () => {
    llm.enqueue({
      kind: 'json',
      value: {
        type: 'needs-clarification',
        title: 'Night drinks',
        requirements: [],
        scope: { preserve: [], affectedFiles: [] },
        clarification: 'Add two new drinks, or turn two existing ones into night drinks?',
      },
    })
    const box = page.getByRole('textbox', { name: 'Message' })
    await box.fill('add two drinks for the night')
    await page.getByRole('button', { name: 'Send' }).click()
    const card = log().getByRole('article', { name: 'Task 3: Night drinks' })
    await card.getByText('Waiting for your answer', { exact: true }).waitFor({ timeout: 15_000 })
    await card.getByText(/Ralph asks: Add two new drinks/).waitFor()
    await page.getByTestId('composer-answering').filter({ hasText: 'answers task 3' }).waitFor()
    await page.getByTestId('project-status').filter({ hasText: 'Waiting for your answer' }).waitFor()
    await shoot('07-waiting')

    llm.enqueue(
      {
        kind: 'json',
        value: {
          type: 'fresh',
          title: 'Night drinks',
          requirements: [{ marker: 'ADD', description: 'two night drinks', count: 2 }],
          scope: { preserve: [], affectedFiles: ['drinks.txt'] },
          clarification: null,
        },
      },
      {
        kind: 'tools',
        calls: [
          { name: 'write_file', arguments: { path: 'drinks.txt', content: 'Moonlit Calm\nDeep Rest\n' } },
        ],
      },
      {
        kind: 'tools',
        calls: [{ name: 'mark_complete', arguments: { summary: 'Added two night drinks.' } }],
      },
    )
    await box.fill('two new ones')
    await page.getByRole('button', { name: 'Send' }).click()
    await card.getByText('Complete', { exact: true }).waitFor({ timeout: 20_000 })
    await card.getByText('Added two night drinks.').waitFor()
    expect(
      await log()
        .getByRole('article', { name: /^Task 3:/ })
        .count(),
    ).toBe(1)
    expect(readFileSync(join(dir, 'drinks.txt'), 'utf8')).toBe('Moonlit Calm\nDeep Rest\n')
  })

  it('answers in Ask mode and changes nothing: same files, same snapshots', async () => {
    // The card says Complete a moment before the task has let go of the project (its lock file): start from rest.
    await expect
      .poll(async () => JSON.stringify((await call('tasks.running', { projectId: projectId() })).value))
      .toBe('{"running":false}')
    await expect.poll(() => page.getByRole('button', { name: 'Stop' }).count()).toBe(0)
    const files = fingerprint(dir)
    const snapshots = JSON.stringify((await call('snapshots.list', { projectId: projectId() })).value)
    llm.enqueue({ kind: 'text', text: 'It is a page for a coffee shop; its heading greets the world.' })
    await page
      .getByRole('radiogroup', { name: 'Mode' })
      .getByRole('radio', { name: 'Ask', exact: true })
      .check()
    await page.getByRole('textbox', { name: 'Message' }).fill('What is this project?')
    await page.getByRole('button', { name: 'Send' }).click()
    await log().getByText('It is a page for a coffee shop; its heading greets the world.').waitFor()
    // What the answer cost is kept with it (the fake server reports 10 + 5 tokens; its model has no price).
    await log()
      .getByTestId('answer-usage')
      .filter({ hasText: '15 tokens · price unknown · 1 model call' })
      .waitFor()
    await shoot('08-ask')
    expect(fingerprint(dir)).toEqual(files)
    expect(JSON.stringify((await call('snapshots.list', { projectId: projectId() })).value)).toBe(snapshots)
  })

  it('shows the whole conversation after a reload, the first card once scrolled to', async () => {
    await page.reload()
    await log().getByText('It is a page for a coffee shop; its heading greets the world.').waitFor()
    // The log is virtualized: the newest card is in the page, the first one only once scrolled to.
    await log().getByRole('article', { name: 'Task 3: Night drinks' }).waitFor()
    await log().getByText('Complete', { exact: true }).first().waitFor()
    await page.locator('.chat-scroller').evaluate((el) => el.scrollTo({ top: 0 }))
    await log().getByRole('article', { name: 'Task 1: Greet the world' }).waitFor()
    await shoot('09-scrolled-to-top')
  })

  it('keeps a reader scrolled up where they are, and follows new messages at the bottom', async () => {
    // A reader scrolled up stays where they are when a message arrives (here from another client)…
    const scroller = page.locator('.chat-scroller')
    await expect.poll(() => scroller.evaluate((el) => el.scrollTop)).toBeLessThan(5)
    llm.enqueue({ kind: 'text', text: 'Two drinks and a heading.' })
    await call('chat.send', { projectId: projectId(), mode: 'ask', text: 'What changed today?' })
    await expect
      .poll(async () => JSON.stringify(await call('chat.history', { projectId: projectId(), limit: 1 })))
      .toContain('Two drinks and a heading.')
    // A check that something does NOT happen (the list jumping) needs a grace period, not a condition.
    await page.waitForTimeout(300)
    expect(await scroller.evaluate((el) => el.scrollTop)).toBeLessThan(5)
    expect(await log().getByRole('article', { name: 'Task 1: Greet the world' }).count()).toBe(1)
    // …and one at the bottom follows it.
    // Scrolled as a reader does, until the bottom stays the bottom: the log measures the cards it renders on the
    // way, so one jump to the height it had before can land short of the end on a busy machine.
    await expect
      .poll(() =>
        scroller.evaluate((el) => {
          el.scrollTo({ top: el.scrollHeight })
          return el.scrollHeight - el.scrollTop - el.clientHeight
        }),
      )
      .toBeLessThan(5)
    await log().getByText('Two drinks and a heading.').waitFor()
    await expect
      .poll(() => scroller.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight))
      .toBeLessThan(5)
    llm.enqueue({ kind: 'text', text: 'Nothing else.' })
    await call('chat.send', { projectId: projectId(), mode: 'ask', text: 'Anything else?' })
    await log().getByText('Nothing else.').waitFor()
    await expect
      .poll(() => scroller.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight))
      .toBeLessThan(5)
  })

  it('shows the conversation again when coming back to the project', async () => {
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Projects', exact: true })
      .click()
    await page.getByRole('list', { name: 'Recent projects' }).waitFor()
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'coffee' }).click()
    await log().getByText('Nothing else.').waitFor()
    // The newest card is a little above the answers (the log is virtualized: in the page once in view).
    const card = log().getByRole('article', { name: 'Task 3: Night drinks' })
    await expect
      .poll(async () => {
        if (await card.count()) return true
        await page.locator('.chat-scroller').evaluate((el) => el.scrollBy(0, -200))
        return false
      })
      .toBe(true)
    await card.getByText('Complete', { exact: true }).waitFor()
  })

  it('queues a message sent while a task runs; it starts when that task ends', async () => {
    llm.enqueue(
      {
        kind: 'json',
        value: {
          type: 'mutation',
          title: 'Add a footer',
          requirements: [{ marker: 'ADD', description: 'a footer', count: null }],
          scope: { preserve: [], affectedFiles: ['index.html'] },
          clarification: null,
        },
      },
      // The first task runs until it is stopped, so the second one surely waits meanwhile, however busy CI is.
      { kind: 'stall', text: 'Working on the footer' },
      {
        kind: 'json',
        value: {
          type: 'mutation',
          title: 'Add a contact line',
          requirements: [{ marker: 'ADD', description: 'a contact line', count: null }],
          scope: { preserve: [], affectedFiles: ['contact.txt'] },
          clarification: null,
        },
      },
      {
        kind: 'tools',
        calls: [{ name: 'write_file', arguments: { path: 'contact.txt', content: 'Call us\n' } }],
      },
      { kind: 'tools', calls: [{ name: 'mark_complete', arguments: { summary: 'Added a contact line.' } }] },
    )
    await page
      .getByRole('radiogroup', { name: 'Mode' })
      .getByRole('radio', { name: 'Task', exact: true })
      .check()
    const box = page.getByRole('textbox', { name: 'Message' })
    await box.fill('add a footer')
    await page.getByRole('button', { name: 'Send' }).click()
    const first = log().getByRole('article', { name: 'Task 4: Add a footer' })
    await first.getByText('Working on the footer').waitFor({ timeout: 30_000 })
    await box.fill('add a contact line')
    await page.getByTestId('composer-queueing').waitFor()
    await page.getByRole('button', { name: 'Send' }).click()
    const queued = log().getByRole('article', { name: 'Queued task' })
    await queued.getByText('Starts when the running task ends.').waitFor()
    await shoot('10-queued')

    // The running task is stopped: Stop means stop, so the queued one waits until the user says run it (#26).
    await page.getByRole('button', { name: 'Stop' }).click()
    await first.getByText('Stopped', { exact: true }).waitFor({ timeout: 30_000 })
    await page
      .getByRole('group', { name: 'Queued after Stop' })
      .getByRole('button', { name: 'Run them' })
      .click()
    const second = log().getByRole('article', { name: 'Task 5: Add a contact line' })
    await second.getByText('Complete', { exact: true }).waitFor({ timeout: 60_000 })
    await expect.poll(() => queued.count()).toBe(0)
    expect(readFileSync(join(dir, 'contact.txt'), 'utf8')).toBe('Call us\n')
    expect(JSON.stringify(await call('chat.history', { projectId: projectId(), limit: 4 }))).toContain(
      'Added a contact line.',
    )
  })

  const projectId = () => Number(/project\/(\d+)/.exec(projectUrl)![1])
})

/**
 * Every file under a folder with its content hash; `.ralph/` included, but not the harness's lock files: a read of
 * the snapshots (the Ask's own) holds one for a moment, and they are never state (snapshots leave them out too).
 */
function fingerprint(root: string, rel = ''): Record<string, string> {
  const out: Record<string, string> = {}
  for (const name of readdirSync(join(root, rel))) {
    const path = rel ? `${rel}/${name}` : name
    if (path === '.ralph/snapshots.git' || (rel === '.ralph' && name.endsWith('.lock'))) continue
    const full = join(root, path)
    if (statSync(full).isDirectory()) Object.assign(out, fingerprint(root, path))
    else out[path] = createHash('sha256').update(readFileSync(full)).digest('hex')
  }
  return out
}
