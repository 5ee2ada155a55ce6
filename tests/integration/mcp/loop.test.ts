// Issue 27: a whole task through the fake model server whose scripted model calls an MCP tool; the call goes
// through the loop's own tool runner (recorded, on the card, outside the snapshot). And Ask mode with MCP tools.
import { afterEach, describe, expect, it } from 'vitest'
import { McpSession } from '../../../src/main/mcp'
import { scratchHome } from '../../../src/main/sandbox/home'
import { askQuestion } from '../../../src/main/tasks/askQuestion'
import { removeDir } from '../../../src/main/tools/testkit'
import { memoryLogger } from '../../../src/main/workspace/logFile'
import type { LoopEvent } from '../../../src/shared/loopEvents'
import { done, loopFixture, parsed, say, tools } from '../loop/harness'
import { processesWithArg, waitFor } from '../../../src/main/sandbox/testkit'
import { DYING_SERVER, everythingServer, writeMcpJson, writeScript } from './fixtures'
import { approveProjectServers, testMcpServers } from '../../helpers/mcpApproval'

type Fixture = ReturnType<typeof loopFixture>
const appOf = (t: Fixture) => testMcpServers(t.h.db, t.h.home.path)

/** Writes the project's `.mcp.json` and approves its servers, as the user would before a task. */
async function approved(t: Fixture, servers: Record<string, unknown>): Promise<void> {
  writeMcpJson(t.h.dir, servers)
  await approveProjectServers(t.h.dir, appOf(t))
}

/** Runs a task with the app's MCP list (and so the approvals) of the fixture's database. */
const run = (t: Fixture, message: string, opts: Parameters<Fixture['h']['run']>[1] = {}) =>
  t.h.run(message, { ...opts, extra: { ...opts.extra, mcpServers: appOf(t) } })

type ToolCalled = Extract<LoopEvent, { type: 'tool.called' }>
const toolEvents = (events: LoopEvent[]) => events.filter((e): e is ToolCalled => e.type === 'tool.called')

describe('MCP tools in a task', () => {
  const t = loopFixture()
  afterEach(async () => removeDir(await scratchHome(t.h.dir)))

  it('offers mcp__everything__echo to the model, runs it through the tool runner and records the call', async () => {
    await approved(t, { everything: everythingServer })
    t.llm.enqueue(
      parsed({ type: 'bugfix' }),
      tools(['mcp__everything__echo', { message: 'ping through MCP' }]),
      tools(['write_file', { path: 'fixed.txt', content: 'fixed\n' }]),
      done('Echoed through MCP and fixed it.'),
    )
    const result = await run(t, 'fix it, and echo through MCP first')
    expect(result).toMatchObject({ status: 'complete' })

    const servers = t.h.events.find((e) => e.type === 'mcp.servers')
    expect(servers).toMatchObject({ servers: [{ server: 'everything', ok: true, message: '' }] })
    const echo = toolEvents(t.h.events).find((e) => e.name === 'mcp__everything__echo')!
    expect(echo).toMatchObject({ ok: true, outsideSnapshot: true, args: { message: 'ping through MCP' } })
    expect(echo.summary).toContain('ping through MCP')
    expect(toolEvents(t.h.events).find((e) => e.name === 'write_file')!.outsideSnapshot).toBeUndefined()

    // The model saw the server's tool with its schema, and the answer came back as a tool result.
    const requests = t.h.chatRequests() as unknown as {
      tools?: { function: { name: string; parameters: unknown } }[]
      messages: { role: string; content: unknown }[]
    }[]
    const offered = requests[1]!.tools!.find((x) => x.function.name === 'mcp__everything__echo')!
    expect(offered.function.parameters).toMatchObject({
      type: 'object',
      properties: { message: { type: 'string' } },
    })
    expect(requests[1]!.tools!.map((x) => x.function.name)).toContain('read_file')
    expect(JSON.stringify(requests[2]!.messages.filter((m) => m.role === 'tool'))).toContain(
      'ping through MCP',
    )

    // Recorded like every other call: in SQLite, counted in the iteration.
    const calls = t.h.runs.toolCallsForRun(result.runId!)
    expect(calls.map((c) => c.name)).toEqual(['mcp__everything__echo', 'write_file', 'mark_complete'])
    expect(calls[0]).toMatchObject({ ok: true, argsJson: '{"message":"ping through MCP"}' })
  }, 90_000)

  it('a server that does not start, and one that dies mid-task, are lines and tool errors, not a failed task', async () => {
    writeScript(t.h.dir, 'tools/bad.js', 'process.stderr.write("no config\\n"); process.exit(2)\n')
    writeScript(t.h.dir, 'tools/dying.js', DYING_SERVER)
    await approved(t, {
      bad: { command: 'node', args: ['tools/bad.js'] },
      dying: { command: 'node', args: ['tools/dying.js'] },
    })
    t.llm.enqueue(
      parsed({ type: 'bugfix' }),
      tools(['mcp__dying__crash', {}]),
      tools(['mcp__dying__crash', {}], ['write_file', { path: 'fixed.txt', content: 'fixed\n' }]),
      done(),
    )
    const result = await run(t, 'fix it')
    expect(result).toMatchObject({ status: 'complete' })
    const servers = t.h.events.find((e) => e.type === 'mcp.servers') as Extract<
      LoopEvent,
      { type: 'mcp.servers' }
    >
    expect(servers.servers).toEqual([
      { server: 'bad', ok: false, tools: 0, message: expect.stringMatching(/exit code 2.*no config/) },
      { server: 'dying', ok: true, tools: 1, message: '' },
    ])
    const crashes = toolEvents(t.h.events).filter((e) => e.name === 'mcp__dying__crash')
    expect(crashes.map((c) => c.ok)).toEqual([false, false])
    expect(crashes[1]!.summary).toMatch(/"dying" is no longer running/)
    // The model read the error as the tool's result.
    expect(JSON.stringify(t.h.chatRequests()[2]!.messages)).toMatch(/no longer running/)
  }, 90_000)
})

describe("MCP calls under the loop's rules", () => {
  const t = loopFixture()
  afterEach(async () => removeDir(await scratchHome(t.h.dir)))

  it('count against the tool budget of an iteration', async () => {
    await approved(t, { everything: everythingServer })
    t.h.write({ '.ralph/config.json': JSON.stringify({ maxToolCallsPerIteration: 1 }) })
    t.llm.enqueue(
      parsed({ type: 'bugfix' }),
      // One call per iteration: the second echo is never run, the iteration ends on its budget.
      tools(['mcp__everything__echo', { message: 'one' }], ['mcp__everything__echo', { message: 'two' }]),
      tools(['write_file', { path: 'fixed.txt', content: 'fixed\n' }]),
      say('Written.'),
      done(),
    )
    const result = await run(t, 'fix it')
    expect(result).toMatchObject({ status: 'complete' })
    const echoes = toolEvents(t.h.events).filter((e) => e.name === 'mcp__everything__echo')
    expect(echoes.map((e) => (e.args as { message: string }).message)).toEqual(['one'])
  }, 90_000)

  it('are signed for stall detection like any call: the same MCP call every iteration is a stall', async () => {
    await approved(t, { everything: everythingServer })
    t.llm.enqueue(parsed({ type: 'bugfix' }))
    for (let i = 0; i < 4; i++)
      t.llm.enqueue(tools(['mcp__everything__echo', { message: 'same' }]), say('Looked.'))
    const result = await run(t, 'fix it', { maxIterations: 4 })
    expect(result.status).toBe('failed')
    const stalls = t.h.events.filter((e) => e.type === 'stall.detected')
    expect(stalls.length).toBeGreaterThan(0)
    expect(t.h.events.findIndex((e) => e.type === 'stall.detected')).toBeGreaterThan(
      t.h.events.findIndex((e) => e.type === 'tool.called' && e.name === 'mcp__everything__echo'),
    )
  }, 90_000)

  it('are cancelled with the task: the call ends at once, the task is stopped, the server is gone', async () => {
    const marker = `ralph-mcp-loop-${process.pid}-${Date.now()}`
    await approved(t, {
      everything: { command: 'node', args: [everythingServer.args[0]!, 'stdio', marker] },
    })
    t.llm.enqueue(parsed({ type: 'bugfix' }), {
      kind: 'tools',
      text: 'Starting the long operation.',
      calls: [
        { name: 'mcp__everything__trigger-long-running-operation', arguments: { duration: 60, steps: 2 } },
      ],
    })
    const stop = new AbortController()
    const running = run(t, 'fix it', { signal: stop.signal })
    // The model's reply with the call is on its way: from then on the 60 s operation is (about to be) under way.
    await expect.poll(() => t.llm.requests.length, { timeout: 30_000 }).toBeGreaterThanOrEqual(2)
    const aborted = Date.now()
    stop.abort()
    const result = await running
    expect(result.status).toBe('stopped')
    // Far sooner than the operation's 60 s: the call was cut, not waited out.
    expect(Date.now() - aborted).toBeLessThan(30_000)
    const call = toolEvents(t.h.events).find(
      (e) => e.name === 'mcp__everything__trigger-long-running-operation',
    )
    // On a loaded machine the stop can land before the runner dispatched the call; a call that ran was cancelled.
    if (call) expect(call).toMatchObject({ ok: false, summary: expect.stringMatching(/cancelled/) })
    expect(await waitFor(async () => (await processesWithArg(marker)).length === 0)).toBe(true)
  }, 90_000)
})

describe('MCP tools in Ask mode', () => {
  const t = loopFixture()
  let session: McpSession | null = null
  afterEach(async () => {
    await session?.close()
    session = null
    removeDir(await scratchHome(t.h.dir))
  })

  it('offers only the read-only tools and refuses a call to another', async () => {
    await approved(t, { everything: everythingServer })
    const logger = memoryLogger()
    session = await McpSession.open({ projectDir: t.h.dir, env: process.env, logger, app: appOf(t) })
    t.llm.enqueue(
      tools(
        ['mcp__everything__toggle-simulated-logging', {}],
        ['mcp__everything__echo', { message: 'read only' }],
      ),
      say('Done reading.'),
    )
    const answer = await askQuestion({
      projectDir: t.h.dir,
      question: 'what does the server say?',
      model: { provider: 'openai-compatible', model: 'fake-model', baseUrl: t.llm.baseUrl, apiKey: null },
      signal: new AbortController().signal,
      logger,
      onTextDelta: () => undefined,
      mcp: session,
    })
    expect(answer.text).toContain('Done reading.')
    const [first, second] = t.h.chatRequests() as unknown as {
      tools: { function: { name: string } }[]
      messages: unknown[]
    }[]
    const offered = first!.tools.map((x) => x.function.name)
    expect(offered).toContain('mcp__everything__echo')
    expect(offered).toContain('read_file')
    expect(offered).not.toContain('mcp__everything__toggle-simulated-logging')
    expect(offered).not.toContain('write_file')
    const results = JSON.stringify(second!.messages)
    expect(results).toContain('read only')
    expect(results).not.toMatch(/Started simulated|logging (enabled|started)/i)
  }, 90_000)
})
