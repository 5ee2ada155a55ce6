// Issue 27: an MCP server that does not start, or stops during the task, is a line on the task's card that is kept
// (mcp_server_notes): a real core through the contract, a task from chat.send against the fake model server, and
// a project `.mcp.json` with a command that does not exist, one that exits with 1 at once, one that never answers,
// and one that dies when its tool is called. The task itself completes.
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { McpTaskNote } from '../../../src/shared/api/mcp'
import type { LoopEvent } from '../../../src/shared/loopEvents'
import { scratchHome } from '../../../src/main/sandbox/home'
import { removeDir } from '../../../src/main/tools/testkit'
import { useChatCore } from '../../helpers/chatCore'
import { approveWithApi } from '../../helpers/mcpApproval'
import { parsed, tools } from '../loop/harness'
import { DYING_SERVER, writeMcpJson, writeScript } from './fixtures'

describe('MCP server lines on a task card', { timeout: 120_000 }, () => {
  const chat = useChatCore({ afterClose: async ({ dir }) => removeDir(await scratchHome(dir)) })
  const { call } = chat

  it('keeps a line for each server that did not start or died, readable after the task (mcp.taskNotes)', async () => {
    writeScript(chat.dir, 'tools/exits.js', 'process.stderr.write("missing config\\n"); process.exit(1)\n')
    writeScript(chat.dir, 'tools/dying.js', DYING_SERVER)
    writeMcpJson(chat.dir, {
      ghost: { command: 'ghost-mcp-server-that-does-not-exist', args: ['--stdio'] },
      exits: { command: 'node', args: ['tools/exits.js'] },
      // Runs but never answers `initialize`: set-up is bounded in time (MCP_SETUP_TIMEOUT_MS).
      silent: { command: 'node', args: ['-e', 'setInterval(() => {}, 1000)'] },
      dying: { command: 'node', args: ['tools/dying.js'] },
    })
    await approveWithApi(call, chat.projectId)
    chat.llm.enqueue(
      parsed({ type: 'bugfix', title: 'Fix it' }),
      tools(['mcp__dying__crash', {}]),
      tools(['mcp__dying__crash', {}]),
      tools(
        ['write_file', { path: 'fixed.txt', content: 'fixed\n' }],
        ['mark_complete', { summary: 'Fixed.' }],
      ),
    )
    await call('chat.send', { projectId: chat.projectId, mode: 'task', text: 'fix it' })
    const finished = await waitFor(() =>
      chat.seen.find(
        (e) =>
          e.name === 'loop.finished' && (e.payload as { projectId: number }).projectId === chat.projectId,
      ),
    )
    expect(finished.payload).toMatchObject({ status: 'complete' })

    // Live: the loop's events say it as it happens (the start, then the server that stopped, once).
    const servers = chat.seen
      .filter((e) => e.name === 'loop.event')
      .map((e) => (e.payload as { event: LoopEvent }).event)
      .filter((e): e is Extract<LoopEvent, { type: 'mcp.servers' }> => e.type === 'mcp.servers')
    expect(servers.map((e) => e.servers.map((s) => [s.server, s.ok, s.lost ?? false]))).toEqual([
      [
        ['ghost', false, false],
        ['exits', false, false],
        ['silent', false, false],
        ['dying', true, false],
      ],
      [['dying', false, true]],
    ])

    // Kept: the card reads them back by its run, as a reload would.
    const history = await call<{ messages: { kind: string; card?: { runId: number | null } }[] }>(
      'chat.history',
      { projectId: chat.projectId },
    )
    const runId = history.messages.find((m) => m.kind === 'task')!.card!.runId!
    const notes = await call<McpTaskNote[]>('mcp.taskNotes', { projectId: chat.projectId, runId })
    expect(notes).toEqual([
      { server: 'ghost', kind: 'start', message: expect.stringMatching(/exit code 127.*not found/) },
      { server: 'exits', kind: 'start', message: expect.stringMatching(/exit code 1.*missing config/) },
      { server: 'silent', kind: 'start', message: 'it did not answer within 20 s' },
      {
        server: 'dying',
        kind: 'lost',
        message: expect.stringMatching(/^it ended with exit code 7.*dying on purpose/),
      },
    ])
    // Another project's run is not readable from here.
    const other = join(chat.work, 'other')
    mkdirSync(other)
    const otherId = (await call<{ id: number }>('projects.open', { path: other })).id
    await expect(call('mcp.taskNotes', { projectId: otherId, runId })).rejects.toThrow(/No run/)
  })
})

async function waitFor<T>(find: () => T | undefined, timeoutMs = 90_000): Promise<T> {
  const started = Date.now()
  for (;;) {
    const found = find()
    if (found !== undefined) return found
    if (Date.now() - started > timeoutMs) throw new Error('timed out')
    await new Promise((r) => setTimeout(r, 50))
  }
}
