import { describe, expect, it } from 'vitest'
import type { QueueCommand } from './commands'
import { emptyQueue, serializePlan, type QueueState } from './planFile'
import { reconstructTasks, type HistoryVersion } from './reconstruct'
import { run } from './testkit'

/** History versions as the ref would hold them: one per command, with the command's op. */
function history(cmds: QueueCommand[], start: QueueState = emptyQueue()): HistoryVersion[] {
  const states = run(start, ...cmds).slice(1)
  return states.map((s, i) => ({
    commit: `c${i}`,
    date: `2026-01-18T10:${String(i).padStart(2, '0')}:00Z`,
    op: cmds[i]!.op,
    content: serializePlan(s),
  }))
}

const add = (name: string, deps?: string[]): QueueCommand => ({ op: 'task-add', input: { name, deps } })
const done = (id: string, doneAt: string): QueueCommand => ({ op: 'task-done', id, doneAt })

describe('reconstructTasks (seed 001 "History Interpretation")', () => {
  it('tells accepted, rejected and cancelled apart by done_at and tombstones', () => {
    const versions = history([
      { op: 'set-spec', spec: 'a.md' },
      add('accepted one'), // t-0001
      add('rejected one'), // t-0002
      add('never started'), // t-0003
      done('t-0001', 'd1'),
      done('t-0002', 'd2'),
      { op: 'task-reject', id: 't-0002', reason: 'wrong format' },
      { op: 'task-accept' },
      { op: 'plan-start', spec: 'b.md' },
    ])
    const byName = Object.fromEntries(reconstructTasks(versions).map((t) => [t.name, t]))
    expect(byName['accepted one']).toMatchObject({
      status: 'accepted',
      created: { commit: 'c1' },
      done: { commit: 'c4' },
      accepted: { commit: 'c7' },
      rejected: null,
    })
    expect(byName['rejected one']).toMatchObject({
      status: 'rejected',
      rejected: { commit: 'c6', reason: 'wrong format' },
      accepted: null,
    })
    expect(byName['never started']).toMatchObject({
      status: 'cancelled',
      cancelled: { commit: 'c8' },
      done: null,
    })
  })

  it('counts a task rejected, retried and then accepted as accepted, keeping its rejection', () => {
    const versions = history([
      { op: 'set-spec', spec: 'a.md' },
      add('retried'),
      done('t-0001', 'd1'),
      { op: 'task-reject', reason: 'flaky' },
      done('t-0001', 'd2'),
      { op: 'task-accept' },
    ])
    const [t] = reconstructTasks(versions)
    expect(t).toMatchObject({ status: 'accepted', done: { commit: 'c4' }, accepted: { commit: 'c5' } })
    expect(t!.rejections).toEqual([{ commit: 'c3', date: versions[3]!.date, reason: 'flaky', doneAt: 'd1' }])
  })

  it('counts a done task dropped by a new plan as cancelled, and open tasks as pending or done', () => {
    const versions = history([
      { op: 'set-spec', spec: 'a.md' },
      add('unverified'),
      done('t-0001', 'd1'),
      { op: 'plan-start', spec: 'b.md' },
      add('open'),
      add('finished'),
      done('t-0003', 'd3'),
    ])
    expect(reconstructTasks(versions).map((t) => `${t.name}:${t.status}`)).toEqual([
      'unverified:cancelled',
      'open:pending',
      'finished:done',
    ])
  })

  it('treats a task a rollback brought back (same id and name) as the same task', () => {
    const versions = history([{ op: 'set-spec', spec: 'a.md' }, add('kept')])
    // The file as a rollback left it (the task gone), then the file restored again.
    versions.push({
      commit: 'c2',
      date: '2026-01-18T11:00:00Z',
      op: 'set-spec',
      content: '{"t":"spec","spec":"a.md"}\n',
    })
    versions.push({ ...versions[1]!, commit: 'c3', op: 'issue-add' })
    const tasks = reconstructTasks(versions)
    expect(tasks).toHaveLength(1)
    expect(tasks[0]).toMatchObject({ status: 'pending', cancelled: null })
  })
})
