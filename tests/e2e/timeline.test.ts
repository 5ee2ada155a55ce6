import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FakeLlmServer } from '../fixtures/fakeLlmServer'
import { shootThemes } from '../helpers/browser'
import { startAppSession, type AppSession } from '../helpers/appSession'
import type { WebHost } from '../helpers/webHost'

// The snapshot timeline in Chromium against the real `npm run web`: save, roll back through the dialog, undo.
describe('timeline in Chromium', { timeout: 120_000 }, () => {
  let session: AppSession
  let llm: FakeLlmServer
  let host: WebHost
  let page: Page
  let dir: string
  let projectId: number

  const call = (name: string, input: unknown) => session.call(name, input)
  const shoot = (name: string) => shootThemes(page, `timeline-${name}`)
  const file = (name: string) => join(dir, name)
  // The rollback's toast (sonner), not the chat's notice of the same rollback.
  const toast = () => page.locator('[data-sonner-toast]').filter({ hasText: 'Rolled back to' })

  // Errors the page throws or logs (Monaco reports a model disposed too early this way): none are expected.
  const pageErrors: string[] = []

  beforeAll(async () => {
    session = await startAppSession('bakery')
    ;({ llm, host, page, dir, projectId } = session)
    page.on('pageerror', (err) => pageErrors.push(err.message))
    page.on('console', (msg) => {
      if (msg.type() === 'error') pageErrors.push(msg.text())
    })
  })

  afterAll(() => session?.close())

  it('rolls back to an earlier snapshot through the preview dialog, then Undo brings the later state back', async () => {
    writeFileSync(file('index.html'), '<h1>Bread</h1>\n')
    const first = await call('snapshots.save', { projectId, kind: 'manual', message: 'just bread' })
    expect(first.ok).toBe(true)
    writeFileSync(file('index.html'), '<h1>Bread and cakes</h1>\n')
    writeFileSync(file('cakes.html'), '<p>Lemon drizzle</p>\n')
    const second = await call('snapshots.save', { projectId, kind: 'manual', message: 'cakes too' })
    expect(second.ok).toBe(true)
    const firstTag = first.value.tag as string
    const secondTag = second.value.tag as string
    expect(secondTag).not.toBe(firstTag)

    await page.goto(`${host.origin}/#/project/${projectId}?panel=timeline`)
    const list = page.getByRole('list', { name: 'Snapshots' })
    const item = (tag: string) => list.getByRole('listitem', { name: new RegExp(`^${tag},`) })
    await item(firstTag).waitFor()
    await item(secondTag).waitFor()
    expect(await item(secondTag).textContent()).toContain('cakes too')
    await page
      .getByTestId('working-copy')
      .filter({ hasText: `No changes since ${secondTag}` })
      .waitFor()
    await shoot('01-list')

    await item(firstTag).getByRole('button', { name: 'Roll back' }).click()
    const dialog = page.getByRole('alertdialog', { name: `Roll back to ${firstTag}` })
    await dialog.getByRole('list', { name: 'Overwritten' }).getByText('index.html').waitFor()
    await dialog.getByRole('list', { name: 'Deleted' }).getByText('cakes.html').waitFor()
    expect(await dialog.textContent()).toContain('Undo brings everything back.')
    await shoot('02-dialog')

    await dialog.getByRole('button', { name: 'Roll back' }).click()
    await toast().getByText(`Rolled back to ${firstTag}`, { exact: true }).waitFor()
    await dialog.waitFor({ state: 'detached' })
    expect(readFileSync(file('index.html'), 'utf8')).toBe('<h1>Bread</h1>\n')
    expect(existsSync(file('cakes.html'))).toBe(false)
    await list.getByRole('listitem', { name: /^safety-/ }).waitFor()
    await item(firstTag).getByText('current').waitFor()
    await shoot('03-rolled-back')

    await toast().getByRole('button', { name: 'Undo' }).click()
    await page
      .locator('[data-sonner-toast]')
      .getByText(/^Undo: back to the files as they were before rolling back to /)
      .waitFor()
    await expect.poll(() => readFileSync(file('index.html'), 'utf8')).toBe('<h1>Bread and cakes</h1>\n')
    expect(readFileSync(file('cakes.html'), 'utf8')).toBe('<p>Lemon drizzle</p>\n')
  }, 90_000)

  it('groups a task’s snapshots under its header, and the task card rolls back to before the task', async () => {
    llm.enqueue(
      {
        kind: 'json',
        value: {
          type: 'mutation',
          title: 'Add a price list',
          requirements: [{ marker: 'ADD', description: 'a price list', count: null }],
          scope: { preserve: [], affectedFiles: ['prices.html'] },
          clarification: null,
        },
      },
      {
        kind: 'tools',
        calls: [{ name: 'write_file', arguments: { path: 'prices.html', content: '<p>Loaf £3</p>\n' } }],
      },
      { kind: 'tools', calls: [{ name: 'mark_complete', arguments: { summary: 'Added prices.html.' } }] },
    )
    const box = page.getByRole('textbox', { name: 'Message' })
    await box.fill('add a price list')
    await box.press('Control+Enter')
    const card = page
      .getByRole('log', { name: 'Conversation' })
      .getByRole('article', { name: 'Task 1: Add a price list' })
    await card.getByText('Complete', { exact: true }).waitFor({ timeout: 30_000 })
    expect(readFileSync(file('prices.html'), 'utf8')).toBe('<p>Loaf £3</p>\n')

    const list = page.getByRole('list', { name: 'Snapshots' })
    const post = list.getByRole('listitem', { name: /^task-1-post,/ })
    await post.waitFor()
    // The row counts the user's one file; Ralph's own (.ralph/) are a separate, quieter count (#26).
    expect(await post.getAttribute('aria-label')).toMatch(/, 1 file added, and \d+ files? of Ralph’s own$/)
    expect((await post.locator('.snapshot-counts').textContent())!.replace(/\s+/g, ' ').trim()).toBe(
      '1 file added · and Ralph’s own files',
    )
    await list.getByRole('listitem', { name: /^task-1-pre,/ }).waitFor()
    await list.getByText('Task 1', { exact: true }).waitFor()
    await page.getByRole('radio', { name: 'Tasks only' }).click()
    await expect.poll(() => list.getByRole('listitem').count()).toBe(2)
    await shoot('04-tasks-only')
    await page.getByRole('radio', { name: 'Everything' }).click()

    await card.getByRole('button', { name: 'Roll back to before this task' }).click()
    const dialog = page.getByRole('alertdialog', { name: 'Roll back to task-1-pre' })
    await dialog.getByRole('list', { name: 'Deleted' }).getByText('prices.html').waitFor()
    await dialog.getByRole('button', { name: 'Roll back' }).click()
    await toast().getByText('Rolled back to task-1-pre', { exact: true }).waitFor()
    expect(existsSync(file('prices.html'))).toBe(false)
    // The card no longer looks done (issue 37): it says its changes are gone and offers the ways back, for as
    // long as the rollback is the last thing that happened (not only the toast's lifetime).
    const note = card
      .getByRole('note')
      .filter({ hasText: 'Rolled back — these changes are no longer on disk.' })
    await note.waitFor()
    await expect.poll(() => card.getAttribute('class')).toContain('task-card-rolled-back')
    // Its badge says so too: Rolled back, not Complete.
    await card.locator('.badge').getByText('Rolled back', { exact: true }).waitFor()
    expect(await card.getByText('Complete', { exact: true }).count()).toBe(0)
    // The timeline offers the same Undo beside the working copy.
    await page.getByTestId('working-copy').getByRole('button', { name: 'Undo rollback' }).waitFor()
    await card.scrollIntoViewIfNeeded()
    await shoot('05-card-rolled-back')
    await note.getByRole('button', { name: 'Undo rollback' }).click()
    await expect.poll(() => existsSync(file('prices.html'))).toBe(true)
    await note.waitFor({ state: 'detached' })
    // Undone: the task's work is back, and so is its Complete.
    await card.locator('.badge').getByText('Complete', { exact: true }).waitFor()
    expect(await card.getByText('Rolled back', { exact: true }).count()).toBe(0)
    await card.scrollIntoViewIfNeeded()
    await shoot('05b-card-undone')
    // An undo is itself a rollback to the safety snapshot: it can be undone again (back to before the task).
    await page.getByTestId('working-copy').getByRole('button', { name: 'Undo rollback' }).waitFor()

    // Again, and Restore: a rollback forward to the task's post snapshot, previewed like any other.
    await card.getByRole('button', { name: 'Roll back to before this task' }).click()
    await page
      .getByRole('alertdialog', { name: 'Roll back to task-1-pre' })
      .getByRole('button', { name: 'Roll back' })
      .click()
    await note.getByRole('button', { name: 'Restore' }).click()
    const restore = page.getByRole('alertdialog', { name: 'Roll back to task-1-post' })
    await restore.getByText('prices.html').first().waitFor()
    await restore.getByRole('button', { name: 'Roll back' }).click()
    await expect.poll(() => existsSync(file('prices.html'))).toBe(true)
    // The card reads the history again after the rollback's event. Its class is read from the card itself (a
    // count of its parts is also 0 while the list re-renders the card).
    await expect.poll(() => card.getAttribute('class')).not.toContain('task-card-rolled-back')
    expect(await note.count()).toBe(0)
    expect(await card.getByRole('button', { name: 'Undo rollback' }).count()).toBe(0)
  }, 120_000)
  /** The Compare view's Monaco diff editor: the text of its original (From) and modified (To) sides. */
  const diffSides = async () => {
    const editor = page.getByTestId('compare-editor')
    const text = (side: 'original' | 'modified') =>
      editor
        .locator(`.editor.${side} .view-lines`)
        .first()
        .innerText()
        // Monaco renders spaces as no-break spaces.
        .then((t) => t.replace(/\u00a0/g, ' '))
    return { original: await text('original'), modified: await text('modified') }
  }

  it('Compare on a timeline item lists the changed files against the snapshot before it and shows the diff', async () => {
    writeFileSync(file('menu.txt'), 'rye\nspelt\n')
    writeFileSync(file('bread.txt'), 'white\nbrown\nseeded\nbaguette\n')
    const before = await call('snapshots.save', { projectId, kind: 'manual', message: 'menu v1' })
    expect(before.ok).toBe(true)
    writeFileSync(file('menu.txt'), 'rye\nsourdough\n')
    writeFileSync(file('notes.md'), '# Notes\n\nOpen at seven.\n')
    rmSync(file('bread.txt'))
    writeFileSync(file('loaves.txt'), 'white\nbrown\nseeded\nbaguette\nrye\n')
    const after = await call('snapshots.save', { projectId, kind: 'manual', message: 'menu v2' })
    expect(after.ok).toBe(true)
    const beforeTag = before.value.tag as string
    const afterTag = after.value.tag as string

    await page.getByRole('tab', { name: 'Timeline' }).click()
    const item = page
      .getByRole('list', { name: 'Snapshots' })
      .getByRole('listitem', { name: new RegExp(`^${afterTag},`) })
    await item.getByRole('button', { name: 'Compare' }).click()

    await expect.poll(() => page.getByRole('combobox', { name: 'From' }).inputValue()).toBe(beforeTag)
    expect(await page.getByRole('combobox', { name: 'To' }).inputValue()).toBe(afterTag)
    const files = page.getByRole('list', { name: 'Changed files' })
    const menu = files.getByRole('listitem', { name: 'menu.txt, modified, 1 line added, 1 deleted' })
    await menu.waitFor({ timeout: 30_000 })
    await files.getByRole('listitem', { name: 'notes.md, added, 3 lines added, 0 deleted' }).waitFor()
    const renamed = files.getByRole('listitem', {
      name: 'loaves.txt, renamed, from bread.txt, 1 line added, 0 deleted',
    })
    await renamed.waitFor()
    expect(await files.getByRole('listitem').count()).toBe(3)
    expect(await menu.textContent()).toContain('+1 −1')
    await shoot('05-compare-files')

    await menu.getByRole('button').click()
    await page.getByRole('radio', { name: 'Side by side' }).click()
    await page
      .getByTestId('compare-editor')
      .locator('.editor.modified .view-lines')
      .first()
      .waitFor({ timeout: 60_000 })
    await expect
      .poll(diffSides, { timeout: 30_000 })
      .toEqual({ original: expect.stringContaining('spelt'), modified: expect.stringContaining('sourdough') })
    const sides = await diffSides()
    expect(sides.original).not.toContain('sourdough')
    expect(sides.modified).not.toContain('spelt')
    await shoot('06-compare-diff')

    // A renamed file: its old side is read where it was.
    await renamed.getByRole('button').click()
    await expect
      .poll(diffSides, { timeout: 30_000 })
      .toEqual({ original: expect.stringContaining('baguette'), modified: expect.stringContaining('rye') })
    expect((await diffSides()).original).not.toContain('rye')
  }, 90_000)

  it('the task card’s Compare opens the Compare view on that task’s pre → post', async () => {
    const card = page
      .getByRole('log', { name: 'Conversation' })
      .getByRole('article', { name: 'Task 1: Add a price list' })
    await card.getByRole('button', { name: 'Compare' }).click()
    await expect.poll(() => page.getByRole('combobox', { name: 'From' }).inputValue()).toBe('task-1-pre')
    expect(await page.getByRole('combobox', { name: 'To' }).inputValue()).toBe('task-1-post')
    expect(await page.getByRole('tab', { name: 'Timeline' }).getAttribute('aria-selected')).toBe('true')
    const prices = page
      .getByRole('list', { name: 'Changed files' })
      .getByRole('listitem', { name: /^prices\.html, added, 1 line added, 0 deleted/ })
    await prices.waitFor({ timeout: 30_000 })
    await prices.getByRole('button').click()
    await expect.poll(async () => (await diffSides()).modified, { timeout: 60_000 }).toContain('Loaf £3')
    await shoot('07-task-compare')
    // Switching files and leaving Compare dispose diff editors and their models, in the right order.
    expect(pageErrors.filter((e) => /disposed/i.test(e))).toEqual([])
  }, 90_000)
  it('searches the timeline’s messages', async () => {
    await page.getByRole('tab', { name: 'Timeline' }).click()
    await page.getByRole('button', { name: 'Back to the timeline' }).click()
    const search = page.getByRole('searchbox', { name: 'Search snapshots' })
    await search.fill('menu')
    const list = page.getByRole('list', { name: 'Snapshots' })
    await list.getByRole('listitem', { name: /, menu v2,/ }).waitFor()
    await list.getByRole('listitem', { name: /, menu v1,/ }).waitFor()
    await expect.poll(() => list.getByRole('listitem').count()).toBe(2)
    await page.getByText('2 matches').waitFor()
    await shoot('08-search')
    await search.fill('no such words anywhere')
    await page.getByText('No snapshot mentions “no such words anywhere”.').waitFor()
    await search.fill('')
    await expect.poll(() => list.getByRole('listitem').count()).toBeGreaterThan(2)
  }, 60_000)

  it('Clean up shows the store’s size, removes what its options say, and says what it freed', async () => {
    const storage = page.getByTestId('snapshot-storage')
    await storage.getByText(/ on disk$/).waitFor()
    await storage.getByRole('button', { name: 'Clean up' }).click()
    const dialog = page.getByRole('alertdialog', { name: 'Clean up snapshots' })
    // Every manual and safety snapshot here is minutes old: keep none older than 0 days beyond the newest 1.
    await dialog.getByLabel('Older than (days)').fill('0')
    await dialog.getByLabel('Keep the newest').fill('1')
    await dialog.getByText(/^Removes \d+ snapshots?:/).waitFor()
    const before = await call('snapshots.list', { projectId, limit: 1000 })
    await dialog.getByRole('button', { name: 'Clean up' }).click()
    const result = dialog.getByTestId('cleanup-result')
    await result.waitFor({ timeout: 60_000 })
    expect(await result.textContent()).toMatch(/^(Freed [\d.]+ [KM]?B \(|Nothing to free)/)
    await shoot('09-cleanup-result')
    const after = await call('snapshots.list', { projectId, limit: 1000 })
    const kinds = (r: typeof before) =>
      (r.value.items as { kind: string }[]).filter((s) => s.kind === 'manual' || s.kind === 'safety').length
    expect(kinds(after)).toBeLessThan(kinds(before))
    // Task snapshots always stay.
    expect((after.value.items as { tag: string }[]).map((s) => s.tag)).toEqual(
      expect.arrayContaining(['task-1-pre', 'task-1-post']),
    )
    await dialog.getByRole('button', { name: 'Done' }).click()
  }, 90_000)

  it('an interrupted rollback: the timeline says it was finished, or offers Finish rollback', async () => {
    // The state a rollback killed midway leaves (tests/integration/hostile/rollbackInterrupted.test.ts kills real
    // ones): some files already at the target, the others still as the safety snapshot has them, and its journal.
    const journalFile = join(dir, '.ralph', 'snapshots.git', 'ralph-rollback.json')
    const pages = ['menu.html', 'hours.html', 'about.html', 'contact.html']
    const killedMidway = async (startedAt: number) => {
      for (const p of pages) writeFileSync(file(p), `<p>${p}: before</p>\n`)
      const target = await call('snapshots.save', { projectId, kind: 'manual', message: 'pages before' })
      for (const p of pages) writeFileSync(file(p), `<p>${p}: after</p>\n`)
      const safety = await call('snapshots.save', { projectId, kind: 'manual', message: 'pages after' })
      expect(target.ok && safety.ok).toBe(true)
      for (const p of pages.slice(0, 2)) writeFileSync(file(p), `<p>${p}: before</p>\n`)
      const journal = {
        ...{ target: target.value.tag as string, targetCommit: target.value.commit as string },
        ...{ safetyTag: safety.value.tag as string, safetyCommit: safety.value.commit as string },
        ...{ startedAt, undo: false },
      }
      writeFileSync(journalFile, JSON.stringify(journal))
      return journal
    }
    const notice = page.getByTestId('rollback-notice')

    const finished = await killedMidway(Date.now())
    await page.goto(`${host.origin}/#/project/${projectId}?panel=timeline`)
    await page.reload()
    await notice
      .getByText(`A rollback to ${finished.target} was interrupted and has been finished.`, { exact: false })
      .waitFor()
    for (const p of pages) expect(readFileSync(file(p), 'utf8')).toBe(`<p>${p}: before</p>\n`)
    expect(existsSync(journalFile)).toBe(false)
    await shoot('11-rollback-finished')
    await notice.getByRole('button', { name: 'Dismiss' }).click()
    await notice.waitFor({ state: 'detached' })
    await expect
      .poll(async () => (await call('snapshots.status', { projectId })).value.rollbackNotice)
      .toBeNull()

    // A file the rollback does not explain: it cannot be finished on its own, and says so with a button.
    const waiting = await killedMidway(Date.now() + 1)
    writeFileSync(file('notes.txt'), 'written after the crash\n')
    await page.reload()
    const alert = page.getByRole('alert').filter({ hasText: 'was interrupted' })
    await alert
      .getByText(
        `A rollback to ${waiting.target} was interrupted: the project is partly at ${waiting.target}.`,
        {
          exact: false,
        },
      )
      .waitFor()
    expect(await alert.textContent()).toContain(
      'notes.txt changed since, and the rollback does not change it.',
    )
    await shoot('12-rollback-interrupted')
    await alert.getByRole('button', { name: 'Finish rollback' }).click()
    await page
      .locator('[data-sonner-toast]')
      .getByText(`Finished the rollback to ${waiting.target}`, { exact: true })
      .waitFor()
    await alert.waitFor({ state: 'detached' })
    for (const p of pages) expect(readFileSync(file(p), 'utf8')).toBe(`<p>${p}: before</p>\n`)
    expect(existsSync(file('notes.txt'))).toBe(false)
    expect(existsSync(journalFile)).toBe(false)
  })

  it('a 10,000-file project gets its baseline in the background with progress; the first task’s pre-snapshot is incremental', async () => {
    const big = join(dir, '..', 'ten-thousand')
    for (let d = 0; d < 100; d++) {
      mkdirSync(join(big, `src/d${d}`), { recursive: true })
      for (let f = 0; f < 100; f++)
        writeFileSync(
          join(big, `src/d${d}/f${f}.ts`),
          `export const v${f} = ${d * f}\n${'// pad\n'.repeat(40)}`,
        )
    }
    // Another process holds the store while the project opens (as `ralph snapshot save` would): the baseline waits
    // for it, deterministically showing in the status bar before it reads anything.
    mkdirSync(join(big, '.ralph'))
    const lockFile = join(big, '.ralph', 'snapshots.lock')
    writeFileSync(
      lockFile,
      JSON.stringify({ pid: process.pid, host: hostname(), op: 'e2e', startedAt: Date.now() }),
    )
    const progress: { phase: string; done: number; total: number | null }[] = []
    page.on('websocket', (ws) =>
      ws.on('framereceived', ({ payload }) => {
        const event = JSON.parse(String(payload)) as {
          name?: string
          payload?: { progress?: (typeof progress)[0] }
        }
        if (event.name === 'snapshot.baselineProgress' && event.payload?.progress)
          progress.push(event.payload.progress)
      }),
    )
    await page.goto(`${host.origin}/#/projects`)
    await page.reload()
    await page.getByLabel('Folder path').fill(big)
    await page.getByRole('button', { name: 'Open', exact: true }).click()
    const status = page.getByTestId('status-baseline')
    await status.getByText('Baseline snapshot: listing files…').waitFor({ timeout: 30_000 })
    expect(await status.getByRole('button', { name: 'Cancel' }).count()).toBe(1)
    await shoot('10-baseline-waiting')

    // A task sent meanwhile waits for the baseline instead of reading the 10,000 files itself.
    llm.enqueue(
      {
        kind: 'json',
        value: {
          type: 'mutation',
          title: 'Add a readme',
          requirements: [{ marker: 'ADD', description: 'a readme', count: null }],
          scope: { preserve: [], affectedFiles: ['README.md'] },
          clarification: null,
        },
      },
      {
        kind: 'tools',
        calls: [{ name: 'write_file', arguments: { path: 'README.md', content: '# Big\n' } }],
      },
      { kind: 'tools', calls: [{ name: 'mark_complete', arguments: { summary: 'Added README.md.' } }] },
    )
    const box = page.getByRole('textbox', { name: 'Message' })
    await box.fill('add a readme')
    await box.press('Control+Enter')
    rmSync(lockFile)
    await status.waitFor({ state: 'detached', timeout: 60_000 })
    const card = page
      .getByRole('log', { name: 'Conversation' })
      .getByRole('article', { name: 'Task 1: Add a readme' })
    await card.getByText('Complete', { exact: true }).waitFor({ timeout: 60_000 })

    // The progress events: files read of the estimated total, then saving.
    const reading = progress.filter((p) => p.phase === 'reading')
    expect(reading.length).toBeGreaterThan(0)
    expect(reading[0]!.total).toBeGreaterThanOrEqual(10_000)
    expect(progress.at(-1)).toMatchObject({ phase: 'saving' })

    const projects = await call('projects.list', {})
    const bigId = (projects.value as unknown as { id: number; path: string }[]).find(
      (p) => p.path === big,
    )!.id
    const list = await call('snapshots.list', { projectId: bigId })
    const items = list.value.items as { tag: string; added: number; modified: number; deleted: number }[]
    expect(items.map((s) => s.tag)).toEqual([
      'task-1-post',
      'task-1-pre',
      expect.stringMatching(/^baseline-\d+$/),
    ])
    expect(items[2]!.added).toBeGreaterThanOrEqual(10_000)
    // Incremental: the pre-task snapshot stored what changed since the baseline (the .ralph/ state), not every file.
    const pre = items[1]!
    expect(pre.added + pre.modified + pre.deleted).toBeLessThan(10)
  }, 120_000)
})
