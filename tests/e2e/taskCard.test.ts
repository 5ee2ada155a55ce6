import { join } from 'node:path'
import type { Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SCREENSHOTS, shootThemes } from '../helpers/browser'
import { startAppSession, type AppSession } from '../helpers/appSession'
import { parsed, tools } from '../integration/loop/harness'

// The task card in Chromium against the real `npm run web` and the fake LLM (issue #26): file tools as readable
// diffs, the stepper with only the phases a task has, the card after a reload mid-task (its iteration count and
// streamed text), a long title at three window sizes in both themes, and a paused build that Accept settles in
// the header, the chat's build strip and the Queue's "Last build", also after a reload.

const TITLE =
  'Add a seasonal drinks section to the menu page, with prices, photos and allergy notes for every drink'
    .padEnd(120, '!')
    .slice(0, 120)

const APP_JS = `// The menu's drinks, rendered into the page.
const drinks = ['Moonlit Calm', 'Deep Rest']
export function render(list) {
  for (const name of drinks) list.append(\`<li>\${name}</li>\`)
  return drinks.length * 2
}
`

const CHECK = `const fs = require('fs')
const [file, want] = process.argv.slice(2)
const got = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() : '(missing)'
if (got !== want) { console.error(file + ': expected "' + want + '", got "' + got + '"'); process.exit(1) }
`

/** A locator's screenshot in light and dark, once the theme (and its colour transitions) has settled. */
async function shootBoth(page: Page, target: Locator, name: string): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme })
    await page.locator(`html[data-theme="${scheme}"]`).waitFor({ state: 'attached' })
    await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => resolve(null)))')
    await page.evaluate(
      'Promise.all(document.getAnimations().filter((a) => a instanceof CSSTransition).map((a) => a.finished.catch(() => null)))',
    )
    await target.screenshot({ path: join(SCREENSHOTS, `${name}-${scheme}.png`) })
  }
  await page.emulateMedia({ colorScheme: 'light' })
}

/** Every task card's overflow, measured in the page: its own width and its title's. */
/**
 * Opens a disclosure button and waits until it says so. A task's iterations open by themselves while it runs and
 * close when it completes: a click racing that change would close them again, so it is repeated until they are open.
 */
async function openDisclosure(button: Locator): Promise<void> {
  await expect
    .poll(async () => {
      if ((await button.getAttribute('aria-expanded')) !== 'true') await button.click()
      return button.getAttribute('aria-expanded')
    })
    .toBe('true')
}

const OVERFLOW = `[...document.querySelectorAll('.task-card')].map((c) => {
  const t = c.querySelector('.task-card-title')
  return { card: c.scrollWidth - c.clientWidth, title: t ? t.scrollWidth - t.clientWidth : 0, width: c.clientWidth }
})`

describe('the task card', { timeout: 180_000 }, () => {
  let session: AppSession
  let page: Page
  let projectUrl: string

  const log = () => page.getByRole('log', { name: 'Conversation' })
  const header = () => page.getByRole('status', { name: 'Project status' })
  const strip = () => page.getByRole('region', { name: 'Queue build' })
  const panel = () => page.getByRole('tabpanel', { name: 'Queue' })
  const longCard = () => log().getByRole('article', { name: `Task 1: ${TITLE}` })
  const send = async (text: string) => {
    const box = page.getByRole('textbox', { name: 'Message' })
    await box.fill(text)
    await box.press('Control+Enter')
  }

  beforeAll(async () => {
    session = await startAppSession('card', {
      'index.html': '<ul class="menu">\n  <li>Espresso</li>\n</ul>\n',
      'spec.md': '# Letters\n',
      'check.cjs': CHECK,
    })
    page = session.page
    projectUrl = `${session.host.origin}/#/project/${session.projectId}`
  })

  afterAll(async () => {
    await session?.close()
  })

  it('after a reload mid-task keeps the iteration count and the streamed text; file tools read as diffs', async () => {
    session.llm.enqueue(
      parsed({ type: 'fresh', title: TITLE }),
      {
        kind: 'tools',
        text: 'I will write the script and add the drinks to the menu.',
        calls: [
          {
            name: 'write_file',
            arguments: {
              path: 'src/menu/seasonal/drinks/night/components/rendering/helpers/app.js',
              content: APP_JS,
            },
          },
          {
            name: 'edit_file',
            arguments: {
              path: 'index.html',
              old_string: '  <li>Espresso</li>\n',
              new_string: '  <li>Espresso</li>\n  <li class="night">Moonlit Calm</li>\n',
            },
          },
        ],
      },
      // The model goes on writing, then never finishes: the task stays running for the reload.
      { kind: 'stall', text: 'Now checking that the page still lists every drink before marking it done.' },
    )
    await page.goto(projectUrl)
    // Before any task the loop's phase means nothing yet: not shown, explained in the header's Project details.
    await page.getByRole('button', { name: 'Project details' }).click()
    const details = page.getByRole('dialog', { name: 'Project details' })
    await details.getByText('No task running', { exact: true }).waitFor()
    await details.getByText(/a bug fix starts in BUILD/).waitFor()
    await details.getByRole('button', { name: 'Close' }).click()
    await details.waitFor({ state: 'detached' })
    await send('add the seasonal drinks')
    const card = longCard()
    await card.getByText('Running', { exact: true }).waitFor({ timeout: 30_000 })
    await card.getByText('Now checking that the page still lists every drink').waitFor({ timeout: 30_000 })

    await page.reload()
    const again = longCard()
    await again.getByText('Running', { exact: true }).waitFor({ timeout: 30_000 })
    // The text streamed before the reload is still there, and the count agrees with the iterations listed.
    const iterations = again.getByRole('region', { name: 'Iterations' })
    await iterations
      .getByText('Now checking that the page still lists every drink')
      .waitFor({ timeout: 15_000 })
    const toggle = iterations.getByRole('button', { name: /^\d+ iterations? ·/ })
    const count = Number(/^(\d+)/.exec((await toggle.textContent()) ?? '')?.[1])
    const heads = await iterations.getByRole('button', { name: /^Iteration \d+/ }).allTextContents()
    const newest = Math.max(...heads.map((h) => Number(/^Iteration (\d+)/.exec(h)?.[1])))
    expect(count).toBeGreaterThan(0)
    expect(count).toBe(newest)
    // A fresh task plans first: the stepper shows Parse done and where it is, from the run's rows.
    const steps = again.getByRole('list', { name: 'Phases' })
    expect(await steps.getByRole('listitem').allTextContents()).toEqual([
      'Parse',
      'Plan',
      'Build',
      'Gates',
      'Snapshot',
    ])
    expect(await steps.locator('[aria-current="step"]').count()).toBe(1)
    await again.evaluate((el) => el.scrollIntoView({ block: 'start' }))
    await shootThemes(page, 'card-after-reload')
    await shootBoth(page, steps, 'card-stepper-feature')

    // write_file: one line "+6 −0 …app.js" until opened, then the file as added lines, highlighted.
    const write = iterations.getByRole('button', { name: /write_file/ })
    expect(await write.textContent()).toMatch(
      /^write_file\+6 −0src\/menu\/seasonal\/drinks\/night\/components\/rendering\/helpers\/app\.js/,
    )
    expect(await write.locator('.mid-path').getAttribute('title')).toBe(
      'src/menu/seasonal/drinks/night/components/rendering/helpers/app.js',
    )
    await write.click()
    const written = iterations.getByRole('group', {
      name: 'Changes to src/menu/seasonal/drinks/night/components/rendering/helpers/app.js',
    })
    await written.waitFor()
    expect(await written.locator('.diff-add').count()).toBe(6)
    expect(await written.locator('.tok-keyword').first().textContent()).toBe('const')
    expect(await written.textContent()).not.toContain('\\n')
    await shootBoth(
      page,
      written.locator('xpath=ancestor::div[contains(concat(" ", @class, " "), " tool-call ")][1]'),
      'card-write-diff',
    )
    await write.click()

    const edit = iterations.getByRole('button', { name: /edit_file/ })
    expect(await edit.textContent()).toMatch(/^edit_file\+1 −0index\.html/)
    await edit.click()
    const edited = iterations.getByRole('group', { name: 'Changes to index.html' })
    expect(await edited.locator('.diff-add').allTextContents()).toEqual([
      '+  <li class="night">Moonlit Calm</li>',
    ])
    await shootBoth(
      page,
      edited.locator('xpath=ancestor::div[contains(concat(" ", @class, " "), " tool-call ")][1]'),
      'card-edit-diff',
    )

    const stopped = await session.call('tasks.stop', { projectId: session.projectId })
    expect(stopped.ok).toBe(true)
    await again.getByText('Stopped', { exact: true }).waitFor({ timeout: 30_000 })
    // The header names the task's end as its card does (`.ralph/status` says failed for a stop).
    await header().getByText('Stopped', { exact: true }).waitFor({ timeout: 15_000 })
    expect(await header().textContent()).not.toContain('Failed')
    await expect.poll(() => page.getByTestId('project-status').textContent()).toBe('Last task was stopped')
  })

  it('holds a 120-character title at 1024×700, 1440×900 and 2560×1440, light and dark', async () => {
    for (const [width, height] of [
      [1024, 700],
      [1440, 900],
      [2560, 1440],
    ] as const) {
      await page.setViewportSize({ width, height })
      const card = longCard()
      await card.evaluate((el) => el.scrollIntoView({ block: 'start' }))
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme })
        await page.locator(`html[data-theme="${scheme}"]`).waitFor({ state: 'attached' })
        // The chat lays itself out again after a resize or a theme change: measure once its cards are drawn.
        let measured: { card: number; title: number; width: number }[] = []
        await expect
          .poll(async () => (measured = (await page.evaluate(OVERFLOW)) as typeof measured).length)
          .toBeGreaterThan(0)
        for (const m of measured) {
          expect(m.card, `a card overflows at ${width}×${height} ${scheme}`).toBeLessThanOrEqual(0)
          expect(m.title, `a title is cut at ${width}×${height} ${scheme}`).toBeLessThanOrEqual(0)
        }
      }
      // The title wraps: it is taller than one line, and the whole of it is in the page.
      const box = await card.locator('.task-card-title').boundingBox()
      if (width < 2560) expect(box!.height).toBeGreaterThan(30)
      expect(await card.locator('.task-card-title').textContent()).toBe(`Task 1: ${TITLE}`)
      await page.emulateMedia({ colorScheme: 'light' })
      await shootThemes(page, `card-long-title-${width}x${height}`)
    }
    // A long path gives way in its middle: the file name stays whole, the folders end in "…". Below 1200 px the
    // side panel is a drawer over the chat, so a window narrow enough for the path not to fit is 800 px wide.
    await page.setViewportSize({ width: 800, height: 700 })
    const path = longCard().getByRole('list', { name: 'Tool calls' }).locator('.mid-path').first()
    expect(await path.getAttribute('title')).toMatch(/helpers\/app\.js$/)
    const widths = async () =>
      (await path.evaluate((el) =>
        [...el.children].map((c) => ({ text: c.textContent, over: c.scrollWidth - c.clientWidth })),
      )) as { text: string; over: number }[]
    // The layout settles after the resize: wait for the folders to give way, then check the name is whole.
    await expect.poll(async () => (await widths())[0]!.over).toBeGreaterThan(0)
    expect((await widths()).at(-1)).toEqual({ text: 'app.js', over: 0 })
    await page.setViewportSize({ width: 1280, height: 820 })
  })

  it('shows a bug fix without a plan phase, and a file it changed opens its diff', async () => {
    session.llm.enqueue(
      parsed({ type: 'bugfix', title: 'Fix the espresso line' }),
      tools(['edit_file', { path: 'index.html', old_string: 'Espresso', new_string: 'Espresso (double)' }]),
      tools(['mark_complete', { summary: 'The espresso line says double.' }]),
    )
    await send('the espresso is a double')
    const card = log().getByRole('article', { name: 'Task 2: Fix the espresso line' })
    await card.getByText('Complete', { exact: true }).waitFor({ timeout: 60_000 })
    const steps = card.getByRole('list', { name: 'Phases' })
    expect(await steps.getByRole('listitem').allTextContents()).toEqual([
      'Parse',
      'Build',
      'Gates',
      'Snapshot',
    ])
    expect(await steps.getByText('Build').getAttribute('title')).toMatch(/changes the files/)
    // Jargon is explained on hover: each gate says what it checks.
    const gate = card.getByRole('list', { name: 'Gate results' }).locator('.gate-word').first()
    expect(await gate.getAttribute('title')).toMatch(/^Checks that/)
    await card.scrollIntoViewIfNeeded()
    await shootBoth(page, steps, 'card-stepper-bugfix')
    await shootBoth(page, card, 'card-bugfix')

    const file = card.getByRole('button', { name: 'Open the diff of index.html' })
    await file.click()
    await expect.poll(() => page.url()).toContain('panel=timeline')
    // It opens full size, on the task's own range, with that file chosen.
    const full = page.getByRole('dialog', { name: 'Compare task-2-pre → task-2-post' })
    await full.waitFor()
    await full.getByText('index.html').first().waitFor()
    await page.keyboard.press('Escape')
    await full.waitFor({ state: 'detached' })
  })

  it('stays fast with many file diffs: 40 writes open at once within a few frames', async () => {
    const file = (i: number) =>
      Array.from(
        { length: 60 },
        (_, l) => `export const value${l} = "line ${l} of file ${i}" // note ${l}`,
      ).join('\n')
    session.llm.enqueue(
      parsed({ type: 'fresh', title: 'Write forty files' }),
      {
        kind: 'tools',
        calls: Array.from({ length: 40 }, (_, i) => ({
          name: 'write_file',
          arguments: { path: `src/many/file${i}.js`, content: file(i) },
        })),
      },
      tools(['mark_complete', { summary: 'Wrote forty files.' }]),
    )
    await send('write forty files')
    const card = log().getByRole('article', { name: 'Task 3: Write forty files' })
    await card.getByText('Complete', { exact: true }).waitFor({ timeout: 60_000 })
    await openDisclosure(card.getByRole('button', { name: /^\d+ iterations? · 41 tool calls/ }))
    // The writes are in the first iteration (the newest, opened by itself, has the mark_complete).
    await openDisclosure(card.getByRole('button', { name: /^Iteration 1/ }))
    const heads = card.locator('.tool-call-head', { hasText: 'write_file' })
    await expect.poll(() => heads.count(), { timeout: 15_000 }).toBe(40)
    // Every write opened in one go, timed in the page until the frame after they are drawn.
    // A string: this file is compiled for Node, without the DOM's types.
    const ms = (await page.evaluate(`(async () => {
      const card = document.querySelector('article[aria-label="Task 3: Write forty files"]')
      const t = performance.now()
      card.querySelectorAll('.tool-call-head[aria-expanded="false"]').forEach((b) => b.click())
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))
      return performance.now() - t
    })()`)) as number
    expect(await card.locator('.code-diff').count()).toBe(40)
    console.log(`40 write diffs (60 lines each) opened and drawn in ${Math.round(ms)} ms`)
    expect(ms).toBeLessThan(5_000)
  })

  it('after Accept on a paused build, nothing says paused, also after a reload', async () => {
    const added = await session.call('queue.addTask', {
      projectId: session.projectId,
      name: 'Write b.txt',
      accept: ['DET: `node check.cjs b.txt beta` exits 0'],
      deps: [],
      spec: 'spec.md',
    })
    expect(added.ok, JSON.stringify(added.error)).toBe(true)
    session.llm.enqueue(
      parsed({ type: 'fresh', title: 'Write b.txt' }),
      tools(
        ['write_file', { path: 'b.txt', content: 'beta\n' }],
        ['mark_complete', { summary: 'Wrote b.txt.' }],
      ),
    )
    await page.goto(`${projectUrl}?panel=queue`)
    await panel().getByRole('combobox', { name: 'Build mode' }).selectOption('interactive')
    const build = panel().getByRole('button', { name: 'Build', exact: true })
    await expect.poll(() => build.getAttribute('aria-disabled'), { timeout: 30_000 }).toBeNull()
    await build.click()
    const approval = panel().getByRole('group', { name: 'Approval' })
    await approval.getByRole('button', { name: 'Decide later' }).click({ timeout: 90_000 })
    await header().getByText('Paused', { exact: true }).waitFor({ timeout: 60_000 })
    expect(await strip().textContent()).toContain('Build paused')
    expect(await panel().getByRole('region', { name: 'Build progress' }).textContent()).toContain(
      'Build paused',
    )

    const task = panel()
      .getByRole('list', { name: 'Work queue' })
      .getByRole('listitem', { name: 'Write b.txt', exact: true })
    await task.getByRole('button', { name: 'Accept' }).click()
    const saysNothingPaused = async () => {
      await expect.poll(async () => await header().textContent(), { timeout: 15_000 }).not.toMatch(/Paused/)
      await expect.poll(async () => await strip().count()).toBe(0)
      const last = panel().getByRole('region', { name: 'Build progress' })
      await expect.poll(async () => await last.textContent(), { timeout: 15_000 }).toContain('Build stopped.')
      // What the build says now (its log below keeps the history, "Build paused" included).
      const now = ((await last.textContent()) ?? '').split('What happened')[0]
      expect(now).not.toContain('paused.')
      expect(now).not.toContain('Build paused')
      expect(await last.textContent()).toContain('which you accepted since')
    }
    await saysNothingPaused()
    await panel()
      .getByRole('region', { name: 'Build progress' })
      .evaluate((el) => el.scrollIntoView({ block: 'start' }))
    await shootThemes(page, 'card-build-after-accept')
    await page.reload()
    await panel().getByRole('region', { name: 'Build progress' }).waitFor({ timeout: 30_000 })
    await saysNothingPaused()
  })
})
