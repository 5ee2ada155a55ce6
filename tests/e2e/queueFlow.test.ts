import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { shootThemes } from '../helpers/browser'
import { startAppSession, type AppSession } from '../helpers/appSession'
import { parsed, tools } from '../integration/loop/harness'
import { git, initRepo, write } from '../integration/userGit/helpers'

// Issue #26 in Chromium against the real `npm run web` (the queue at 1024×700): a first task added with no spec file on disk
// (the dialog writes it), problems shown beside their field as the user types, the dialog's buttons in view; a
// backticked DET command run through the sandbox, passing when its file exists and failing when not; no CLI
// instructions and no bare ids where a name exists; the user's git chip counting only the user's own changes.

interface Rec {
  t: string
  id?: string
  name?: string
  spec?: string
  s?: string
  reason?: string
}

describe('Queue flow (#26) in Chromium', { timeout: 240_000 }, () => {
  let session: AppSession
  let page: Page
  let dir: string

  const panel = () => page.getByRole('tabpanel', { name: 'Queue' })
  const queue = () => panel().getByRole('list', { name: 'Work queue' })
  const task = (name: string) => queue().getByRole('listitem', { name, exact: true })
  const dialog = () => page.getByRole('dialog', { name: 'Add task' })
  const chip = () => page.getByRole('group', { name: 'Your git' })
  const progress = () => panel().getByRole('region', { name: 'Build progress' })
  const built = (name: string) =>
    progress().getByRole('list', { name: 'Built tasks' }).getByRole('listitem', { name, exact: true })
  const shoot = (name: string) => shootThemes(page, `queue-${name}`)
  const refocus = () => page.evaluate('window.dispatchEvent(new Event("focus"))')
  type Box = { x: number; y: number; width: number; height: number }
  /** Two boxes share no pixel (the header may wrap, so "left of" is not the rule: "not on top of" is). */
  const apart = (a: Box, b: Box) =>
    a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y
  const records = (): Rec[] => {
    const file = join(dir, '.ralph', 'plan.jsonl')
    if (!existsSync(file)) return []
    return readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Rec)
  }
  /** The panel's visible text, where no CLI instruction may appear. */
  const panelText = async () => (await panel().textContent()) ?? ''
  /** One attempt: the parse, then one iteration that writes FILE and marks the task complete. */
  const attempt = (file: string) => [
    parsed({ type: 'fresh', title: `Write ${file}` }),
    tools(
      ['write_file', { path: file, content: 'console.log("hi")\n' }],
      ['mark_complete', { summary: `Wrote ${file}.` }],
    ),
  ]

  beforeAll(async () => {
    session = await startAppSession('shop', { 'index.html': '<h1>Shop</h1>\n' })
    ;({ page, dir } = session)
    // The user's own repository, committed and clean; Ralph's .ralph/ (written when the project was opened) is
    // untracked in it, and is not the user's change.
    initRepo(dir)
    git(dir, 'add', 'index.html')
    git(dir, 'commit', '-q', '-m', 'The shop')
    await page.goto(`${session.host.origin}/#/project/${session.projectId}?panel=queue`)
  })

  afterAll(() => session?.close())

  it('the git chip never says clean while Ralph’s own files are untracked, and counts the user’s change', async () => {
    expect(git(dir, 'status', '--porcelain', '--untracked-files=all')).toMatch(/\?\? \.ralph\//)
    await refocus()
    await expect.poll(async () => chip().textContent(), { timeout: 15_000 }).toBe('main·.ralph/ untracked')
    expect(await chip().getAttribute('title')).toContain('without Ralph’s own files')
    const chipBox = await chip().boundingBox()
    const brainstorm = await page.getByRole('link', { name: 'Brainstorm', exact: true }).boundingBox()
    expect(apart(chipBox!, brainstorm!)).toBe(true)
    await shoot('git-chip-clean')
    write(dir, 'notes.md', 'my own notes\n')
    // One focus (each one restarts the read, so focusing while polling could starve it).
    await refocus()
    await expect.poll(async () => chip().textContent(), { timeout: 15_000 }).toBe('main·1 changed + .ralph/')
    await shoot('git-chip-changes')
    // The rest at 1024×700: the dialog's buttons must stay on screen there.
    await page.setViewportSize({ width: 1024, height: 700 })
  })

  it('the empty queue says what to click, not what to type', async () => {
    await panel().getByText('The work queue is empty').waitFor()
    const text = await panelText()
    expect(text).toContain('use the Brainstorm button')
    expect(text).not.toMatch(/ralph (brainstorm|build)/)
    await shoot('empty-state')
  })

  it('adds a first task with no spec file on disk: the dialog writes the spec; problems show as the user types', async () => {
    expect(existsSync(join(dir, 'specs'))).toBe(false)
    await panel().getByRole('button', { name: 'Add a first task' }).click()
    const d = dialog()
    await d.waitFor()
    const spec = d.getByRole('group', { name: 'Spec' })
    await spec.getByText('new file', { exact: true }).waitFor()
    expect(await d.getByLabel('Spec file').inputValue()).toBe('specs/tasks.md')

    // A problem is shown beside its field while typing, and Add task says why it cannot act.
    await d.getByLabel('Spec file').fill('specs/shop.txt')
    const pathError = d.getByText('A spec is a markdown file: end the name with .md.')
    await pathError.waitFor()
    expect(await d.getByLabel('Spec file').getAttribute('aria-invalid')).toBe('true')
    await d.getByLabel('Name').fill('x')
    await d.getByLabel('Name').fill('')
    await d.getByText('Give the task a name.').waitFor()
    expect(await d.getByRole('button', { name: 'Add task' }).getAttribute('aria-disabled')).toBe('true')
    await d.getByLabel('Spec file').scrollIntoViewIfNeeded()
    await shoot('inline-error')

    await d.getByLabel('Spec file').fill('specs/shop.md')
    await pathError.waitFor({ state: 'detached' })
    await spec.getByText('new file', { exact: true }).waitFor()
    await d.getByLabel('Name').fill('Write app.js')
    await d.getByLabel('Acceptance criteria').fill('DET: `test -f app.js`')
    await d.getByLabel('Spec text').fill('# Shop\n\nA tiny shop: app.js greets the visitor.\n')
    await shoot('task-dialog-spec')

    // The body scrolls; the buttons stay on screen.
    const add = d.getByRole('button', { name: 'Add task' })
    const box = await add.boundingBox()
    expect(box).not.toBeNull()
    expect(box!.y + box!.height).toBeLessThanOrEqual(700)
    expect(box!.y).toBeGreaterThanOrEqual(0)

    await add.click()
    await task('Write app.js').waitFor()
    expect(readFileSync(join(dir, 'specs', 'shop.md'), 'utf8')).toBe(
      '# Shop\n\nA tiny shop: app.js greets the visitor.\n',
    )
    expect(records()[0]).toEqual({ t: 'spec', spec: 'specs/shop.md' })
    expect(records().filter((r) => r.t === 'task')).toEqual([
      expect.objectContaining({ name: 'Write app.js', spec: 'specs/shop.md', s: 'p' }),
    ])
    expect(await panel().getByText('Spec: specs/shop.md').count()).toBe(1)
  })

  it('a backticked DET command runs in the sandbox and passes when the file exists; Accept names the task', async () => {
    // At the default window size, where the issue saw the chip collapse during a build (1024×700 is the layout's
    // own test: there the header's title column is narrower than the chip's count).
    await page.setViewportSize({ width: 1280, height: 820 })
    session.llm.enqueue(...attempt('app.js'))
    await panel().getByRole('combobox', { name: 'Build mode' }).selectOption('interactive')
    await panel().getByRole('button', { name: 'Build', exact: true }).click()
    await progress().getByText('Build running').waitFor({ timeout: 30_000 })
    // However crowded the header during a build, the chip keeps its count, and nothing overlaps it.
    const count = chip().locator('.user-git-changes')
    const countBox = await count.boundingBox()
    const chipBox = await chip().boundingBox()
    expect(countBox?.width ?? 0).toBeGreaterThan(20)
    expect(countBox!.x + countBox!.width).toBeLessThanOrEqual(chipBox!.x + chipBox!.width + 1)
    const brainstorm = await page.getByRole('link', { name: 'Brainstorm', exact: true }).boundingBox()
    expect(apart(chipBox!, brainstorm!)).toBe(true)
    expect(await count.textContent()).toMatch(/changed|clean/)
    await shoot('git-chip-build')

    const approval = progress().getByRole('group', { name: 'Approval' })
    await approval.waitFor({ timeout: 90_000 })
    expect(await approval.textContent()).toContain('“Write app.js” passed verification')
    const verdicts = progress().getByRole('list', { name: 'Live verdicts' })
    await verdicts.getByRole('listitem', { name: 'AC1 YES' }).waitFor({ timeout: 30_000 })
    expect(await verdicts.getByRole('listitem', { name: 'AC1 YES' }).textContent()).toContain(
      '`test -f app.js` passed.',
    )
    expect(existsSync(join(dir, 'app.js'))).toBe(true)
    // What the attempt changed is part of the question (issue 37): its files, and its diff in Compare.
    const changed = approval.getByRole('list', { name: 'Files this attempt changed' })
    await changed.getByRole('button', { name: 'Open the diff of app.js' }).waitFor({ timeout: 30_000 })
    expect(await changed.getByRole('listitem').count()).toBe(1)
    await approval.scrollIntoViewIfNeeded()
    await shoot('approval-changes')
    await approval.getByRole('button', { name: 'Show the diff' }).click()
    const compare = page.getByRole('dialog', { name: /^Compare task-\d+-pre → task-\d+-post$/ })
    // The attempt's range, its one file chosen: Monaco's diff editor (a lazy chunk) shows it.
    await compare.getByRole('list', { name: 'Changed files' }).getByText('app.js').waitFor()
    await compare.getByTestId('compare-editor').waitFor({ timeout: 90_000 })
    await compare.getByText('console.log("hi")').first().waitFor({ timeout: 30_000 })
    await shoot('approval-diff')
    await page.keyboard.press('Escape')
    await compare.waitFor({ state: 'detached' })
    await approval.waitFor()

    // Reject is one step: the reason beside it, Enter sends; the task is pending again with the reason.
    await approval.getByRole('textbox', { name: 'Why reject Write app.js?' }).fill('Greet by name')
    await approval.getByRole('textbox', { name: 'Why reject Write app.js?' }).press('Enter')
    await task('Write app.js').getByText('Greet by name').waitFor({ timeout: 60_000 })
    await expect
      .poll(() => records().find((r) => r.t === 'reject'))
      .toMatchObject({ t: 'reject', reason: 'Greet by name' })
    await progress().getByText('Last build').waitFor({ timeout: 60_000 })

    // Built again, and this time decided later: the build pauses with the task done, the panel says what to
    // click, not what to type.
    // The next attempt changes app.js again (an attempt that changes nothing fails its changes-made gate).
    session.llm.enqueue(
      parsed({ type: 'mutation', title: 'Write app.js' }),
      tools(
        ['write_file', { path: 'app.js', content: 'console.log("hi, you")\n' }],
        ['mark_complete', { summary: 'Greets by name.' }],
      ),
    )
    const build = panel().getByRole('button', { name: 'Build', exact: true })
    await expect.poll(() => build.getAttribute('aria-disabled'), { timeout: 30_000 }).toBeNull()
    await build.click()
    await approval.getByRole('button', { name: 'Decide later' }).click({ timeout: 90_000 })
    await progress().getByText('Last build').waitFor({ timeout: 60_000 })
    const paused = (await progress().textContent()) ?? ''
    expect(paused).toContain('Accept or reject it with its buttons in the queue, then click Build again.')
    expect(paused).not.toMatch(/ralph (task|build)/)
    expect(await panelText()).not.toMatch(/`ralph |ralph task accept/)
    // Nor anywhere else on the page (the chat's build strip, the header's badge).
    expect(await page.locator('body').textContent()).not.toMatch(/`ralph |ralph task accept|ralph build/)

    const accept = task('Write app.js').getByRole('button', { name: 'Accept' })
    await accept.dblclick()
    const toast = page.locator('[data-sonner-toast]').filter({ hasText: 'Accepted “Write app.js”' })
    await toast.waitFor()
    await shoot('accept-toast')
    await task('Write app.js').waitFor({ state: 'detached' })
    expect(
      await page
        .locator('[data-sonner-toast]')
        .filter({ hasText: /Accepted t-/ })
        .count(),
    ).toBe(0)
    await page.setViewportSize({ width: 1024, height: 700 })
    // One acceptance, not two: the double click acted once (the second would have been refused as not done).
    expect(
      await page
        .locator('[data-sonner-toast]')
        .filter({ hasText: /Could not accept/ })
        .count(),
    ).toBe(0)
  })

  it('the same DET command fails when its file does not exist', async () => {
    await panel().getByRole('button', { name: 'Add task', exact: true }).click()
    const d = dialog()
    await d.getByLabel('Name').fill('Write other.js')
    await d.getByLabel('Acceptance criteria').fill('DET: `test -f other.js`')
    await d.getByRole('button', { name: 'Add task' }).click()
    await task('Write other.js').waitFor()
    // The model writes the wrong file; its second attempt hangs until the build is stopped.
    session.llm.enqueue(...attempt('wrong.js'), parsed({ type: 'fresh', title: 'Write other.js' }), {
      kind: 'hang',
    })
    await panel().getByRole('combobox', { name: 'Build mode' }).selectOption('hybrid')
    await panel().getByRole('button', { name: 'Build', exact: true }).click()
    await progress().getByText('Attempt 2 of 3').waitFor({ timeout: 90_000 })
    // Stop once the second attempt hangs on its request: the label shows before its parse is asked for, and a
    // reply left in the script would answer the next test's first request.
    await expect.poll(() => session.llm.pending(), { timeout: 90_000 }).toBe(0)
    await panel().getByRole('button', { name: 'Stop' }).click()
    await progress().getByText('Build stopped.').waitFor({ timeout: 60_000 })
    const verdict = built('Write other.js')
      .getByRole('list', { name: 'Verdicts' })
      .getByRole('listitem', { name: 'AC1 NO' })
    await verdict.waitFor({ timeout: 30_000 })
    expect(await verdict.textContent()).toContain('`test -f other.js` exited with 1')
    // The failed attempt shows what it changed, beside its verdicts (issue 37).
    await built('Write other.js')
      .getByRole('list', { name: 'Files this attempt changed' })
      .getByRole('button', { name: 'Open the diff of wrong.js' })
      .waitFor({ timeout: 30_000 })
    expect(existsSync(join(dir, 'other.js'))).toBe(false)
    expect(records().filter((r) => r.t === 'task')).toEqual([
      expect.objectContaining({ name: 'Write other.js', s: 'p' }),
    ])
  })

  it('edits the spec’s text from a task’s dialog, leaving the task as it was', async () => {
    const before = readFileSync(join(dir, '.ralph', 'plan.jsonl'), 'utf8')
    await task('Write other.js').getByRole('button', { name: 'Edit' }).click()
    const d = page.getByRole('dialog', { name: 'Edit Write other.js' })
    await d.getByRole('button', { name: 'Edit spec' }).click()
    const text = d.getByLabel('Spec text')
    await expect.poll(() => text.inputValue()).toBe('# Shop\n\nA tiny shop: app.js greets the visitor.\n')
    await text.fill('# Shop\n\nA tiny shop: app.js greets the visitor; other.js says goodbye.\n')
    await d.getByRole('button', { name: 'Save' }).click()
    await d.waitFor({ state: 'detached' })
    expect(readFileSync(join(dir, 'specs', 'shop.md'), 'utf8')).toBe(
      '# Shop\n\nA tiny shop: app.js greets the visitor; other.js says goodbye.\n',
    )
    expect(readFileSync(join(dir, '.ralph', 'plan.jsonl'), 'utf8')).toBe(before)
  })

  it('a question on a task card offers its answers as quick replies; the answer shows under the question', async () => {
    // At 1024×700 the side panel lies over the chat: the chat is shown alone there.
    await page.setViewportSize({ width: 1024, height: 700 })
    // (a drawer there, open while the address names a panel: its own ✕ closes it). The narrow layout first, so
    // whether the drawer is open is read once the page has settled into it.
    await page.locator('.project-layout-overlay').waitFor()
    const drawer = page.getByTestId('side-overlay')
    if (await drawer.isVisible()) {
      await page.getByRole('button', { name: 'Close side panel' }).click()
      await drawer.waitFor({ state: 'detached' })
    }
    const question = 'Greet in English only, or in English and French?'
    session.llm.enqueue(
      parsed({
        type: 'needs-clarification',
        title: 'Greeting languages',
        requirements: [],
        clarification: question,
        clarificationOptions: ['English only', 'English and French'],
      }),
      parsed({ type: 'mutation', title: 'Greeting languages' }),
      tools(
        ['write_file', { path: 'greet.txt', content: 'Hello\nBonjour\n' }],
        ['mark_complete', { summary: 'Greets in English and French.' }],
      ),
    )
    const log = page.getByRole('log', { name: 'Conversation' })
    const box = page.getByRole('textbox', { name: 'Message' })
    await box.fill('greet visitors in their language')
    await page.getByRole('button', { name: 'Send' }).click()
    const card = log.getByRole('article', { name: /: Greeting languages$/ })
    await card.getByText('Waiting for your answer', { exact: true }).waitFor({ timeout: 30_000 })
    const replies = card.getByRole('group', { name: 'Quick replies' })
    await replies.getByRole('button', { name: 'English and French' }).waitFor()
    await card.scrollIntoViewIfNeeded()
    await shoot('quick-replies')
    // The composer's answer banner offers the same replies: one click there answers too.
    const inComposer = page
      .getByTestId('composer-intent')
      .getByRole('group', { name: /^Quick replies to task \d+’s question$/ })
    expect(await inComposer.getByRole('button').allTextContents()).toEqual([
      'English only',
      'English and French',
    ])
    await shoot('composer-replies')
    await inComposer.getByRole('button', { name: 'English and French' }).click()
    await card.getByText('Complete', { exact: true }).waitFor({ timeout: 60_000 })
    expect(readFileSync(join(dir, 'greet.txt'), 'utf8')).toBe('Hello\nBonjour\n')
    // The answer sits under its question on the card, not below the finished card as a message of its own.
    const qa = card.getByRole('list', { name: 'Questions and answers' })
    await qa.getByText('You answered: English and French').waitFor()
    expect(await qa.textContent()).toContain(`Ralph asked: ${question}`)
    expect(await card.getByRole('group', { name: 'Quick replies' }).count()).toBe(0)
    expect(await log.locator('.chat-user').filter({ hasText: 'English and French' }).count()).toBe(0)
    await card.scrollIntoViewIfNeeded()
    await shoot('answered-question')
    await page.getByRole('button', { name: 'Show side panel' }).click()
  })
})
