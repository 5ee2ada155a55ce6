import { beforeEach, describe, expect, it } from 'vitest'
import { EscalationsRepo, type EscalationInput } from './escalationsRepo'
import { useTempDatabase } from './testkit'

describe('EscalationsRepo (migration 013)', () => {
  const store = useTempDatabase('ralph-escalations-')
  let repo: EscalationsRepo
  beforeEach(() => {
    repo = new EscalationsRepo(store.db)
  })

  const input = (taskId: string, extra: Partial<EscalationInput> = {}): EscalationInput => ({
    projectId: null,
    projectPath: '/p',
    taskId,
    kind: 'failures',
    message: `${taskId} failed 3 times`,
    failures: 3,
    rolledBackTo: 'task-1-pre',
    safetyTag: 'safety-1',
    ...extra,
  })

  it('keeps one open escalation per task and project until it is cleared, then keeps it as history', () => {
    repo.escalate(input('t-a'), 1_000)
    repo.escalate(input('t-b', { kind: 'stuck', rolledBackTo: null, safetyTag: null }), 2_000)
    repo.escalate(input('t-a', { projectPath: '/other' }), 3_000)
    expect(repo.open('/p', 't-a')).toEqual({
      taskId: 't-a',
      kind: 'failures',
      message: 't-a failed 3 times',
      failures: 3,
      rolledBackTo: 'task-1-pre',
      safetyTag: 'safety-1',
      at: 1_000,
    })
    expect(repo.listOpen('/p').map((e) => [e.taskId, e.kind])).toEqual([
      ['t-a', 'failures'],
      ['t-b', 'stuck'],
    ])
    // A second escalation of the same task replaces the open one.
    repo.escalate(input('t-a', { failures: 4 }), 4_000)
    expect(repo.listOpen('/p').map((e) => [e.taskId, e.failures])).toEqual([
      ['t-b', 3],
      ['t-a', 4],
    ])

    expect(repo.clear('/p', 't-a', 'edit', 5_000)).toBe(true)
    expect(repo.clear('/p', 't-a', 'edit', 5_000)).toBe(false)
    expect(repo.open('/p', 't-a')).toBeNull()
    expect(repo.open('/other', 't-a')).not.toBeNull()
    const history = store.db
      .prepare('SELECT task_id AS taskId, cleared_by AS by FROM queue_escalations WHERE project_path = ?')
      .all('/p')
    expect(history).toContainEqual({ taskId: 't-a', by: 'edit' })
  })

  it('counts only the rejections not waived; a retry waives the task’s rejections so far and ends it', () => {
    const tombstones = [
      { doneAt: 'c1', reason: 'AC1 failed' },
      { doneAt: 'c2', reason: 'AC1 failed' },
    ]
    expect(repo.countFailures('/p', 't-a', tombstones)).toBe(2)
    repo.waive('/p', 't-a', [{ doneAt: 'c2', reason: 'AC1 failed' }], 'replan')
    expect(repo.countFailures('/p', 't-a', tombstones)).toBe(1)
    // Waivers belong to their task and project.
    expect(repo.countFailures('/p', 't-b', tombstones)).toBe(2)
    expect(repo.countFailures('/other', 't-a', tombstones)).toBe(2)

    expect(repo.retry('/p', 't-a', tombstones)).toBeNull()
    expect(repo.countFailures('/p', 't-a', tombstones)).toBe(1)

    repo.escalate(input('t-a'))
    expect(repo.retry('/p', 't-a', tombstones)).toMatchObject({ taskId: 't-a', failures: 3 })
    expect(repo.open('/p', 't-a')).toBeNull()
    expect(repo.countFailures('/p', 't-a', tombstones)).toBe(0)
    // A later rejection counts again.
    expect(repo.countFailures('/p', 't-a', [...tombstones, { doneAt: 'c3', reason: 'AC2' }])).toBe(1)

    repo.unwaive('/p', 't-a', tombstones[0]!)
    expect(repo.countFailures('/p', 't-a', tombstones)).toBe(1)
  })
})
