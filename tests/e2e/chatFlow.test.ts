import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SCREENSHOTS, shootThemes } from '../helpers/browser'
import type { FakeLlmServer, ScriptedReply } from '../fixtures/fakeLlmServer'
import { startAppSession, type AppSession } from '../helpers/appSession'

// The chat's flow (#26) in Chromium against the real `npm run web`: a question never traps the user, the composer
// says what the next message does, Stop means stop, a failed task offers a way on, the length limit shows before
// sending, and the past conversations popover stays off the sidebar.
describe('chat flow in Chromium', { timeout: 180_000 }, () => {
  let session: AppSession
  let llm: FakeLlmServer
  let page: Page
  let dir: string
  let projectUrl: string

  const log = () => page.getByRole('log', { name: 'Conversation' })
  const box = () => page.getByRole('textbox', { name: 'Message' })
  const intent = () => page.getByTestId('composer-intent')
  const shoot = (name: string) => shootThemes(page, `chatflow-${name}`)
  /** A task's card by its title (a rollback gives a task number out again, so numbers are not unique). */
  const card = (title: string) => log().getByRole('article', { name: new RegExp(`^Task \\d+: ${title}$`) })
  const send = async (text: string) => {
    await box().fill(text)
    await page.getByRole('button', { name: 'Send', exact: true }).click()
  }
  const idle = () =>
    expect
      .poll(async () =>
        JSON.stringify((await session.call('tasks.running', { projectId: session.projectId })).value),
      )
      .toBe('{"running":false}')
  /** A parse that asks a question instead of starting work. */
  const question = (title: string, clarification: string): ScriptedReply => ({
    kind: 'json',
    value: {
      type: 'needs-clarification',
      title,
      requirements: [],
      scope: { preserve: [], affectedFiles: [] },
      clarification,
    },
  })
  const fresh = (title: string): ScriptedReply => ({
    kind: 'json',
    value: {
      type: 'fresh',
      title,
      requirements: [{ marker: 'ADD', description: title, count: null }],
      scope: { preserve: [], affectedFiles: [] },
      clarification: null,
    },
  })
  const writes = (path: string, content: string, summary: string): ScriptedReply[] => [
    { kind: 'tools', calls: [{ name: 'write_file', arguments: { path, content } }] },
    { kind: 'tools', calls: [{ name: 'mark_complete', arguments: { summary } }] },
  ]
  /** Asks task N's question and waits until its card and the composer say so. */
  const ask = async (title: string, clarification: string, request: string) => {
    llm.enqueue(question(title, clarification))
    await send(request)
    await card(title)
      .getByText('Waiting for your answer', { exact: true })
      .waitFor({ timeout: 20_000 })
      .catch(async (err: unknown) => {
        // What the page showed instead, for the failure's reader.
        await page.screenshot({ path: join(SCREENSHOTS, `chatflow-failed-${title}.png`) })
        throw err
      })
    await intent()
      .filter({ hasText: `Answer Ralph’s question about ${title}` })
      .waitFor()
    await idle()
  }
  /**
   * The header's status as the cards say it (issue 37: one source, refreshed by the events that change it, never
   * only by a reload): the badge's word and the sentence a screen reader hears.
   */
  const headerSays = async (word: string, sentence: string) => {
    await page
      .getByRole('status', { name: 'Project status' })
      .locator('.badge')
      .filter({ hasText: new RegExp(`^${word}$`) })
      .waitFor()
    await page.getByTestId('project-status').filter({ hasText: sentence }).waitFor()
  }
  /** The header's Project details dialog, opened and read (its facts are no strip above the chat any more). */
  const openDetails = async () => {
    await page.getByRole('button', { name: 'Project details' }).click()
    return page.getByRole('dialog', { name: 'Project details' }).getByLabel('Project state')
  }
  const closeDetails = async () => {
    const dialog = page.getByRole('dialog', { name: 'Project details' })
    await dialog.getByRole('button', { name: 'Close' }).click()
    await dialog.waitFor({ state: 'detached' })
  }
  /**
   * The header at a laptop's 1024×700, in a second window on the same project (resizing the walk's own window would
   * move its conversation off the bottom), with its details open when `details`.
   */
  const shootSmall = async (name: string, sentence: string, details: boolean) => {
    const small = await session.newPage({ width: 1024, height: 700 })
    await small.goto(projectUrl)
    await small.getByTestId('project-status').filter({ hasText: sentence }).waitFor()
    if (details) {
      await small.getByRole('button', { name: 'Project details' }).click()
      await small.getByRole('dialog', { name: 'Project details' }).waitFor()
    }
    await shootThemes(small, `chatflow-${name}-1024x700`)
    await small.close()
  }
  /** After a reload too, no card waits and the composer starts a new task. */
  const noneWaiting = async () => {
    await page.reload()
    await intent()
      .filter({ hasText: /^New task/ })
      .waitFor()
    expect(await log().getByText('Waiting for your answer', { exact: true }).count()).toBe(0)
  }

  beforeAll(async () => {
    session = await startAppSession('bakery', {
      'index.html': '<h1>Bakery</h1>\n',
      'README.md': '# Bakery\nA page for a bakery.\n',
    })
    ;({ llm, page, dir } = session)
    projectUrl = `${session.host.origin}/#/project/${session.projectId}`
    await page.goto(projectUrl)
    await page.getByTestId('connection').filter({ hasText: 'Connected' }).waitFor()
  })

  afterAll(() => session?.close())

  it('says what the next message will do: a new task, or a question that changes nothing', async () => {
    await intent().filter({ hasText: 'New task' }).waitFor()
    expect(await box().getAttribute('placeholder')).toBe('Describe what Ralph should do…')
    await shoot('composer-new')
    await page
      .getByRole('radiogroup', { name: 'Mode' })
      .getByRole('radio', { name: 'Ask', exact: true })
      .check()
    await intent().filter({ hasText: 'Ask a question (changes nothing)' }).waitFor()
    expect(await box().getAttribute('placeholder')).toBe('Ask about the project…')
    await shoot('composer-ask')
    await page
      .getByRole('radiogroup', { name: 'Mode' })
      .getByRole('radio', { name: 'Task', exact: true })
      .check()
  })

  it('answers a pending question from its card; New conversation asks first and can end the task', async () => {
    await ask('Opening hours', 'Weekdays only, or the weekend too?', 'add the opening hours')
    const waiting = card('Opening hours')
    await waiting.getByRole('button', { name: 'Answer' }).waitFor()
    await waiting.getByRole('button', { name: 'Dismiss' }).waitFor()
    expect(await box().getAttribute('placeholder')).toBe('Answer Ralph’s question to continue task 1…')
    await headerSays('Waiting for your answer', 'Waiting for your answer')
    await shoot('question-pending')
    await waiting.getByRole('button', { name: 'Answer' }).click()
    await expect
      .poll(() => page.evaluate("document.activeElement?.getAttribute('aria-label')"))
      .toBe('Message')

    // New conversation never silently carries the question on: it asks, and "Answer it first" keeps the chat.
    await page.getByRole('button', { name: 'New conversation' }).click()
    const dialog = page.getByRole('dialog', { name: 'Task 1 waits for your answer' })
    await dialog.getByText('Weekdays only, or the weekend too?', { exact: false }).waitFor()
    await shoot('new-conversation-asks')
    await dialog.getByRole('button', { name: 'Answer it first' }).click()
    await dialog.waitFor({ state: 'detached' })
    await waiting.waitFor()

    // …or it ends that task (Stopped, pre-task snapshot kept) and starts the new conversation.
    await page.getByRole('button', { name: 'New conversation' }).click()
    await dialog.getByRole('button', { name: 'End task 1 and start new' }).click()
    await log().getByText('Tell Ralph what to build').waitFor()
    await intent()
      .filter({ hasText: /^New task/ })
      .waitFor()
    const snapshots = await session.call('snapshots.list', { projectId: session.projectId })
    expect(JSON.stringify(snapshots.value)).toContain('task-1-pre')
    // The header follows the card at once, no reload: the ended task is Stopped, no longer waiting.
    await headerSays('Stopped', 'Last task was stopped')
    expect(await page.getByRole('status', { name: 'Project status' }).textContent()).not.toContain('Waiting')
    await noneWaiting()
  })

  it('dismisses a pending question from the composer; the next message starts a new task', async () => {
    await ask('Cake sizes', 'Which sizes: small and large, or three?', 'list the cake sizes')
    await shoot('composer-answer')
    await page.getByTestId('composer-intent').getByRole('button', { name: 'Dismiss the question' }).click()
    await card('Cake sizes').getByText('Stopped', { exact: true }).waitFor()
    await card('Cake sizes')
      .getByText(/you dismissed Ralph’s question/)
      .waitFor()
    await intent()
      .filter({ hasText: /^New task/ })
      .waitFor()
    await headerSays('Stopped', 'Last task was stopped')
    const facts = await openDetails()
    await facts
      .getByText(/^Task 2: Cake sizes · Stopped$/)
      .waitFor({ timeout: 10_000 })
      .catch(async (err: unknown) => {
        throw new Error(`The details said: ${await facts.textContent()}`, { cause: err })
      })
    await facts.getByText('No task running', { exact: true }).waitFor()
    await shoot('header-details-after-dismiss')
    await closeDetails()
    await shootSmall('header-details-after-dismiss', 'Last task was stopped', true)
    await shootSmall('header-after-dismiss', 'Last task was stopped', false)
    await noneWaiting()
    await card('Cake sizes').getByText('Stopped', { exact: true }).waitFor()

    // The next message is a task of its own, not an answer to the closed question.
    llm.enqueue(fresh('Footer'), ...writes('footer.html', '<footer>Bakery</footer>\n', 'Added a footer.'))
    await send('Add a footer')
    await card('Footer').getByText('Complete', { exact: true }).waitFor({ timeout: 30_000 })
    expect(await log().getByRole('article', { name: 'Task 3: Footer' }).count()).toBe(1)
    await idle()
  })

  it('ends a pending question when the project is rolled back to before its task', async () => {
    await ask('Prices', 'In euros or in dollars?', 'show the prices')
    await card('Prices').getByRole('button', { name: 'Roll back to before this task' }).click()
    const dialog = page.getByRole('alertdialog', { name: 'Roll back to task-4-pre' })
    await dialog.getByRole('button', { name: 'Roll back' }).click()
    await log()
      .getByText(/Task 4 no longer waits for your answer: it ended as Stopped/)
      .waitFor()
    await card('Prices').getByText('Stopped', { exact: true }).waitFor()
    await intent()
      .filter({ hasText: /^New task/ })
      .waitFor()
    await noneWaiting()
  })

  it('stops a task without starting its queued follow-ups, then asks whether to run them', async () => {
    llm.enqueue(fresh('Menu'), { kind: 'hang' })
    await send('add a menu page')
    await card('Menu').getByText('Running', { exact: true }).waitFor({ timeout: 20_000 })
    // The rollback above gave the task counter back, so the number is read from the card.
    const menu = (await card('Menu').getAttribute('aria-label'))!.match(/^Task (\d+)/)![1]
    await intent()
      .filter({ hasText: `Queued after task ${menu}` })
      .waitFor()
    expect(await box().getAttribute('placeholder')).toBe('Describe the next task…')
    await shoot('composer-queued')
    await send('add a contact page')
    await log().getByRole('article', { name: 'Queued task' }).waitFor()
    const requests = llm.requests.length

    await page.getByRole('button', { name: 'Stop' }).click()
    await card('Menu').getByText('Stopped', { exact: true }).waitFor({ timeout: 20_000 })
    const prompt = page.getByRole('group', { name: 'Queued after Stop' })
    await prompt.getByText(`Task ${menu} was stopped.`).waitFor()
    await idle()
    // Nothing started: the follow-up still waits, and the model heard nothing more.
    expect(await log().getByRole('article', { name: 'Queued task' }).count()).toBe(1)
    expect(llm.requests.length).toBe(requests)
    await shoot('stop-queued-prompt')

    await prompt.getByRole('button', { name: 'Keep them queued' }).click()
    await prompt.waitFor({ state: 'detached' })
    expect(await log().getByRole('article', { name: 'Queued task' }).count()).toBe(1)
    // The prompt comes back with the page: the follow-up still waits for a decision.
    await page.reload()
    llm.enqueue(fresh('Contact'), ...writes('contact.html', '<p>Call us</p>\n', 'Added a contact page.'))
    await prompt.getByRole('button', { name: 'Run them' }).click()
    await card('Contact').getByText('Complete', { exact: true }).waitFor({ timeout: 30_000 })
    expect(readFileSync(join(dir, 'contact.html'), 'utf8')).toBe('<p>Call us</p>\n')
    await idle()
  })

  it('offers Retry, Edit and resend, and Settings on a task that failed with a provider error', async () => {
    // It wrote a file before the provider refused: a failed task leaves its files, and the app says so.
    llm.enqueue(
      fresh('Gallery'),
      {
        kind: 'tools',
        calls: [{ name: 'write_file', arguments: { path: 'gallery-draft.html', content: '<img>\n' } }],
      },
      {
        kind: 'error',
        status: 401,
        body: { error: { message: 'Incorrect API key provided.', type: 'invalid_request_error' } },
      },
    )
    await send('add a photo gallery')
    const failed = card('Gallery')
    await failed.getByText('Failed', { exact: true }).waitFor({ timeout: 30_000 })
    await failed.getByRole('link', { name: 'Check the model provider in Settings' }).waitFor()
    await idle()
    expect(existsSync(join(dir, 'gallery-draft.html'))).toBe(true)
    // The header and the timeline's Working copy line follow the task's end (loop.finished), no reload.
    await headerSays('Failed', 'Last task failed')
    await page
      .getByRole('status', { name: 'Working copy' })
      .filter({ hasText: /1 file changed since task-\d+-pre/ })
      .waitFor()
    const facts = await openDetails()
    await facts.getByText(/^Task \d+: Gallery · Failed$/).waitFor()
    await shoot('header-details-after-failed')
    await closeDetails()
    await shootSmall('header-details-after-failed', 'Last task failed', true)
    await shootSmall('header-after-failed', 'Last task failed', false)
    await shoot('failed-actions')

    await failed.getByRole('button', { name: 'Edit and resend' }).click()
    await expect.poll(() => box().inputValue()).toBe('add a photo gallery')
    await box().fill('')

    llm.enqueue(fresh('Gallery again'), ...writes('gallery.html', '<img alt="bread">\n', 'Added a gallery.'))
    await failed.getByRole('button', { name: 'Retry' }).click()
    await card('Gallery again').getByText('Complete', { exact: true }).waitFor({ timeout: 30_000 })
    expect(existsSync(join(dir, 'gallery.html'))).toBe(true)
    // The same message went again, as a new task.
    const history = await session.call('chat.history', { projectId: session.projectId })
    const sent = (history.value as { messages: { kind: string; text: string }[] }).messages
    expect(sent.filter((m) => m.kind === 'user' && m.text === 'add a photo gallery')).toHaveLength(2)
    await idle()
  })

  it('shows a counter past the length limit and keeps Send disabled, saying why', async () => {
    await box().fill('x'.repeat(100_012))
    const counter = page.getByTestId('composer-counter')
    await counter.filter({ hasText: '100,012 / 100,000 characters · 12 over the limit' }).waitFor()
    await counter.getByText(/shorten it to send/).waitFor()
    const sendButton = page.getByRole('button', { name: 'Send', exact: true })
    expect(await sendButton.getAttribute('aria-disabled')).toBe('true')
    // Neither a click (it reaches the button: aria-disabled keeps it focusable) nor Ctrl+Enter sends it: no request
    // ever carries it (an earlier test's late request may still arrive, so the check is on content, not count).
    await sendButton.click({ force: true })
    await box().press('Control+Enter')
    const carriesIt = () => llm.requests.some((r) => JSON.stringify(r.body).includes('x'.repeat(100_001)))
    expect(carriesIt()).toBe(false)
    expect(await page.getByRole('log', { name: 'Conversation' }).getByText('x'.repeat(200)).count()).toBe(0)
    await box().evaluate((el) => el.scrollTo(0, 0))
    await shoot('counter-over-limit')
    await box().fill('')
    expect(await counter.count()).toBe(0)
  })

  it('opens past conversations beside the chat, never over the sidebar', async () => {
    for (const title of [
      'A very long request about the bakery that goes on and on about croissants, baguettes and sourdough loaves',
      'Make the header friendlier',
    ]) {
      await page.getByRole('button', { name: 'New conversation' }).click()
      await log().getByText('Tell Ralph what to build').waitFor()
      llm.enqueue({ kind: 'text', text: 'It is a bakery page.' })
      await page
        .getByRole('radiogroup', { name: 'Mode' })
        .getByRole('radio', { name: 'Ask', exact: true })
        .check()
      await send(title)
      await log().getByText('It is a bakery page.').last().waitFor()
    }
    await page
      .getByRole('radiogroup', { name: 'Mode' })
      .getByRole('radio', { name: 'Task', exact: true })
      .check()
    await page.getByRole('button', { name: 'Past conversations' }).click()
    const menu = page.getByRole('menu')
    await menu.getByRole('menuitem').first().waitFor()
    const sidebar = await page.getByRole('navigation', { name: 'Main' }).boundingBox()
    const chat = await page.getByRole('region', { name: 'Chat' }).boundingBox()
    const box = await menu.boundingBox()
    expect(sidebar && chat && box).toBeTruthy()
    // The menu stays inside the chat column: right of the sidebar, and within the window.
    expect(box!.x).toBeGreaterThanOrEqual(sidebar!.x + sidebar!.width)
    expect(box!.x).toBeGreaterThanOrEqual(chat!.x)
    expect(box!.x + box!.width).toBeLessThanOrEqual(chat!.x + chat!.width + 1)
    await shoot('past-conversations')
    await page.keyboard.press('Escape')
  })
})
