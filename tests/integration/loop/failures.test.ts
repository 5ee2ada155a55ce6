import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { SnapshotEngine } from '../../../src/main/snapshots'
import { initRalphDir } from '../../../src/main/workspace/initRalphDir'
import { done, LoopHarness, parsed, say, tools, loopFixture } from './harness'
import { memoryLogger } from '../../../src/main/workspace/logFile'

const read = (h: LoopHarness, path: string) => readFileSync(join(h.dir, path), 'utf8')

describe('loop failure paths', () => {
  const t = loopFixture()

  it('never starts the loop for needs-clarification, and the answer continues the same task', async () => {
    t.llm.enqueue(
      parsed({
        type: 'needs-clarification',
        clarification: 'Add 2 new drinks, or turn 2 existing ones into night drinks?',
      }),
    )
    const first = await t.h.run('add 2 more drinks for nighttime')
    expect(first).toMatchObject({
      status: 'needs-clarification',
      task: 1,
      question: 'Add 2 new drinks, or turn 2 existing ones into night drinks?',
    })
    expect(t.h.types()).toEqual(['task.started', 'snapshot.created', 'task.parsed', 'clarification.needed'])
    expect(t.h.chatRequests()).toHaveLength(1) // the parse call only
    expect(read(t.h, '.ralph/status.txt').trim()).toBe('waiting')

    t.llm.enqueue(
      parsed({ type: 'fresh', requirements: [{ marker: 'ADD', description: '2 new drinks', count: 2 }] }),
      tools(
        ['write_file', { path: 'drinks.txt', content: 'Moonlit Calm\nDeep Rest\n' }],
        ['mark_complete', { summary: 'Added two new night drinks.' }],
      ),
    )
    const second = await t.h.run('add new ones')
    expect(second).toMatchObject({ status: 'complete', task: 1 })
    expect(t.h.events[0]).toMatchObject({ type: 'task.started', continued: true, task: 1 })
    // The same task: no second pre-task snapshot, and the parser saw the original message with the answer.
    const tags = (await new SnapshotEngine({ projectDir: t.h.dir, logger: memoryLogger() }).list()).items.map(
      (s) => s.tag,
    )
    expect(tags.filter((t) => t.startsWith('task-1-pre'))).toEqual(['task-1-pre'])
    const parseRequest = JSON.stringify(t.h.chatRequests()[1]!.messages)
    expect(parseRequest).toContain('add 2 more drinks for nighttime')
    expect(parseRequest).toContain('add new ones')
  })

  it('ends the task at max iterations', async () => {
    t.llm.enqueue(parsed({ type: 'bugfix' }))
    let n = 0
    t.llm.fallback = say('thinking')
    for (let i = 0; i < 3; i++)
      t.llm.enqueue(tools(['write_file', { path: `f${n++}.txt`, content: String(n) }]), say('more to do'))
    const result = await t.h.run('fix it', { maxIterations: 3 })
    expect(result).toMatchObject({ status: 'failed', reason: 'max-iterations', iterations: 3 })
    expect(t.h.events.at(-1)).toMatchObject({ type: 'task.failed', reason: 'max-iterations' })
    expect(read(t.h, '.ralph/status.txt').trim()).toBe('failed')
  })

  it('retries a provider 500 twice, then succeeds', async () => {
    t.llm.enqueue(
      parsed({ type: 'bugfix' }),
      { kind: 'error', status: 500 },
      { kind: 'error', status: 503 },
      tools(
        ['write_file', { path: 'a.txt', content: 'a' }],
        ['mark_complete', { summary: 'Wrote a.txt as asked.' }],
      ),
    )
    const result = await t.h.run('write a.txt')
    expect(result.status).toBe('complete')
    expect(t.h.events.filter((e) => e.type === 'llm.retry')).toHaveLength(2)
  })

  it('fails with a provider error on a 401, without retrying', async () => {
    t.llm.enqueue(parsed({ type: 'bugfix' }), {
      kind: 'error',
      status: 401,
      body: { error: { message: 'Incorrect API key provided.' } },
    })
    const result = await t.h.run('write a.txt')
    expect(result).toMatchObject({ status: 'failed', reason: 'provider' })
    expect(result.message).toContain('refused the API key (401)')
    expect(t.h.events.filter((e) => e.type === 'llm.retry')).toHaveLength(0)
  })

  it('refuses ../ and absolute paths, writing nothing outside the project', async () => {
    const outside = join(tmpdir(), `ralph-outside-${process.pid}-${Date.now()}.txt`)
    t.llm.enqueue(
      parsed({ type: 'bugfix' }),
      tools(
        ['write_file', { path: '../escape.txt', content: 'x' }],
        ['write_file', { path: outside, content: 'x' }],
        ['edit_file', { path: '.ralph/snapshots.git/config', old_string: 'a', new_string: 'b' }],
      ),
      say('done trying'),
    )
    await t.h.run('escape', { maxIterations: 1 })
    const calls = t.h.events.filter((e) => e.type === 'tool.called')
    expect(calls.map((c) => (c as { ok: boolean }).ok)).toEqual([false, false, false])
    expect(existsSync(outside)).toBe(false)
    expect(existsSync(join(t.h.dir, '..', 'escape.txt'))).toBe(false)
  })

  it('kills a run_command that exceeds its timeout and tells the model', async () => {
    t.llm.enqueue(
      parsed({ type: 'bugfix' }),
      tools(['run_command', { command: 'sleep 30', timeout_ms: 300 }]),
      say('ok'),
    )
    const started = Date.now()
    await t.h.run('wait', { maxIterations: 1 })
    expect(Date.now() - started).toBeLessThan(15_000)
    const call = t.h.events.find((e) => e.type === 'tool.called') as { ok: boolean; summary: string }
    expect(call.ok).toBe(false)
    const toolResult = JSON.stringify(t.h.chatRequests().at(-1)!.messages)
    expect(toolResult).toMatch(/timed out|killed/i)
  })

  it('stops during a streaming call: the call is aborted and the pre-task snapshot is intact', async () => {
    t.h.write({ 'keep.txt': 'original' })
    t.llm.enqueue(parsed({ type: 'bugfix' }), { kind: 'stall', text: 'Let me think about' })
    const controller = new AbortController()
    const running = t.h.run('change keep.txt', { signal: controller.signal })
    await new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        if (t.h.types().includes('iteration.started')) {
          clearInterval(timer)
          resolve()
        }
      }, 10)
    })
    await new Promise((r) => setTimeout(r, 150))
    const stoppedAt = Date.now()
    controller.abort()
    const result = await running
    expect(Date.now() - stoppedAt).toBeLessThan(3000)
    expect(result).toMatchObject({ status: 'stopped' })
    expect(t.h.events.at(-1)).toMatchObject({ type: 'task.failed', reason: 'stopped' })
    const engine = new SnapshotEngine({ projectDir: t.h.dir, logger: memoryLogger() })
    expect((await engine.show('task-1-pre', 'keep.txt')).content.toString()).toBe('original')
    // A new task can start right away: the lock was released.
    t.llm.enqueue(parsed({ type: 'needs-clarification', clarification: 'What now?' }))
    expect((await t.h.run('next')).task).toBe(2)
  })

  it('builds every iteration from scratch: two iterations share no messages', async () => {
    t.llm.enqueue(
      parsed({ type: 'bugfix' }),
      tools(['write_file', { path: 'one.txt', content: '1' }]),
      say('First iteration over.'),
      tools(
        ['write_file', { path: 'two.txt', content: '2' }],
        ['mark_complete', { summary: 'Wrote one.txt and two.txt.' }],
      ),
    )
    await t.h.run('write two files')
    const requests = t.h.chatRequests().slice(1)
    const firstOfIteration2 = requests[2]!
    const iteration1 = requests.slice(0, 2).flatMap((r) => r.messages.filter((m) => m.role !== 'system'))
    expect(firstOfIteration2.messages.filter((m) => m.role !== 'system')).toHaveLength(1)
    for (const m of iteration1) {
      if (m.role === 'user') continue
      expect(firstOfIteration2.messages).not.toContainEqual(m)
    }
    expect(JSON.stringify(firstOfIteration2.messages)).not.toContain('First iteration over.')
  })

  it('fails the task after the cap on consecutive gate failures, with no post snapshot', async () => {
    t.llm.enqueue(parsed({ type: 'bugfix' }))
    for (let i = 0; i < 3; i++) t.llm.enqueue(done('I claim it is done without changing anything.'))
    const result = await t.h.run('do something')
    expect(result).toMatchObject({ status: 'failed', reason: 'gates' })
    expect(result.message).toContain('changes-made')
    const tags = (await new SnapshotEngine({ projectDir: t.h.dir, logger: memoryLogger() }).list()).items.map(
      (s) => s.tag,
    )
    expect(tags).not.toContain('task-1-post')
  })

  it("runs the project's own test command as a gate", async () => {
    t.h.write({ 'check.sh': 'test -f ok.txt\n' })
    await initRalphDir(t.h.dir, { openedFrom: 'test' })
    const config = JSON.parse(read(t.h, '.ralph/config.json'))
    config.commands.test = 'sh check.sh'
    writeFileSync(join(t.h.dir, '.ralph/config.json'), JSON.stringify(config))
    t.llm.enqueue(
      parsed({ type: 'bugfix' }),
      tools(
        ['write_file', { path: 'notes.txt', content: 'x' }],
        ['mark_complete', { summary: 'Wrote notes but not ok.txt.' }],
      ),
      tools(
        ['write_file', { path: 'ok.txt', content: 'ok' }],
        ['mark_complete', { summary: 'Created ok.txt so the test passes.' }],
      ),
    )
    const result = await t.h.run('make the test pass')
    expect(result.status).toBe('complete')
    const testGates = t.h.events.filter((e) => e.type === 'gate.result' && e.gate === 'test')
    expect(testGates.map((g) => (g as { severity: string }).severity)).toEqual(['failure', 'pass'])
  })
})
