import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { SnapshotEngine } from '../../../src/main/snapshots'
import { eightFlavors, flavorPlan, simplePlan } from './fixtures'
import { done, LoopHarness, parsed, say, tools, loopFixture } from './harness'
import { memoryLogger } from '../../../src/main/workspace/logFile'

const read = (h: LoopHarness, path: string) => readFileSync(join(h.dir, path), 'utf8')

describe('task lifecycle across tasks (seed 000 phases 1, 3, 5)', () => {
  const t = loopFixture()

  it('clears stale state, appends history, and never reuses a task number', async () => {
    t.llm.enqueue(
      parsed({ type: 'bugfix', title: 'First fix' }),
      tools(
        ['write_file', { path: 'a.txt', content: 'a' }],
        ['mark_complete', { summary: 'Created a.txt for the first task.' }],
      ),
    )
    expect((await t.h.run('first')).status).toBe('complete')
    t.llm.enqueue(parsed({ type: 'bugfix', title: 'Second' }), say('looking'))
    const second = await t.h.run('second', { maxIterations: 1 })
    expect(second.task).toBe(2)
    expect(read(t.h, '.ralph/task-history.md')).toContain(
      '- Task 1 (complete): Created a.txt for the first task.',
    )
    expect(read(t.h, '.ralph/summary.md')).toBe('')
    expect(read(t.h, '.ralph/task.md')).toContain('Counter: 2')

    // Roll back to before task 2: the counter file goes back to 1, but task-2-pre still exists, so the next is 3.
    await new SnapshotEngine({ projectDir: t.h.dir, logger: memoryLogger() }).rollback('task-2-pre')
    expect(read(t.h, '.ralph/task-counter.txt').trim()).toBe('1')
    t.llm.enqueue(parsed({ type: 'needs-clarification', clarification: 'Which one?' }))
    expect((await t.h.run('third')).task).toBe(3)
  })

  it('takes task-N-pre even for an empty project', async () => {
    t.llm.enqueue(parsed({ type: 'needs-clarification', clarification: 'What should it be?' }))
    await t.h.run('make something')
    const pre = (await new SnapshotEngine({ projectDir: t.h.dir, logger: memoryLogger() }).list()).items.find(
      (s) => s.tag === 'task-1-pre',
    )
    expect(pre).toBeTruthy()
  })

  it("keeps a mutation in PLAN until the plan carries this task's markers", async () => {
    t.h.write({
      'src/flavors.ts': eightFlavors,
      '.ralph/plan.tsx': flavorPlan('{/* TASK-7 [ADD]: an old marker */}'),
    })
    t.llm.enqueue(
      parsed({ type: 'mutation', requirements: [{ marker: 'ADD', description: '2 flavors', count: 2 }] }),
      done('Did it all.'), // plan untouched: the complete is swallowed
      tools(['write_file', { path: '.ralph/plan.tsx', content: flavorPlan('<Slot name="note" />') }]), // changed, no markers
      say('Plan updated.'),
    )
    const result = await t.h.run('add 2 flavors', { maxIterations: 3 })
    expect(result.reason).toBe('max-iterations')
    expect(t.h.events.some((e) => e.type === 'gate.result')).toBe(false)
    expect(read(t.h, '.ralph/phase.txt').trim()).toBe('plan')
    // The stale TASK-7 marker was stripped at the start of the task.
    expect(JSON.stringify(t.h.chatRequests()[1]!.messages)).not.toContain('TASK-7')
    const allRequests = JSON.stringify(t.h.chatRequests().map((r) => r.messages))
    expect(allRequests).toContain('still the plan from before this task')
    expect(read(t.h, '.ralph/feedback.md')).toContain('no section carries a TASK-1 marker')
  })

  it('lets a bugfix skip the plan update and go straight to BUILD', async () => {
    t.h.write({ '.ralph/plan.tsx': simplePlan(), 'src/hero.ts': 'export const hero = "old"\n' })
    t.llm.enqueue(
      parsed({ type: 'bugfix', requirements: [{ marker: 'FIX', description: 'hero text', count: null }] }),
      tools(
        ['edit_file', { path: 'src/hero.ts', old_string: 'old', new_string: 'new' }],
        ['mark_complete', { summary: 'Fixed the hero text in src/hero.ts.' }],
      ),
    )
    const result = await t.h.run('the hero says old')
    expect(result).toMatchObject({ status: 'complete', iterations: 1 })
    expect(t.h.events.find((e) => e.type === 'iteration.started')).toMatchObject({ phase: 'build' })
  })

  it('treats iterations without any file change as a stall ("no progress") and rolls back on the second', async () => {
    t.h.write({ 'a.txt': 'a' })
    t.llm.enqueue(parsed({ type: 'bugfix' }))
    // Different reads every time (no repeat signature), but nothing ever changes.
    for (let i = 0; i < 12; i++)
      t.llm.enqueue(tools(['read_file', { path: 'a.txt', offset: i + 1 }]), say('still looking'))
    const result = await t.h.run('look around', { maxIterations: 30 })
    expect(result).toMatchObject({ status: 'failed', reason: 'no-progress' })
    const stalls = t.h.events.filter((e) => e.type === 'stall.detected')
    expect(stalls.map((s) => (s as { kind: string }).kind)).toEqual(['no-progress', 'no-progress'])
    expect(read(t.h, '.ralph/feedback.md')).toContain('rolled back to task-1-pre')
  })
})
