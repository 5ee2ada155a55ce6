import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { shootThemes } from '../helpers/browser'
import type { FakeLlmServer } from '../fixtures/fakeLlmServer'
import { startAppSession, type AppSession } from '../helpers/appSession'
import { parsed, tools, withUsage } from '../integration/loop/harness'

// A chat task with a cost cap in Chromium against the real `npm run web`; gpt-4o has a catalog price ($2.50 per
// 1M input tokens), so the scripted usage has a known cost. The call after the warning is held until the warning
// has been looked at, so the screenshots never race the loop.
describe('a chat task with a cost cap, in Chromium', { timeout: 120_000 }, () => {
  let session: AppSession
  let llm: FakeLlmServer
  let page: Page

  beforeAll(async () => {
    session = await startAppSession('capped', { 'index.html': '<h1>hi</h1>\n' }, { RALPH_MODEL: 'gpt-4o' })
    ;({ llm, page } = session)
  })
  afterAll(() => session?.close())

  it('warns at 75% and stops at the cap, and the card says so', async () => {
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    const usage = (prompt_tokens: number) => ({ prompt_tokens, completion_tokens: 0 })
    llm.enqueue(
      withUsage(parsed({ type: 'bugfix', title: 'Write two files' }), usage(4_000)), // $0.01
      withUsage(tools(['write_file', { path: 'a.txt', content: 'a' }]), usage(28_000)), // $0.08: 80%
      {
        kind: 'computed',
        reply: async () => {
          await held
          return withUsage(tools(['write_file', { path: 'b.txt', content: 'b' }]), usage(10_000)) // $0.105
        },
      },
    )
    await page.goto(`${session.host.origin}/#/project/${session.projectId}`)
    const cap = page.getByRole('textbox', { name: 'Cost cap in dollars' })
    await cap.fill('0.10')
    const box = page.getByRole('textbox', { name: 'Message' })
    await box.fill('write two files')
    await box.press('Control+Enter')

    const card = page.getByRole('log', { name: 'Conversation' }).getByRole('article', {
      name: 'Task 1: Write two files',
    })
    await card
      .getByRole('status')
      .filter({
        hasText: '75% of the cost cap used: $0.08 of $0.10. The task stops when it reaches the cap.',
      })
      .waitFor({ timeout: 30_000 })
    await card.getByText('Running', { exact: true }).waitFor()
    await card.scrollIntoViewIfNeeded()
    await shootThemes(page, 'costcap-01-warning')

    release()
    await card.getByText('Failed', { exact: true }).waitFor({ timeout: 30_000 })
    await card.getByText('Stopped: cost cap of $0.10 reached ($0.105 spent).', { exact: false }).waitFor()
    await expect.poll(() => card.getByTestId('cost-cap').count()).toBe(0)
    expect(existsSync(join(session.dir, 'a.txt'))).toBe(true)
    expect(existsSync(join(session.dir, 'b.txt'))).toBe(false)
    // The cap stays for the next task.
    expect(await cap.inputValue()).toBe('0.10')
    // The iteration the cap ended says so.
    await card.getByRole('button', { name: /1 iteration/ }).click()
    await card.getByText('cost-cap', { exact: false }).first().waitFor()
    await card.scrollIntoViewIfNeeded()
    await shootThemes(page, 'costcap-02-stopped')
  })
})
