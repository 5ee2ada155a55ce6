import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SCREENSHOTS, shootThemes } from '../helpers/browser'
import type { FakeLlmServer } from '../fixtures/fakeLlmServer'
import { startAppSession, type AppSession } from '../helpers/appSession'
import { parsed, tools, withUsage } from '../integration/loop/harness'

// Chat tasks with a cap in Chromium against the real `npm run web`, on fake-model: a model no catalog prices. First
// the composer says a cost cap cannot hold and the task runs under a token cap instead; then the user enters the
// model's price there ($2.50 per 1M input tokens, as gpt-4o's), and a cost cap holds. The call after each warning is
// held until the warning has been looked at, so the screenshots never race the loop.
describe('chat tasks with a cap, in Chromium', { timeout: 180_000 }, () => {
  let session: AppSession
  let llm: FakeLlmServer
  let page: Page
  const usage = (prompt_tokens: number) => ({ prompt_tokens, completion_tokens: 0 })
  const conversation = () => page.getByRole('log', { name: 'Conversation' })

  beforeAll(async () => {
    session = await startAppSession('capped', { 'index.html': '<h1>hi</h1>\n' })
    ;({ llm, page } = session)
  })
  afterAll(() => session?.close())

  /** The next scripted reply waits for `release()`. */
  function heldReply(reply: Parameters<FakeLlmServer['enqueue']>[0]) {
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    return {
      release,
      reply: {
        kind: 'computed' as const,
        reply: async () => {
          await held
          return reply
        },
      },
    }
  }

  it('a cap on a model with no price: the composer says so, a token cap holds, the card counts tokens', async () => {
    const third = heldReply(withUsage(tools(['write_file', { path: 'c.txt', content: 'c' }]), usage(12_000)))
    llm.enqueue(
      withUsage(parsed({ type: 'bugfix', title: 'Write c.txt' }), usage(1_000)),
      withUsage(tools(['write_file', { path: 'note.txt', content: 'n' }]), usage(39_000)), // 40,000: 80%
      third.reply, // 52,000: past the cap
    )
    await page.goto(`${session.host.origin}/#/project/${session.projectId}`)
    await page.getByRole('textbox', { name: 'Cost cap in dollars' }).fill('0.01')
    const warning = page.getByRole('group', { name: 'Cost cap warning' })
    await warning
      .getByText('The cost cap can’t be enforced: no price for fake-model.', { exact: false })
      .waitFor({ timeout: 30_000 })
    await page.getByRole('textbox', { name: 'Message' }).fill('write c.txt')
    await shootThemes(page, 'costcap-00-no-price')
    await page.setViewportSize({ width: 1024, height: 700 })
    await page.screenshot({ path: join(SCREENSHOTS, 'costcap-00-no-price-1024x700.png') })
    await page.setViewportSize({ width: 1440, height: 900 })

    await warning.getByRole('textbox', { name: 'Token cap in tokens' }).fill('50k')
    await warning.getByText('The token cap of 50,000 tokens stops the task instead.').waitFor()
    await page.getByRole('textbox', { name: 'Message' }).press('Control+Enter')

    const card = conversation().getByRole('article', { name: 'Task 1: Write c.txt' })
    await card
      .getByRole('status')
      .filter({
        hasText: 'Token cap: 40,000 of 50,000 tokens used (75% reached); the task stops at the cap.',
      })
      .waitFor({ timeout: 30_000 })
    await card
      .getByTestId('cost-cap')
      .filter({ hasText: 'Token cap: 40,000 of 50,000 tokens used' })
      .waitFor()
    await card.getByTestId('task-unpriced').filter({ hasText: 'No price for fake-model' }).waitFor()
    await card.scrollIntoViewIfNeeded()
    await shootThemes(page, 'costcap-01-token-cap')

    third.release()
    await card.getByText('Failed', { exact: true }).waitFor({ timeout: 30_000 })
    await card
      .getByText('Stopped: token cap of 50,000 tokens reached (52,000 used).', { exact: false })
      .waitFor()
    await card
      .getByTestId('cost-cap')
      .filter({ hasText: 'Token cap: 52,000 of 50,000 tokens used' })
      .waitFor()
    expect(existsSync(join(session.dir, 'note.txt'))).toBe(true)
    expect(existsSync(join(session.dir, 'c.txt'))).toBe(false)
    // After a reload the card still shows the tokens against its cap (kept with the run).
    await page.reload()
    await conversation()
      .getByRole('article', { name: 'Task 1: Write c.txt' })
      .getByTestId('cost-cap')
      .filter({ hasText: 'Token cap: 52,000 of 50,000 tokens used' })
      .waitFor({ timeout: 30_000 })
  })

  it('a price entered in the composer makes the cost cap hold: warns at 75%, stops at the cap', async () => {
    const third = heldReply(withUsage(tools(['write_file', { path: 'b.txt', content: 'b' }]), usage(10_000)))
    llm.enqueue(
      withUsage(parsed({ type: 'bugfix', title: 'Write two files' }), usage(4_000)), // $0.01
      withUsage(tools(['write_file', { path: 'a.txt', content: 'a' }]), usage(28_000)), // $0.08: 80%
      third.reply, // $0.105
    )
    const cap = page.getByRole('textbox', { name: 'Cost cap in dollars' })
    await cap.fill('0.10')
    const warning = page.getByRole('group', { name: 'Cost cap warning' })
    await warning.getByRole('textbox', { name: 'Token cap in tokens' }).fill('')
    await warning.getByRole('textbox', { name: 'Input price in dollars per 1M tokens' }).fill('2.50')
    await warning.getByRole('textbox', { name: 'Output price in dollars per 1M tokens' }).fill('10')
    await warning.getByRole('button', { name: 'Save price' }).click()
    await expect.poll(() => warning.count(), { timeout: 30_000 }).toBe(0)
    const box = page.getByRole('textbox', { name: 'Message' })
    await box.fill('write two files')
    await box.press('Control+Enter')

    const card = conversation().getByRole('article', { name: 'Task 2: Write two files' })
    await card
      .getByRole('status')
      .filter({ hasText: 'Cost cap: $0.08 of $0.10 spent (75% reached); the task stops at the cap.' })
      .waitFor({ timeout: 30_000 })
    await card.getByTestId('cost-cap').filter({ hasText: 'Cost cap: $0.08 of $0.10 spent' }).waitFor()
    await card.getByText('Running', { exact: true }).waitFor()
    await card.scrollIntoViewIfNeeded()
    await shootThemes(page, 'costcap-02-warning')

    third.release()
    await card.getByText('Failed', { exact: true }).waitFor({ timeout: 30_000 })
    await card.getByText('Stopped: cost cap of $0.10 reached ($0.105 spent).', { exact: false }).waitFor()
    await card.getByTestId('cost-cap').filter({ hasText: 'Cost cap: $0.105 of $0.10 spent' }).waitFor()
    expect(existsSync(join(session.dir, 'a.txt'))).toBe(true)
    expect(existsSync(join(session.dir, 'b.txt'))).toBe(false)
    // The cap stays for the next task.
    expect(await cap.inputValue()).toBe('0.10')
    // The iteration the cap ended says so.
    await card.getByRole('button', { name: /\d+ iterations? · / }).click()
    await card.getByText('cost-cap', { exact: false }).first().waitFor()
    await card.scrollIntoViewIfNeeded()
    await shootThemes(page, 'costcap-03-stopped')
  })
})
