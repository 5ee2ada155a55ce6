import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
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

  beforeAll(async () => {
    session = await startAppSession('bakery')
    ;({ llm, host, page, dir, projectId } = session)
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
      .getByText(/^Undid the rollback to /)
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
    await list.getByRole('listitem', { name: /^task-1-post,/ }).waitFor()
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
    await toast().getByRole('button', { name: 'Undo' }).click()
    await expect.poll(() => existsSync(file('prices.html'))).toBe(true)
  }, 90_000)
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
  }, 90_000)
})
