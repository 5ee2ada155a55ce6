import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ScriptedReply } from '../fixtures/fakeLlmServer'
import { startAppSession, type AppSession } from '../helpers/appSession'
import { PAGE_TIMEOUT_MS, sharedChromium, shootThemes } from '../helpers/browser'
import { turn } from '../integration/brainstorm/fixtures'

// Issue #37's keyboard, layout and contrast checks in Chromium against the real `npm run web`: the keyboard-only
// main flow (open a project, type a task, send it, reach the card's Roll back, a dialog that opens on its first
// control and closes with one Esc, focus back on its opener, the "?" sheet), axe-core with no serious or critical
// violation on the project page with a card, Settings and the Queue in light and dark, and the 1024×700 window
// where the conversation keeps its height and the side panel is a drawer behind a toggle.

const AXE = 'node_modules/axe-core/axe.min.js'

interface Violation {
  id: string
  impact: string
  nodes: string[]
}

/** Tabs allowed from the message box back to the newest card's Roll back (Shift+Tab: the card sits just above). */
const TABS_TO_ROLL_BACK = 6

const task = (title: string, file: string): ScriptedReply[] => [
  {
    kind: 'json',
    value: {
      type: 'mutation',
      title,
      requirements: [{ marker: 'ADD', description: title, count: null }],
      scope: { preserve: [], affectedFiles: [file] },
      clarification: null,
    },
  },
  { kind: 'tools', calls: [{ name: 'write_file', arguments: { path: file, content: '<p>Loaf 3</p>\n' } }] },
  { kind: 'tools', calls: [{ name: 'mark_complete', arguments: { summary: `Added ${file}.` } }] },
]

describe('accessibility in Chromium', { timeout: 300_000 }, () => {
  let session: AppSession
  let page: Page
  let origin: string

  const box = () => page.getByRole('textbox', { name: 'Message' })
  const log = () => page.getByRole('log', { name: 'Conversation' })
  const card = () => log().getByRole('article', { name: 'Task 1: Add a price list' })
  const rollBack = () => card().getByRole('button', { name: 'Roll back to before this task' })
  /** What has focus: its role-ish tag and accessible name, for readable failures. */
  const focused = () =>
    page.evaluate(
      `(() => { const el = document.activeElement; return el ? el.tagName.toLowerCase() + ' ' + (el.getAttribute('aria-label') || el.textContent || '').trim().slice(0, 60) : 'none' })()`,
    ) as Promise<string>
  const hasFocus = (locator: ReturnType<Page['locator']>) =>
    locator.evaluate((el) => el === (el.ownerDocument as { activeElement: unknown }).activeElement)

  /** Sets the colour scheme and waits until the app has applied it and its colour transitions have ended. */
  const scheme = async (name: 'light' | 'dark') => {
    await page.emulateMedia({ colorScheme: name })
    await page.locator(`html[data-theme="${name}"]`).waitFor({ state: 'attached' })
    await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => resolve(null)))')
    await page.evaluate(
      'Promise.all(document.getAnimations().filter((a) => a instanceof CSSTransition).map((a) => a.finished.catch(() => null)))',
    )
  }

  /** axe-core over the whole page: its serious and critical violations, each with the nodes it names. */
  const axe = async (): Promise<Violation[]> => {
    if ((await page.evaluate('typeof window.axe')) !== 'object') await page.addScriptTag({ path: AXE })
    return page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ') + ': ' + n.failureSummary) })))`)
  }

  const noSeriousViolations = async (where: string) => {
    for (const name of ['light', 'dark'] as const) {
      await scheme(name)
      const found = await axe()
      expect(found, `${where}, ${name}: ${JSON.stringify(found, null, 1)}`).toEqual([])
    }
    await scheme('light')
  }

  beforeAll(async () => {
    session = await startAppSession('bakery', { 'index.html': '<h1>Bakery</h1>\n' })
    origin = session.host.origin
    // axe-core is injected as a script: this context lets it past the app's Content-Security-Policy.
    const context = await (
      await sharedChromium()
    ).newContext({ viewport: { width: 1440, height: 900 }, bypassCSP: true })
    context.setDefaultTimeout(PAGE_TIMEOUT_MS)
    page = await context.newPage()
    await page.goto(session.host.url)
    await page.waitForURL(`${origin}/`)
  })
  afterAll(async () => {
    await page?.context().close()
    await session?.close()
  })

  it('the main flow by keyboard alone: open, type, send, reach Roll back, a dialog and back, the "?" sheet', async () => {
    await page.goto(`${origin}/#/projects`)
    // Open the project from the sidebar with Enter: the message box has the keyboard.
    const link = page.getByRole('navigation').getByRole('link', { name: 'bakery' })
    await link.focus()
    await page.keyboard.press('Enter')
    await page.waitForURL(/#\/project\/\d+/)
    await expect.poll(() => hasFocus(box()), { timeout: 30_000 }).toBe(true)

    session.llm.enqueue(...task('Add a price list', 'prices.html'))
    await page.keyboard.type('add a price list')
    await page.keyboard.press('Control+Enter')
    await card().getByText('Complete', { exact: true }).waitFor({ timeout: 60_000 })
    await page.getByRole('button', { name: 'Stop' }).waitFor({ state: 'detached' })
    expect(await focused()).toBe('textarea Message')

    // The newest card sits just above the message box: a few Shift+Tabs reach its Roll back.
    let tabs = 0
    while (!(await hasFocus(rollBack())) && tabs < 60) {
      await page.keyboard.press('Shift+Tab')
      tabs++
    }
    expect(tabs, `stopped on ${await focused()}`).toBeLessThanOrEqual(TABS_TO_ROLL_BACK)

    // Its dialog opens on its first control (Cancel: nothing is rolled back by a stray Enter) and one Esc closes it.
    await page.keyboard.press('Enter')
    const dialog = page.getByRole('alertdialog', { name: 'Roll back to task-1-pre' })
    await dialog.getByTestId('rollback-preview').waitFor()
    await expect.poll(() => hasFocus(dialog.getByRole('button', { name: 'Cancel' }))).toBe(true)
    await shootThemes(page, 'a11y-rollback-dialog')
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'detached' })
    await expect.poll(() => hasFocus(rollBack())).toBe(true)

    // The "?" sheet lists the shortcuts; one Esc closes it, and focus is back where it was.
    await page.keyboard.press('Shift+Slash')
    const sheet = page.getByRole('dialog', { name: 'Keyboard shortcuts' })
    await sheet.getByRole('list', { name: 'Chat shortcuts' }).getByText('Send the message').waitFor()
    expect(await sheet.textContent()).toContain('Show or hide the side panel')
    await shootThemes(page, 'a11y-shortcut-sheet')
    await page.keyboard.press('Escape')
    await sheet.waitFor({ state: 'detached' })
    await expect.poll(() => hasFocus(rollBack())).toBe(true)

    // Ctrl+, opens Settings; Ctrl+, again comes back, focus on the same button of the same card.
    await page.keyboard.press('Control+Comma')
    await page.waitForURL(/#\/settings/)
    await page.keyboard.press('Control+Comma')
    await page.waitForURL(/#\/project\/\d+/)
    await expect.poll(() => hasFocus(rollBack()), { timeout: 30_000 }).toBe(true)

    // The conversation's scroller is a tab stop (Chromium's, for scrolling by keyboard): it shows its ring.
    await page.getByRole('button', { name: 'New conversation' }).focus()
    await page.keyboard.press('Tab')
    const ring = (await page.evaluate(
      `(() => { const el = document.activeElement; const s = getComputedStyle(el); return { scroller: el.hasAttribute('data-virtuoso-scroller'), outline: s.outlineStyle + ' ' + s.outlineWidth } })()`,
    )) as { scroller: boolean; outline: string }
    expect(ring).toEqual({ scroller: true, outline: 'solid 2px' })
  })

  it('a form dialog opens on its first field, one Esc closes it, and focus goes back to its opener', async () => {
    await page.goto(`${origin}/#/project/${session.projectId}?panel=queue`)
    const add = page.getByRole('button', { name: 'Add task', exact: true })
    await add.focus()
    await page.keyboard.press('Enter')
    const dialog = page.getByRole('dialog')
    await dialog.waitFor()
    await expect.poll(() => hasFocus(dialog.getByLabel('Name'))).toBe(true)
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'detached' })
    await expect.poll(() => hasFocus(add)).toBe(true)
  })

  it('axe-core finds no serious or critical violation on the project with a card, Settings, the Queue and Brainstorm', async () => {
    await page.setViewportSize({ width: 1440, height: 900 })
    await page.goto(`${origin}/#/project/${session.projectId}?panel=timeline`)
    await card().waitFor()
    await page.getByRole('list', { name: 'Snapshots' }).waitFor()
    await noSeriousViolations('project')
    await shootThemes(page, 'a11y-project-1440x900')

    await page.goto(`${origin}/#/settings`)
    await page.getByRole('heading', { name: 'Settings' }).first().waitFor()
    await page.getByRole('button', { name: /Save/ }).first().waitFor()
    await noSeriousViolations('settings')
    await shootThemes(page, 'a11y-settings')

    await page.goto(`${origin}/#/project/${session.projectId}?panel=queue`)
    await page
      .getByRole('list', { name: 'Work queue' })
      .or(page.getByText('The work queue is empty'))
      .waitFor()
    await noSeriousViolations('queue')

    // The brainstorm wizard's phase names (2.96:1 once).
    await page.goto(`${origin}/#/project/${session.projectId}/brainstorm`)
    session.llm.enqueue(turn('Welcome! What are we building?'))
    await page.getByRole('button', { name: 'Start the brainstorm' }).click()
    await page.getByRole('list', { name: 'Brainstorm phases' }).waitFor()
    await page.getByRole('log', { name: 'Exchange' }).getByText('What are we building?').waitFor()
    await noSeriousViolations('brainstorm')
    await shootThemes(page, 'a11y-brainstorm')
  })

  it('at 1024×700 the conversation keeps its height and the side panel waits behind a toggle', async () => {
    await page.setViewportSize({ width: 1024, height: 700 })
    await page.goto(`${origin}/#/project/${session.projectId}`)
    await card().waitFor()
    await expect.poll(() => hasFocus(box())).toBe(true)
    expect(await page.getByRole('tablist', { name: 'Side panel' }).count()).toBe(0)
    await shootThemes(page, 'a11y-1024x700')
    const height = await log().evaluate((el) => el.getBoundingClientRect().height)
    expect(height, 'the conversation’s height at 1024×700').toBeGreaterThanOrEqual(330)

    // The toggle opens the drawer from the keyboard, focus inside; Esc closes it and focus goes back to the toggle.
    const toggle = page.getByRole('button', { name: 'Show side panel' })
    expect(await toggle.getAttribute('aria-expanded')).toBe('false')
    await toggle.focus()
    await page.keyboard.press('Enter')
    await expect.poll(() => hasFocus(page.getByRole('tab', { name: 'Timeline' }))).toBe(true)
    await shootThemes(page, 'a11y-1024x700-drawer')

    // The plan editor opens across the whole window from the drawer; Esc brings it back into the drawer first.
    await page.keyboard.press('ArrowRight')
    await expect.poll(() => hasFocus(page.getByRole('tab', { name: 'Plan' }))).toBe(true)
    const plan = page.getByTestId('plan-panel')
    await plan.getByRole('button', { name: 'Full width' }).click()
    await page.locator('.plan-panel-full').waitFor()
    expect((await plan.boundingBox())!.width).toBeGreaterThanOrEqual(1024 - 1)
    await shootThemes(page, 'a11y-1024x700-plan-full-width')
    await page.keyboard.press('Escape')
    await page.locator('.plan-panel-full').waitFor({ state: 'detached' })
    expect(await page.getByTestId('side-overlay').count()).toBe(1)
    await page.getByRole('tab', { name: 'Plan' }).focus()
    await page.keyboard.press('Escape')
    await page.getByTestId('side-overlay').waitFor({ state: 'detached' })
    await expect.poll(() => hasFocus(page.getByRole('button', { name: 'Show side panel' }))).toBe(true)
  })

  it('after a rollback confirmed from the keyboard, focus is back on the card it was started from', async () => {
    await page.setViewportSize({ width: 1440, height: 900 })
    await page.goto(`${origin}/#/project/${session.projectId}`)
    await expect.poll(() => hasFocus(box()), { timeout: 30_000 }).toBe(true)
    await rollBack().focus()
    await page.keyboard.press('Enter')
    const dialog = page.getByRole('alertdialog', { name: 'Roll back to task-1-pre' })
    await dialog.getByTestId('rollback-preview').waitFor()
    await dialog.getByRole('button', { name: 'Roll back', exact: true }).focus()
    await page.keyboard.press('Enter')
    await dialog.waitFor({ state: 'detached', timeout: 60_000 })
    await page.locator('[data-sonner-toast]').getByRole('button', { name: 'Undo' }).waitFor()
    await expect
      .poll(async () => (await focused()).startsWith('button') || (await focused()).startsWith('article'))
      .toBe(true)
    expect(await page.evaluate('document.activeElement.closest("article")?.getAttribute("aria-label")')).toBe(
      'Task 1: Add a price list',
    )
    await shootThemes(page, 'a11y-after-rollback')
  })
})
