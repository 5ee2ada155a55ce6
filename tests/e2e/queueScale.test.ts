import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { shootThemes } from '../helpers/browser'
import { startAppSession, type AppSession } from '../helpers/appSession'
import { parsed, tools } from '../integration/loop/harness'

// The Queue panel in Chromium against the real `npm run web`: a build's budgets typed in the panel, checked, sent
// and stopped at; then a queue of 2,000 tasks written by hand (no event but the core's watcher of .ralph/) shown
// as a virtualized list whose last task is one key away.

describe('Queue panel: budgets and a 2,000-task queue in Chromium', { timeout: 120_000 }, () => {
  let session: AppSession
  let page: Page
  let dir: string

  const panel = () => page.getByRole('tabpanel', { name: 'Queue' })
  const queue = () => panel().getByRole('list', { name: 'Work queue' })
  const task = (name: string) => queue().getByRole('listitem', { name, exact: true })
  const progress = () => panel().getByRole('region', { name: 'Build progress' })
  const shoot = (name: string) => shootThemes(page, `queue-${name}`)
  const writePlan = (lines: object[]) => {
    mkdirSync(join(dir, '.ralph'), { recursive: true })
    writeFileSync(join(dir, '.ralph', 'plan.jsonl'), lines.map((l) => JSON.stringify(l)).join('\n') + '\n')
  }

  beforeAll(async () => {
    session = await startAppSession('vibrant-scale', { 'spec.md': '# VIBRANT ENERGY\n\nA landing page.\n' })
    ;({ page, dir } = session)
    writeFileSync(join(dir, 'check.cjs'), 'process.exit(require("fs").existsSync("a.txt") ? 0 : 1)\n')
    writePlan([
      { t: 'spec', spec: 'spec.md' },
      {
        t: 'task',
        id: 't-a001',
        spec: 'spec.md',
        name: 'Write a.txt',
        accept: ['DET: `node check.cjs` exits 0'],
        s: 'p',
      },
    ])
    await page.goto(`${session.host.origin}/#/project/${session.projectId}?panel=queue`)
  })

  afterAll(async () => {
    await session?.close()
  })

  it('checks the budgets as typed, builds with them, and stops at the time budget', async () => {
    await task('Write a.txt').waitFor({ timeout: 30_000 })
    const cost = panel().getByRole('textbox', { name: 'Cost budget (USD)' })
    const minutes = panel().getByRole('textbox', { name: 'Time budget (minutes)' })
    const build = panel().getByRole('button', { name: 'Build', exact: true })
    await cost.fill('lots')
    await minutes.fill('soon')
    await panel().getByText('Enter the cost budget as a number').waitFor()
    await panel().getByText('Enter the time budget as a number').waitFor()
    expect(await build.getAttribute('aria-disabled')).toBe('true')
    await shoot('budget-invalid')

    // Three seconds of time budget; the model takes six to answer: the build stops at 100% inside the task.
    await cost.fill('0.50')
    await minutes.fill('0.05')
    await expect.poll(() => build.getAttribute('aria-disabled')).toBeNull()
    const slow = (delayMs?: number) => ({
      ...tools(
        ['write_file', { path: 'a.txt', content: 'alpha\n' }],
        ['mark_complete', { summary: 'Wrote it.' }],
      ),
      ...(delayMs ? { delayMs } : {}),
    })
    session.llm.enqueue(parsed({ type: 'fresh', title: 'Write a.txt' }), slow(6_000))
    await build.click()
    const use = progress().getByRole('group', { name: 'Budget use' })
    await use.waitFor({ timeout: 30_000 })
    expect(await use.textContent()).toContain('of $0.50')
    expect(await use.textContent()).toContain('of 3 s')
    await progress().getByText('Build running').waitFor()
    await shoot('budget-running')

    await progress().getByText('Last build').waitFor({ timeout: 60_000 })
    expect(await progress().textContent()).toContain('Build stopped at its budget.')
    expect(await use.textContent()).toMatch(/Time\s*3 s of 3 s/)
    await shoot('budget-stopped')

    // Remembered for the project: a reload shows them again.
    await page.reload()
    await expect
      .poll(() => panel().getByRole('textbox', { name: 'Cost budget (USD)' }).inputValue())
      .toBe('0.50')
  })

  it('shows 2,000 tasks written by hand without a reload, renders a window of them, and End reaches the last', async () => {
    const id = (i: number) => `t-${i.toString(36).padStart(4, '0')}`
    writePlan([
      { t: 'spec', spec: 'spec.md' },
      ...Array.from({ length: 2000 }, (_, i) => ({
        t: 'task',
        id: id(i),
        spec: 'spec.md',
        name: `Task ${i + 1}`,
        notes: `Notes for task ${i + 1}`,
        accept: ['DET: `npm test` passes', `LLM: task ${i + 1} does what it says`],
        s: 'p',
      })),
    ])
    await task('Task 1').waitFor({ timeout: 30_000 })
    const rendered = await queue().locator('.queue-task').count()
    expect(rendered).toBeGreaterThan(2)
    expect(rendered).toBeLessThan(100)

    await task('Task 1').getByRole('button', { name: 'Move up' }).focus()
    await page.keyboard.press('End')
    const last = task('Task 2000')
    await last.waitFor({ timeout: 30_000 })
    await expect.poll(() => last.evaluate((el) => el.contains(el.ownerDocument.activeElement))).toBe(true)
    expect(await queue().locator('.queue-task').count()).toBeLessThan(100)
    await shoot('large-end')

    await page.keyboard.press('Home')
    await expect
      .poll(() => task('Task 1').evaluate((el) => el.contains(el.ownerDocument.activeElement)))
      .toBe(true)

    // Tab walks on past the rows rendered at first: a focused row scrolls into view and brings the next ones.
    const focusedTask = () =>
      page.evaluate(
        "document.activeElement?.closest('li.queue-task')?.getAttribute('aria-label') ?? null",
      ) as Promise<string | null>
    await task('Task 1').getByRole('button', { name: 'Remove' }).focus()
    for (let i = 0; i < 4 * 15; i++) await page.keyboard.press('Tab')
    expect(await focusedTask()).toBe('Task 16')
  })
})
