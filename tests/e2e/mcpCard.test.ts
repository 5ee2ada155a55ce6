import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Locator } from 'playwright-core'
import { shootThemes } from '../helpers/browser'
import { startAppSession, type AppSession } from '../helpers/appSession'
import { approveInSession } from '../helpers/mcpApproval'
import { done, parsed, tools } from '../integration/loop/harness'
import { DYING_SERVER, everythingServer } from '../integration/mcp/fixtures'

// A task whose model calls a tool of the project's own MCP server (the real server-everything from npm, started
// from .mcp.json inside the sandbox): the call is on the card like any other, marked as outside the snapshot.

/**
 * Focuses `target` until `tooltip` shows. The card can render again as its last parts load (after a reload most of
 * all), which takes the focus with it before the tooltip's delay is over: focus again until the hint is there.
 */
async function focusUntilTooltip(target: Locator, tooltip: Locator): Promise<void> {
  await expect
    .poll(
      async () => {
        if (await tooltip.isVisible()) return true
        await target.blur()
        await target.focus()
        return false
      },
      { timeout: 30_000, interval: 1_000 },
    )
    .toBe(true)
}

describe('an MCP call on the task card', { timeout: 180_000 }, () => {
  let session: AppSession
  beforeAll(async () => {
    session = await startAppSession('mcp-card', {
      '.mcp.json': `${JSON.stringify({ mcpServers: { everything: everythingServer } }, null, 2)}\n`,
      'index.html': '<h1>hi</h1>\n',
    })
    // A project's servers start only once the user approved them (issue 34).
    await approveInSession(session)
  })
  afterAll(() => session?.close())

  it('shows the call with its mark, and keeps it after a reload', async () => {
    const { page, host, projectId, llm } = session
    llm.enqueue(
      parsed({ type: 'bugfix', title: 'Echo through the project server' }),
      tools(['mcp__everything__echo', { message: 'ping through MCP' }]),
      tools(['write_file', { path: 'echo.txt', content: 'ping through MCP\n' }]),
      done('Echoed through the project server.'),
    )
    await page.goto(`${host.origin}/#/project/${projectId}`)
    const box = page.getByRole('textbox', { name: 'Message' })
    await box.fill('echo through the project server')
    await box.press('Control+Enter')
    const log = page.getByRole('log', { name: 'Conversation' })
    const card = log.getByRole('article', { name: 'Task 1: Echo through the project server' })
    await card.getByText('Complete', { exact: true }).waitFor({ timeout: 90_000 })
    await card.getByText('mcp__everything__echo').first().waitFor()
    const mark = card.getByText('outside the snapshot').first()
    await mark.waitFor()
    // Its hint is read out with it, and shows as a tooltip on keyboard focus (as on hover).
    expect(await mark.textContent()).toContain('A rollback cannot undo what an MCP server did')
    await mark.scrollIntoViewIfNeeded()
    await focusUntilTooltip(
      mark,
      page.getByRole('tooltip').filter({ hasText: 'A rollback cannot undo what an MCP server did' }),
    )
    await card.scrollIntoViewIfNeeded()
    await shootThemes(page, 'mcp-card-call')

    await page.reload()
    const again = log.getByRole('article', { name: 'Task 1: Echo through the project server' })
    await again.getByText('outside the snapshot').first().waitFor()
    // Ralph's own tools carry no such mark.
    expect(await again.getByText('outside the snapshot').count()).toBe(1)
  })
})

// Servers that do not start (a command that does not exist, one that exits at once) and one that dies when its
// tool is called: a line each on the card, live and after a reload; the task itself completes.
describe('MCP server lines on the task card', { timeout: 180_000 }, () => {
  let session: AppSession
  beforeAll(async () => {
    session = await startAppSession('mcp-card-notes', {
      '.mcp.json': `${JSON.stringify(
        {
          mcpServers: {
            ghost: { command: 'ghost-mcp-server-that-does-not-exist' },
            exits: { command: 'node', args: ['exits-mcp.js'] },
            dying: { command: 'node', args: ['dying-mcp.js'] },
          },
        },
        null,
        2,
      )}\n`,
      'exits-mcp.js': 'process.stderr.write("missing config\\n"); process.exit(1)\n',
      'dying-mcp.js': DYING_SERVER,
      'index.html': '<h1>hi</h1>\n',
    })
    // A project's servers start only once the user approved them (issue 34).
    await approveInSession(session)
  })
  afterAll(() => session?.close())

  it('says which server did not start or stopped, and keeps saying it after a reload', async () => {
    const { page, host, projectId, llm } = session
    llm.enqueue(
      parsed({ type: 'bugfix', title: 'Fix with the project servers' }),
      tools(['mcp__dying__crash', {}]),
      tools(['write_file', { path: 'fixed.txt', content: 'fixed\n' }]),
      done('Fixed without the servers.'),
    )
    await page.goto(`${host.origin}/#/project/${projectId}`)
    const box = page.getByRole('textbox', { name: 'Message' })
    await box.fill('fix it with the project servers')
    await box.press('Control+Enter')
    const log = page.getByRole('log', { name: 'Conversation' })
    const card = log.getByRole('article', { name: 'Task 1: Fix with the project servers' })
    const lines = card.getByRole('list', { name: 'MCP servers' }).getByRole('listitem')
    const expected = [
      /^MCP server "ghost" did not start: .*exit code 127.*not found/,
      /^MCP server "exits" did not start: .*exit code 1.*missing config/,
      /^MCP server "dying" stopped during the task: it ended with exit code 7.*dying on purpose/,
    ]
    // Live: the lines come with the loop's events.
    await expect
      .poll(() => lines.allTextContents(), { timeout: 90_000 })
      .toEqual(expected.map((e) => expect.stringMatching(e)))
    await card.getByText('Complete', { exact: true }).waitFor({ timeout: 90_000 })
    // The card's last part loads after it completes: the log settles, then the lines are brought into view.
    await card.getByRole('listitem').filter({ hasText: 'fixed.txt' }).last().waitFor()
    await lines.first().scrollIntoViewIfNeeded()
    await shootThemes(page, 'img27-mcp-card-notes')

    await page.reload()
    const again = log.getByRole('article', { name: 'Task 1: Fix with the project servers' })
    const stored = again.getByRole('list', { name: 'MCP servers' }).getByRole('listitem')
    await expect
      .poll(() => stored.allTextContents(), { timeout: 30_000 })
      .toEqual(expected.map((e) => expect.stringMatching(e)))
    await stored.first().scrollIntoViewIfNeeded()
    // What an MCP server is: on keyboard focus of the line's mark, as on hover.
    await focusUntilTooltip(
      stored.first().getByRole('img', { name: /^MCP servers are extra tools/ }),
      page.getByRole('tooltip').filter({ hasText: 'The task went on without this one' }),
    )
    await shootThemes(page, 'img27-mcp-card-notes-reloaded')
  })
})
