import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FakeLlmServer } from '../fixtures/fakeLlmServer'
import { shootThemes } from '../helpers/browser'
import { startAppSession, type AppSession } from '../helpers/appSession'
import type { WebHost } from '../helpers/webHost'

// Issue #26 in the timeline, in Chromium against the real web host: one click one action, an Undo that names
// where it goes, named snapshots, Ralph's own files apart, Compare full size, and a toolbar that holds at any size.
describe('timeline: trust and flow (#26)', { timeout: 150_000 }, () => {
  let session: AppSession
  let llm: FakeLlmServer
  let host: WebHost
  let page: Page
  let dir: string
  let projectId: number

  const APP = 'export const total = (items) => items.reduce((n, i) => n + i.price, 0)\n'
  const STYLE = 'body {\n  font-family: serif;\n  color: #333;\n}\n'
  const shoot = (name: string) => shootThemes(page, `timeline-${name}`)
  const file = (name: string) => join(dir, name)
  const call = (name: string, input: unknown) => session.call(name, input)
  const snapshots = async () =>
    (await call('snapshots.list', { projectId, limit: 1000 })).value.items as {
      tag: string
      kind: string
      message: string
    }[]
  const safetyCount = async () => (await snapshots()).filter((s) => s.kind === 'safety').length
  const toasts = () => page.locator('[data-sonner-toast]')
  const timeline = () => page.goto(`${host.origin}/#/project/${projectId}?panel=timeline`)

  beforeAll(async () => {
    session = await startAppSession('shop', { 'index.html': '<h1>Shop</h1>\n' })
    ;({ llm, host, page, dir, projectId } = session)
    // A task that writes the user's two files; Ralph's own state under .ralph/ changes with it.
    llm.enqueue(
      {
        kind: 'json',
        value: {
          type: 'mutation',
          title: 'Add the basket',
          requirements: [{ marker: 'ADD', description: 'a basket', count: null }],
          scope: { preserve: [], affectedFiles: ['app.js', 'style.css'] },
          clarification: null,
        },
      },
      {
        kind: 'tools',
        calls: [
          { name: 'write_file', arguments: { path: 'app.js', content: APP } },
          { name: 'write_file', arguments: { path: 'style.css', content: STYLE } },
        ],
      },
      { kind: 'tools', calls: [{ name: 'mark_complete', arguments: { summary: 'Added the basket.' } }] },
    )
    await timeline()
    const box = page.getByRole('textbox', { name: 'Message' })
    await box.fill('add a basket')
    await box.press('Control+Enter')
    await page
      .getByRole('log', { name: 'Conversation' })
      .getByRole('article', { name: 'Task 1: Add the basket' })
      .getByText('Complete', { exact: true })
      .waitFor({ timeout: 60_000 })
    expect(readFileSync(file('app.js'), 'utf8')).toBe(APP)
  }, 120_000)

  afterAll(() => session?.close())

  it('a double-clicked Roll back makes one safety snapshot; Undo names it and brings the task’s exact files back', async () => {
    const list = page.getByRole('list', { name: 'Snapshots' })
    await list
      .getByRole('listitem', { name: /^task-1-pre,/ })
      .getByRole('button', { name: 'Roll back' })
      .click()
    const dialog = page.getByRole('alertdialog', { name: 'Roll back to task-1-pre' })
    const headline = dialog.getByTestId('rollback-headline')
    await headline.waitFor()
    // The user's two files first, counted alone; Ralph's own files in a collapsed group after them, with a count.
    expect(await headline.textContent()).toBe('2 of your files change: 2 deleted.')
    const deleted = dialog.getByRole('list', { name: 'Deleted', exact: true })
    expect(await deleted.getByRole('listitem').allTextContents()).toEqual(['app.js', 'style.css'])
    const own = dialog.getByTestId('ralph-own-files')
    expect(await own.locator('summary').textContent()).toMatch(/^Ralph’s own files \(\d+\)$/)
    expect(await own.getAttribute('open')).toBeNull()
    const texts = await dialog.getByTestId('rollback-preview').innerText()
    expect(texts.indexOf('app.js')).toBeLessThan(texts.indexOf('Ralph’s own files'))
    expect(texts).not.toContain('.ralph/')
    await shoot('rollback-preview')
    await own.locator('summary').click()
    await own
      .getByText(/^\.ralph\//)
      .first()
      .waitFor()
    await shoot('rollback-preview-ralph-open')

    expect(await safetyCount()).toBe(0)
    await dialog.getByRole('button', { name: 'Roll back' }).dblclick()
    const rolled = toasts().filter({ hasText: 'Rolled back to task-1-pre' })
    await rolled.waitFor()
    await dialog.waitFor({ state: 'detached' })
    expect(existsSync(file('app.js'))).toBe(false)
    expect(existsSync(file('style.css'))).toBe(false)
    expect(await safetyCount()).toBe(1)
    const safety = (await snapshots()).find((s) => s.kind === 'safety')!
    // The toast names what Undo returns to: the safety snapshot, by its time.
    const description = await rolled.locator('[data-description]').textContent()
    expect(description).toMatch(
      /^2 of your files changed \(and \d+ of Ralph’s own\)\. Undo: back to the files as they were before rolling back to before Task 1 \(safety snapshot \d{1,2}:\d{2}( [AP]M)?\)\.$/,
    )
    await shoot('undo-toast')

    await rolled.getByRole('button', { name: 'Undo' }).dblclick()
    const undone = toasts().filter({ has: page.locator('[data-title]', { hasText: /^Undo: back to/ }) })
    await undone.waitFor()
    expect(await undone.locator('[data-title]').textContent()).toMatch(
      /^Undo: back to the files as they were before rolling back to before Task 1 \(safety snapshot \d{1,2}:\d{2}( [AP]M)?\)$/,
    )
    expect(await undone.locator('[data-description]').textContent()).toMatch(/^2 of your files changed/)
    await shoot('undo-done')
    // The exact files of the task, and one undo: the rollback's safety snapshot and the undo's own, no third.
    expect(readFileSync(file('app.js'), 'utf8')).toBe(APP)
    expect(readFileSync(file('style.css'), 'utf8')).toBe(STYLE)
    expect(readFileSync(file('index.html'), 'utf8')).toBe('<h1>Shop</h1>\n')
    expect(await safetyCount()).toBe(2)
    const after = (await snapshots()).filter((s) => s.kind === 'safety')
    expect(after.map((s) => s.message)).toContain(`Before rolling back to ${safety.tag}`)
  })

  it('Save snapshot asks for a name: Enter saves it (the timeline shows it, search finds it), Esc cancels', async () => {
    const before = (await snapshots()).length
    await page.getByRole('button', { name: 'Save snapshot' }).click()
    const prompt = page.getByRole('dialog', { name: 'Save a snapshot' })
    const name = prompt.getByRole('textbox', { name: 'Name (optional)' })
    await name.fill('Before the new basket layout')
    await shoot('name-prompt')
    await name.press('Enter')
    await prompt.waitFor({ state: 'detached' })
    await toasts()
      .filter({ hasText: /^Saved “Before the new basket layout” as manual-\d+/ })
      .waitFor()
    const list = page.getByRole('list', { name: 'Snapshots' })
    await list.getByRole('listitem', { name: /, Before the new basket layout,/ }).waitFor()
    expect((await snapshots()).length).toBe(before + 1)
    await page.getByRole('searchbox', { name: 'Search snapshots' }).fill('basket layout')
    await page.getByText('1 match').waitFor()
    await expect.poll(() => list.getByRole('listitem').count()).toBe(1)
    await page.getByRole('searchbox', { name: 'Search snapshots' }).fill('')

    await page.getByRole('button', { name: 'Save snapshot' }).click()
    await name.fill('never saved')
    await name.press('Escape')
    await prompt.waitFor({ state: 'detached' })
    expect((await snapshots()).length).toBe(before + 1)
    expect((await snapshots()).some((s) => s.message === 'never saved')).toBe(false)
  })

  /** The text of one side of the Compare editor (Monaco renders spaces as no-break spaces). */
  const side = (scope: ReturnType<Page['getByRole']>, which: 'original' | 'modified') =>
    scope
      .getByTestId('compare-editor')
      .locator(`.editor.${which} .view-lines`)
      .first()
      .innerText()
      .then((t) => t.replace(/\u00a0/g, ' '))

  it('Compare lists the user’s files first and Ralph’s apart, and opens full size, inline or side by side', async () => {
    await page
      .getByRole('log', { name: 'Conversation' })
      .getByRole('article', { name: 'Task 1: Add the basket' })
      .getByRole('button', { name: 'Compare' })
      .click()
    const files = page.getByRole('list', { name: 'Changed files' })
    await files.getByRole('listitem', { name: /^app\.js, added/ }).waitFor({ timeout: 30_000 })
    expect(await files.getByRole('listitem').count()).toBe(2)
    expect(await page.getByTestId('compare-summary').textContent()).toBe('2 files changed: 2 added')
    const own = page.getByTestId('ralph-own-files')
    expect(await own.locator('summary').textContent()).toMatch(/^Ralph’s own files \(\d+\)$/)
    expect(await own.getAttribute('open')).toBeNull()
    await files
      .getByRole('listitem', { name: /^app\.js/ })
      .getByRole('button')
      .click()

    await page.getByRole('button', { name: 'Open full size' }).click()
    const full = page.getByRole('dialog', { name: 'Compare task-1-pre → task-1-post' })
    await full.waitFor()
    // Side by side by default full size; the side panel stays inline.
    expect(await full.getByRole('radio', { name: 'Side by side' }).getAttribute('aria-checked')).toBe('true')
    await expect.poll(() => side(full, 'modified'), { timeout: 60_000 }).toContain('reduce')
    const box = await full.boundingBox()
    const viewport = page.viewportSize()!
    expect(box!.width).toBeGreaterThan(viewport.width * 0.85)
    expect(box!.height).toBeGreaterThan(viewport.height * 0.8)
    await shoot('compare-full-side-by-side')
    await full.getByRole('radio', { name: 'Inline' }).click()
    // Inline: the modified side takes the editor's whole width (Monaco keeps the original's element, empty).
    const widthOf = (css: string) =>
      full
        .locator(css)
        .first()
        .evaluate((el) => el.getBoundingClientRect().width)
    await expect
      .poll(
        async () => (await widthOf('.editor.modified')) / (await widthOf('[data-testid="compare-editor"]')),
      )
      .toBeGreaterThan(0.9)
    await expect.poll(() => full.getByTestId('compare-editor').innerText()).toContain('reduce')
    await shoot('compare-full-inline')
    expect(await page.evaluate("localStorage.getItem('ralph.compare.fullLayout')")).toBe('inline')
    await page.keyboard.press('Escape')
    await full.waitFor({ state: 'detached' })
    await page.getByRole('button', { name: 'Back to the timeline' }).waitFor()

    // The choice outlives a reload.
    await page.reload()
    await page
      .getByRole('log', { name: 'Conversation' })
      .getByRole('article', { name: 'Task 1: Add the basket' })
      .getByRole('button', { name: 'Compare' })
      .click()
    await page.getByRole('button', { name: 'Open full size' }).click()
    expect(await full.getByRole('radio', { name: 'Inline' }).getAttribute('aria-checked')).toBe('true')
    await page.keyboard.press('Escape')
    await full.waitFor({ state: 'detached' })
    await page.getByRole('button', { name: 'Back to the timeline' }).click()
  })

  it('the timeline’s toolbar holds at 1024×700, 1440×900 and 2560×1440: Save snapshot is never clipped', async () => {
    for (const [width, height] of [
      [1024, 700],
      [1440, 900],
      [2560, 1440],
    ] as const) {
      await page.setViewportSize({ width, height })
      await timeline()
      await page.getByRole('list', { name: 'Snapshots' }).waitFor()
      const save = page.getByRole('button', { name: 'Save snapshot' })
      await save.waitFor()
      await shoot(`at-${width}x${height}`)
      const panel = page.locator('.side-panel')
      const [b, p] = [await save.boundingBox(), await panel.boundingBox()]
      expect(b!.x).toBeGreaterThanOrEqual(p!.x)
      expect(b!.x + b!.width).toBeLessThanOrEqual(p!.x + p!.width + 0.5)
      expect(b!.width).toBeGreaterThan(20)
      const overflow = await page
        .locator('.timeline-toolbar')
        .evaluate((el) => el.scrollWidth - el.clientWidth)
      expect(overflow).toBeLessThanOrEqual(0)
      // Where the panel is too narrow for its label (at 1024 px the panel is a 400 px drawer, which has room),
      // Save snapshot is its icon, named and with a tooltip (its title).
      if ((await save.innerText()) === '') expect(await save.getAttribute('title')).toMatch(/^Save snapshot/)
    }
    // Compare in the narrow panel: its controls wrap inside it, inline.
    await page.setViewportSize({ width: 1024, height: 700 })
    await page
      .getByRole('log', { name: 'Conversation' })
      .getByRole('article', { name: 'Task 1: Add the basket' })
      .getByRole('button', { name: 'Compare' })
      .click()
    const files = page.getByRole('list', { name: 'Changed files' })
    await files
      .getByRole('listitem', { name: /^style\.css/ })
      .getByRole('button')
      .click()
    await expect
      .poll(() => page.getByTestId('compare-editor').innerText(), { timeout: 60_000 })
      .toContain('serif')
    expect(await page.getByRole('radio', { name: 'Inline' }).getAttribute('aria-checked')).toBe('true')
    const controls = await page.locator('.compare-controls').evaluate((el) => el.scrollWidth - el.clientWidth)
    expect(controls).toBeLessThanOrEqual(0)
    await shoot('compare-panel-at-1024x700')
    await page.getByRole('button', { name: 'Back to the timeline' }).click()
    await page.setViewportSize({ width: 1280, height: 820 })
  })
})
