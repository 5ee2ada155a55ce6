import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ScriptedReply } from '../fixtures/fakeLlmServer'
import { shootThemes } from '../helpers/browser'
import { startAppSession, type AppSession } from '../helpers/appSession'
import { parsed, tools } from '../integration/loop/harness'
import { CHECK_SCRIPT } from '../integration/build/buildCliFixture'

// Issue #38 in Chromium against the real `npm run web`, the fake model and real lanes (git, bubblewrap, SQLite):
// four independent tasks built with Lanes 4 from the Queue panel. While all four lanes are in their first
// iteration (each lane's model call is held until the screenshots are taken), the Queue panel shows the lanes side
// by side, the chat one live card per running task, the header "Building · 4 lanes"; released, every task merges
// back one at a time and is accepted. At 1440×900 and 1024×700, light and dark.

const FILES = [
  ['a.txt', 'alpha'],
  ['b.txt', 'beta'],
  ['c.txt', 'gamma'],
  ['d.txt', 'delta'],
] as const

describe('a parallel build from the Queue panel (#38)', { timeout: 300_000 }, () => {
  let session: AppSession
  let page: Page
  /** The lanes' iteration calls, held until released: all four lanes are mid-iteration at once. */
  let release!: () => void
  const released = new Promise<void>((resolve) => (release = resolve))
  let held = 0
  /** The queue ids of the four tasks, by file. */
  const ids = new Map<string, string>()

  const panel = () => page.getByRole('tabpanel', { name: 'Queue' })
  const progress = () => panel().getByRole('region', { name: 'Build progress' })
  const lanesList = () => progress().getByRole('list', { name: 'Lanes' })
  const header = () => page.getByRole('status', { name: 'Project status' })
  const strip = () => page.getByRole('region', { name: 'Queue build' })
  const notes = (file: string, want: string) => `Write the word ${want} into ${file} and nothing else.`

  beforeAll(async () => {
    session = await startAppSession('lanes', { 'spec.md': '# Words\n', 'check.cjs': CHECK_SCRIPT })
    page = session.page
    for (const [file, want] of FILES) {
      const added = await session.call('queue.addTask', {
        projectId: session.projectId,
        name: `Write ${file}`,
        notes: notes(file, want),
        accept: [`DET: \`node check.cjs ${file} ${want}\` exits 0`],
        spec: 'spec.md',
      })
      expect(added.ok, JSON.stringify(added.error)).toBe(true)
      ids.set(file, (added.value as { ids: string[] }).ids[0]!)
      // Lanes ask the model at the same time: each task's replies are routed by its notes (the parse and the
      // iteration both carry them). The iteration waits until the screenshots of four running lanes are taken.
      const iteration: ScriptedReply = {
        kind: 'computed',
        reply: async () => {
          held += 1
          await released
          return tools(
            ['write_file', { path: file, content: `${want}\n` }],
            ['mark_complete', { summary: `Wrote ${file}.` }],
          )
        },
      }
      session.llm.route(
        (r) => JSON.stringify(r.body).includes(notes(file, want)),
        parsed({ type: 'fresh', title: `Write ${file}` }),
        iteration,
      )
    }
  })

  afterAll(async () => {
    release?.()
    await session?.close()
  })

  it('offers Lanes beside Build mode, and starts a build of four tasks in four lanes', async () => {
    await page.setViewportSize({ width: 1440, height: 900 })
    await page.goto(`${session.host.origin}/#/project/${session.projectId}?panel=queue`)
    const lanes = panel().getByRole('combobox', { name: 'Lanes' })
    // The project has no "lanes.parallel": one lane, the serial build, until the user chooses more.
    await expect.poll(() => lanes.inputValue(), { timeout: 30_000 }).toBe('1')
    expect(await lanes.locator('option').allTextContents()).toEqual([
      '1 lane (one at a time)',
      ...[2, 3, 4, 5, 6, 7, 8].map((n) => `${n} lanes`),
    ])
    // Keyboard: focus the choice and pick 4 lanes with the arrow keys.
    await lanes.focus()
    for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowDown')
    await expect.poll(() => lanes.inputValue()).toBe('4')
    const build = panel().getByRole('button', { name: 'Build', exact: true })
    await expect.poll(() => build.getAttribute('aria-disabled'), { timeout: 30_000 }).toBeNull()
    await build.click()
    await expect.poll(() => held, { timeout: 120_000 }).toBe(4)
  })

  it('shows the four lanes side by side, each with its task, lane, iteration, step and merge state', async () => {
    const cards = lanesList().getByRole('article')
    await expect.poll(() => cards.count(), { timeout: 30_000 }).toBe(4)
    for (const [i, [file]] of FILES.entries()) {
      const card = lanesList().getByRole('article', { name: `Lane ${i + 1}: Write ${file}` })
      await expect
        .poll(async () => (await card.textContent()) ?? '', { timeout: 30_000 })
        .toMatch(/Building.*Task \d+ · Attempt 1 of 3 · Iteration 1 of \d+/)
      // Its iteration once (#38): the step under it says what happens, not "Iteration 1 of 50" again.
      expect(((await card.textContent()) ?? '').match(/Iteration/g)).toHaveLength(1)
    }
    // Side by side: the first two lanes share a row.
    const [one, two] = [await cards.nth(0).boundingBox(), await cards.nth(1).boundingBox()]
    expect(one && two && Math.abs(one.y - two.y) < 2 && two.x > one.x + one.width - 1).toBe(true)
    // The Lanes choice keeps the build's own while it runs.
    expect(await panel().getByRole('combobox', { name: 'Lanes' }).isDisabled()).toBe(true)
    await progress().scrollIntoViewIfNeeded()
    await shootThemes(page, 'lanes-queue-1440')
  })

  it('says "Building · 4 lanes" in the header and shows one live card per running task in the chat', async () => {
    await header().getByText('Building · 4 lanes').waitFor({ timeout: 30_000 })
    const running = strip().getByRole('list', { name: 'Running lanes' })
    await expect.poll(() => running.getByRole('article').count(), { timeout: 30_000 }).toBe(4)
    for (const [i, [file]] of FILES.entries())
      await running.getByRole('article', { name: `Lane ${i + 1}: Write ${file}` }).waitFor()
    expect(await strip().textContent()).toContain('4 lanes at once')
    await page.getByRole('tab', { name: 'Timeline' }).click()
    await shootThemes(page, 'lanes-chat-1440')
  })

  it('at 1024×700: the Queue drawer and the chat each show the lanes', async () => {
    await page.setViewportSize({ width: 1024, height: 700 })
    await page.goto(`${session.host.origin}/#/project/${session.projectId}?panel=queue`)
    await page.locator('.project-layout-overlay').waitFor()
    await expect.poll(() => lanesList().getByRole('article').count(), { timeout: 30_000 }).toBe(4)
    await progress().scrollIntoViewIfNeeded()
    await shootThemes(page, 'lanes-queue-1024')
    const drawer = page.getByTestId('side-overlay')
    if (await drawer.isVisible()) {
      await page.getByRole('button', { name: 'Close side panel' }).click()
      await drawer.waitFor({ state: 'detached' })
    }
    // The side panel button keeps the focus, and its tooltip would cover the header in the shots.
    await page.evaluate('document.activeElement?.blur()')
    await strip().getByRole('list', { name: 'Running lanes' }).waitFor()
    await shootThemes(page, 'lanes-chat-1024')
  })

  it('merges every lane back, one at a time, and accepts all four tasks', async () => {
    release()
    await page.setViewportSize({ width: 1440, height: 900 })
    await page.goto(`${session.host.origin}/#/project/${session.projectId}?panel=queue`)
    await progress().getByText('Build complete.').waitFor({ timeout: 180_000 })
    const cards = lanesList().getByRole('article')
    expect(await cards.count()).toBe(4)
    for (let i = 0; i < 4; i++) expect(await cards.nth(i).textContent()).toContain('Merged')
    // Each merged task was applied to the user's folder; the three merged after the first verified again there.
    for (const [file, want] of FILES) expect(readFileSync(join(session.dir, file), 'utf8')).toBe(`${want}\n`)
    await progress()
      .getByText(/^What happened/)
      .click()
    const log = (await progress().getByRole('list', { name: 'Build log' }).textContent()) ?? ''
    expect(log.match(/merged as task \d+, verified again on the merged tree/g)?.length ?? 0).toBe(3)
    const built = progress().getByRole('list', { name: 'Built tasks' })
    for (const [file] of FILES)
      expect(
        await built.getByRole('listitem', { name: `Write ${file}`, exact: true }).textContent(),
      ).toContain('accepted')
    // The header no longer says it builds; the chat's strip has nothing to say about a build that ended well.
    await expect.poll(async () => (await header().textContent()) ?? '').not.toContain('Building')
    // Each task's verifications are stored against the user's project, the latest a PASS.
    for (const [file, taskId] of ids) {
      const stored = await session.call('queue.verdicts', { projectId: session.projectId, taskId })
      const { verifications } = stored.value as { verifications: { outcome: string }[] }
      expect(verifications[0]?.outcome, file).toBe('PASS')
    }
    await lanesList().scrollIntoViewIfNeeded()
    await shootThemes(page, 'lanes-merged-1440')
  })
})
