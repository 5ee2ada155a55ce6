import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { SnapshotEngine } from '../../../src/main/snapshots'
import { done, LoopHarness, parsed, say, tools, loopFixture } from './harness'
import {
  eightFlavors,
  flavorPlan,
  flavors,
  flavorsFile,
  invalidPlan,
  simplePlan,
  planThenBuildEvents,
} from './fixtures'
import { memoryLogger } from '../../../src/main/workspace/logFile'

const read = (h: LoopHarness, path: string) => readFileSync(join(h.dir, path), 'utf8')

describe('the Ralph loop against a scripted provider over real HTTP', () => {
  const t = loopFixture()

  it('carries a fresh task from message to post-snapshot: plan, validation, build, gates', async () => {
    t.llm.enqueue(
      parsed({
        type: 'fresh',
        title: 'Notes app',
        requirements: [{ marker: 'ADD', description: 'a hero', count: null }],
      }),
      tools(['write_file', { path: '.ralph/plan.tsx', content: simplePlan() }]),
      say('Plan written.'),
      tools(['write_file', { path: 'src/hero.ts', content: 'export const hero = "Notes"\n' }]),
      done('Built the hero section in src/hero.ts.'),
    )
    const result = await t.h.run('build me a notes app')
    expect(result).toMatchObject({ status: 'complete', task: 1, iterations: 2 })
    expect(t.h.types()).toEqual(planThenBuildEvents)
    expect(read(t.h, '.ralph/status.txt').trim()).toBe('complete')
    expect(read(t.h, '.ralph/phase.txt').trim()).toBe('build')
    expect(read(t.h, '.ralph/task.md')).toContain('# Task: Notes app')
    const tags = (await new SnapshotEngine({ projectDir: t.h.dir, logger: memoryLogger() }).list()).items.map(
      (s) => s.tag,
    )
    expect(tags).toEqual(expect.arrayContaining(['task-1-pre', 'task-1-post']))
  })

  it('defers a plan + complete in the same batch, then flips to BUILD and finishes', async () => {
    t.llm.enqueue(
      parsed({ type: 'fresh' }),
      tools(
        ['write_file', { path: '.ralph/plan.tsx', content: simplePlan() }],
        ['mark_complete', { summary: 'Planned it all.' }],
      ),
      tools(['write_file', { path: 'src/hero.ts', content: 'export const hero = 1\n' }]),
      done(),
    )
    const result = await t.h.run('build a notes app')
    expect(result.status).toBe('complete')
    // The premature complete ran no gates; the phase flipped at the next iteration top.
    const firstGate = t.h.types().indexOf('gate.result')
    expect(t.h.types().indexOf('phase.changed')).toBeLessThan(firstGate)
    expect(
      t.h.events.filter((e) => e.type === 'iteration.started').map((e) => (e as { phase: string }).phase),
    ).toEqual(['plan', 'build'])
  })

  it('keeps an invalid plan in PLAN and shows the model the failures', async () => {
    t.llm.enqueue(
      parsed({ type: 'fresh' }),
      tools(['write_file', { path: '.ralph/plan.tsx', content: invalidPlan }]),
      say('Plan written.'),
    )
    const result = await t.h.run('build a notes app', { maxIterations: 2 })
    expect(result).toMatchObject({ status: 'failed', reason: 'max-iterations' })
    expect(read(t.h, '.ralph/phase.txt').trim()).toBe('plan')
    const feedback = read(t.h, '.ralph/feedback.md')
    expect(feedback).toContain('FAIL [sections-have-gumdrops]')
    const secondIteration = t.h.chatRequests().at(-1)!
    expect(JSON.stringify(secondIteration.messages)).toContain('sections-have-gumdrops')
  })

  it('runs the gates in the PLAN phase when the task never writes a plan (non-plan pass-through)', async () => {
    t.llm.enqueue(
      parsed({ type: 'fresh' }),
      tools(
        ['write_file', { path: 'notes.md', content: '# Notes\n' }],
        ['mark_complete', { summary: 'Wrote notes.md as asked.' }],
      ),
    )
    const result = await t.h.run('write a notes file')
    expect(result).toMatchObject({ status: 'complete', iterations: 1 })
    expect(t.h.events.find((e) => e.type === 'iteration.started')).toMatchObject({ phase: 'plan' })
    expect(t.h.types()).not.toContain('phase.changed')
  })

  it('runs the gates at once for a non-plan task and refuses "complete" without changes', async () => {
    t.h.write({ 'src/app.ts': 'export const x = 1\n' })
    t.llm.enqueue(
      parsed({
        type: 'bugfix',
        requirements: [{ marker: 'FIX', description: 'x should be 2', count: null }],
      }),
      done('Fixed it.'), // nothing changed: changes-made must fail
      tools(
        ['edit_file', { path: 'src/app.ts', old_string: 'x = 1', new_string: 'x = 2' }],
        ['mark_complete', { summary: 'Set x to 2 in src/app.ts.' }],
      ),
    )
    const result = await t.h.run('x is wrong, it should be 2')
    expect(result).toMatchObject({ status: 'complete', iterations: 2 })
    const gates = t.h.events.filter((e) => e.type === 'gate.result')
    expect(gates.find((g) => g.gate === 'changes-made' && g.severity === 'failure')).toBeTruthy()
    expect(JSON.stringify(t.h.chatRequests().at(-1)!.messages)).toContain('Attempt 1 of 3')
    expect(read(t.h, 'src/app.ts')).toBe('export const x = 2\n')
  })

  it('makes the model see "converted instead of added" and succeeds once it adds', async () => {
    t.h.write({ 'src/flavors.ts': eightFlavors, '.ralph/plan.tsx': flavorPlan('') })
    t.llm.enqueue(
      parsed({
        type: 'mutation',
        requirements: [{ marker: 'ADD', description: '2 nighttime flavors', count: 2 }],
      }),
      tools([
        'write_file',
        {
          path: '.ralph/plan.tsx',
          content: flavorPlan(
            '{/* TASK-1 [ADD]: 2 nighttime flavors (Moonlit Calm, Deep Rest) */}\n          {/* EXISTING 8 flavors PRESERVED */}',
          ),
        },
      ]),
      say('Plan updated.'),
      tools(
        ['write_file', { path: 'src/flavors.ts', content: flavorsFile(flavors.converted) }],
        ['mark_complete', { summary: 'Added two night flavors.' }],
      ),
      tools(
        ['write_file', { path: 'src/flavors.ts', content: flavorsFile(flavors.added) }],
        ['mark_complete', { summary: 'Added Moonlit Calm and Deep Rest after the 8 originals.' }],
      ),
    )
    const result = await t.h.run('add 2 more drinks for nighttime')
    expect(result.status).toBe('complete')
    const failures = t.h.events.filter((e) => e.type === 'gate.result' && e.severity === 'failure')
    expect(failures.map((f) => (f as { message: string }).message).join('\n')).toMatch(
      /count unchanged \(8\)|PRESERVED violation/,
    )
    const lastRequest = JSON.stringify(t.h.chatRequests().at(-1)!.messages)
    expect(lastRequest).toContain('FAIL [scope-validation]')
  })

  it('recovers from a stall once, and rolls back to task-N-pre on the second', async () => {
    t.h.write({ 'src/keep.ts': 'export const keep = true\n' })
    const same = tools(['read_file', { path: 'src/keep.ts' }])
    t.llm.enqueue(parsed({ type: 'bugfix' }), tools(['write_file', { path: 'src/junk.ts', content: 'junk' }]))
    for (let i = 0; i < 8; i++) t.llm.enqueue(same)
    const result = await t.h.run('fix something', { maxIterations: 20 })
    expect(result).toMatchObject({ status: 'failed', reason: 'stall' })
    const stalls = t.h.events.filter((e) => e.type === 'stall.detected')
    expect(stalls.map((s) => (s as { action: string }).action)).toEqual(['recover', 'rollback'])
    const tags = (await new SnapshotEngine({ projectDir: t.h.dir, logger: memoryLogger() }).list()).items.map(
      (s) => s.tag,
    )
    expect(tags).toContain('stall-1-recovery')
    // Back to task-1-pre: the junk file is gone, the user's file is as it was.
    expect(existsSync(join(t.h.dir, 'src/junk.ts'))).toBe(false)
    expect(read(t.h, 'src/keep.ts')).toBe('export const keep = true\n')
    expect(read(t.h, '.ralph/status.txt').trim()).toBe('failed')
  })
})
