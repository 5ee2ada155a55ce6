import { beforeEach, describe, expect, it } from 'vitest'
import type { LoopEvent } from '../../shared/loopEvents'
import { RunsRepo } from '../store/runsRepo'
import { useTempDatabase } from '../store/testkit'
import { clipStrings, LoopRecorder } from './recorder'

describe('LoopRecorder: one row and one event per fact', () => {
  const store = useTempDatabase('ralph-recorder-')
  let events: LoopEvent[]
  let rec: LoopRecorder
  beforeEach(() => {
    events = []
    rec = new LoopRecorder(new RunsRepo(store.db), (e) => events.push(e))
  })

  it('records gates, tool calls and the end of a task as rows that match their events', () => {
    rec.runStarted({ projectId: null, projectPath: '/p', task: 7, message: 'do it' })
    const iterationId = rec.iterationStarted(1, 'build', 100)
    const content = 'x'.repeat(3000)
    rec.toolCalled(iterationId, 1, 0, {
      name: 'write_file',
      args: { path: 'a.txt', content },
      canonicalArgs: JSON.stringify({ path: 'a.txt', content }),
      ok: true,
      output: 'Wrote a.txt\nmore',
      durationMs: 12.6,
      changedFiles: ['a.txt'],
    })
    rec.iterationEnded(iterationId, 1, { signature: 'abc', toolCalls: 1, outcome: 'complete' })
    rec.gatesRan(1, 2, [
      { gate: 'has-summary', severity: 'pass', message: 'ok' },
      { gate: 'test', severity: 'failure', message: 'exit 1' },
    ])
    const receipt = rec.completed(1, 'Done.', 'task-7-post')

    const gates = store.db
      .prepare('SELECT iteration, attempt, gate, severity FROM gate_results WHERE run_id = ? ORDER BY id')
      .all(rec.runId)
    expect(gates).toEqual([
      { iteration: 1, attempt: 2, gate: 'has-summary', severity: 'pass' },
      { iteration: 1, attempt: 2, gate: 'test', severity: 'failure' },
    ])
    const run = store.db.prepare('SELECT task, status, iterations FROM runs WHERE id = ?').get(rec.runId)
    expect(run).toEqual({ task: 7, status: 'complete', iterations: 1 })
    // The store keeps the full arguments; the event clips them.
    const call = store.db.prepare('SELECT args_json AS a, duration_ms AS d FROM tool_calls').get() as {
      a: string
      d: number
    }
    expect(call.a).toContain(content)
    expect(call.d).toBe(13)

    expect(events.map((e) => e.type)).toEqual(['tool.called', 'gate.result', 'gate.result', 'task.completed'])
    expect(events[0]).toMatchObject({
      task: 7,
      iteration: 1,
      summary: 'Wrote a.txt',
      args: { path: 'a.txt' },
    })
    expect((events[0] as { args: { content: string } }).args.content).toMatch(/… \(3000 characters\)$/)
    expect(events[2]).toMatchObject({ gate: 'test', severity: 'failure', attempt: 2 })
    expect(events[3]).toMatchObject({ postTag: 'task-7-post', receipt })
  })

  it('fails a task that never got a run row without a receipt', () => {
    const receipt = rec.failed(0, 'provider', 'No provider.', null)
    expect(receipt).toBeUndefined()
    expect(events).toEqual([
      {
        type: 'task.failed',
        task: 0,
        reason: 'provider',
        message: 'No provider.',
        iterations: 0,
        rolledBackTo: null,
      },
    ])
  })

  it('clips long strings at any depth', () => {
    expect(clipStrings({ a: ['y'.repeat(5)] }, 3)).toEqual({ a: ['yyy… (5 characters)'] })
  })
})
