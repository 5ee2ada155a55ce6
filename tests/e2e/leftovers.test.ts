import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FakeLlmServer } from '../fixtures/fakeLlmServer'
import { shootThemes } from '../helpers/browser'
import { startAppSession, type AppSession } from '../helpers/appSession'

/** How many lines an element's text takes: its line boxes' distinct tops (run in the page). */
const lineCount = new Function(
  'el',
  'const r = document.createRange(); r.selectNodeContents(el); return new Set([...r.getClientRects()].map((b) => Math.round(b.top))).size',
) as (el: unknown) => number

// Reviewers' leftovers of #26: the timeline at 1024×700 (its filter on one line), its rows counting the user's
// files with Ralph's own apart.
describe('timeline leftovers in Chromium', { timeout: 120_000 }, () => {
  let session: AppSession
  let llm: FakeLlmServer
  let page: Page
  let projectId: number

  beforeAll(async () => {
    session = await startAppSession('bakery', { 'index.html': '<h1>Bakery</h1>\n' })
    ;({ llm, page, projectId } = session)
  })
  afterAll(() => session?.close())

  it('at 1024×700 the filter stays on one line; a task row counts the user’s one file, Ralph’s apart', async () => {
    await page.setViewportSize({ width: 1024, height: 700 })
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
    const started = await session.call('tasks.start', { projectId, message: 'add a price list' })
    expect(started.ok).toBe(true)
    await page.goto(`${session.host.origin}/#/project/${projectId}?panel=timeline`)
    const list = page.getByRole('list', { name: 'Snapshots' })
    const post = list.getByRole('listitem', { name: /^task-1-post,/ })
    await post.waitFor({ timeout: 30_000 })
    expect(await post.getAttribute('aria-label')).toMatch(/, 1 file added, and \d+ files? of Ralph’s own$/)
    expect(await post.getByTestId('ralph-count').getAttribute('title')).toMatch(
      /^\d+ files? of Ralph’s own \(\.ralph\/: its state, plan and logs\): /,
    )

    // Each filter label is one line (its text's line boxes all share one top), at every side-panel width: the
    // panel is widened step by step by dragging its resize handle.
    const oneLine = async () => {
      for (const name of ['Tasks only', 'Everything']) {
        const lines = await page.getByRole('radio', { name }).evaluate(lineCount)
        const width = await page.locator('.timeline-toolbar').evaluate((el) => el.clientWidth)
        expect(lines, `“${name}” wraps with the toolbar ${width}px wide`).toBe(1)
      }
    }
    await oneLine()
    await shootThemes(page, 'leftovers-timeline-1024')
    // The side panel's width varies (dragged, other windows): the toolbar is set to each width from its minimum
    // up to where Save snapshot shows its label, and the filter must stay on one line at every one.
    const timeline = page.locator('.timeline')
    for (let width = 280; width <= 420; width += 10) {
      await timeline.evaluate((el, w) => el.setAttribute('style', `flex: none; width: ${w}px`), width)
      await oneLine()
      if (width === 340) await shootThemes(page, 'leftovers-timeline-toolbar-340')
    }
    await timeline.evaluate((el) => el.removeAttribute('style'))
  }, 90_000)
})
