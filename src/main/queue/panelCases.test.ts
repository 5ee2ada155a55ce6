import { mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { isAppError } from '../../shared/errors'
import { makeTempDir } from '../../../tests/helpers/tempDir'
import { addPanelTask, listNotifications, moveTask, moveTaskInOrder } from './panelCases'
import { spec, stateOf, task } from './testkit'
import { queueLog, queryState } from './useCases'
import { queueView } from './view'
import { memoryLogger } from '../workspace/logFile'

/** The queue's changes in these tests: failures they survive are kept in memory. */
const options = { logger: memoryLogger() }

const orderOf = (state: Parameters<typeof queueView>[0]) => queueView(state).order

function fails(fn: () => unknown, message: RegExp): void {
  try {
    fn()
  } catch (err) {
    expect(isAppError(err, 'invalid-input'), String(err)).toBe(true)
    expect((err as Error).message).toMatch(message)
    return
  }
  throw new Error('expected an error')
}

describe('moving a task in the build order', () => {
  it('swaps file order among tasks of one priority', () => {
    const s = stateOf(spec(), task('t-a'), task('t-b'), task('t-c'))
    expect(orderOf(moveTaskInOrder(s, 't-c', 'up').state)).toEqual(['t-a', 't-c', 't-b'])
    expect(orderOf(moveTaskInOrder(s, 't-a', 'down').state)).toEqual(['t-b', 't-a', 't-c'])
  })

  it('takes the neighbour’s priority across a priority boundary', () => {
    const s = stateOf(spec(), task('t-a', { priority: 'high' }), task('t-b'))
    const out = moveTaskInOrder(s, 't-b', 'up')
    expect(orderOf(out.state)).toEqual(['t-b', 't-a'])
    expect(queueView(out.state).tasks.find((t) => t.id === 't-b')!.priority).toBe('high')
    expect(out.message).toBe('task move t-b: before t-a')
  })

  it('refuses to cross a dependency, even an indirect one, and says why', () => {
    const s = stateOf(spec(), task('t-a'), task('t-b', { deps: ['t-a'] }), task('t-c'))
    fails(() => moveTaskInOrder(s, 't-b', 'up'), /t-b depends on t-a/)
    fails(() => moveTaskInOrder(s, 't-a', 'down'), /t-b depends on t-a/)
    fails(() => moveTaskInOrder(s, 't-a', 'up'), /already first/)
    fails(() => moveTaskInOrder(s, 't-c', 'down'), /already last/)
    const chain = stateOf(spec(), task('t-a'), task('t-b', { deps: ['t-a'] }), task('t-c', { deps: ['t-b'] }))
    expect(orderOf(chain)).toEqual(['t-a', 't-b', 't-c'])
    fails(() => moveTaskInOrder(chain, 't-c', 'up'), /t-c depends on t-b/)
  })

  it('refuses done tasks, and follows a task’s inherited urgency', () => {
    fails(() => moveTaskInOrder(stateOf(spec(), task('t-a', { s: 'd' })), 't-a', 'up'), /only pending/)
    // t-a runs first because high-priority t-c waits for it; t-c moving below t-b lowers them both.
    const s = stateOf(
      spec(),
      task('t-a', { priority: 'low' }),
      task('t-b'),
      task('t-c', { priority: 'high', deps: ['t-a'] }),
    )
    expect(orderOf(s)).toEqual(['t-a', 't-c', 't-b'])
    expect(orderOf(moveTaskInOrder(s, 't-c', 'down').state)).toEqual(['t-b', 't-a', 't-c'])
  })
})

describe('the panel’s use-cases on a real folder', () => {
  let tmp: ReturnType<typeof makeTempDir> | null = null
  afterEach(() => tmp?.cleanup())

  it('sets the spec with the first task, moves tasks with one history commit each', async () => {
    tmp = makeTempDir('ralph-panel-')
    const projectDir = tmp.path
    writeFileSync(join(projectDir, 'spec.md'), '# Spec\n')
    await expect(addPanelTask({ projectDir, name: 'first', options })).rejects.toThrow(/no spec yet/)
    const a = await addPanelTask({ projectDir, name: 'first', spec: 'spec.md', options })
    expect(a.state.spec).toBe('spec.md')
    const b = await addPanelTask({ projectDir, name: 'second', options })
    const [ta, tb] = [a.ids[0]!, b.ids[0]!]
    const moved = await moveTask({ projectDir, id: tb, direction: 'up', options })
    expect(moved.state.order).toEqual([tb, ta])
    expect(moved.commit).toMatch(/^[0-9a-f]{40}$/)
    const lines = readFileSync(join(projectDir, '.ralph', 'plan.jsonl'), 'utf8')
      .trim()
      .split('\n')
    expect(lines.map((l) => (JSON.parse(l) as { id?: string }).id)).toEqual([undefined, tb, ta])
    expect((await queryState({ projectDir })).order).toEqual([tb, ta])
    const log = await queueLog({ projectDir })
    expect(log.kind === 'changes' && log.entries.map((e) => e.op)).toEqual([
      'task-move',
      'task-add',
      'task-add',
      'set-spec',
    ])
  })

  it('lists notifications newest first, with their event, heading and body', async () => {
    tmp = makeTempDir('ralph-panel-')
    const projectDir = tmp.path
    expect(await listNotifications({ projectDir })).toEqual({ items: [], total: 0 })
    const dir = join(projectDir, '.ralph', 'notifications')
    mkdirSync(dir, { recursive: true })
    writeFileSync(
      join(dir, 'escalation-2026-11-25T10-00-00Z.md'),
      '# Task t-1a2b failed 3 times\n\nRolled back.\n',
    )
    writeFileSync(join(dir, 'complete-2026-11-25T11-00-00Z.md'), 'Build finished.\n')
    writeFileSync(join(dir, 'notes.txt'), 'not a notification')
    utimesSync(join(dir, 'escalation-2026-11-25T10-00-00Z.md'), new Date(1000), new Date(1000))
    const { items, total } = await listNotifications({ projectDir })
    expect(total).toBe(2)
    expect(items.map((n) => [n.event, n.title, n.body])).toEqual([
      ['complete', 'complete-2026-11-25T11-00-00Z', 'Build finished.'],
      ['escalation', 'Task t-1a2b failed 3 times', 'Rolled back.'],
    ])
    expect((await listNotifications({ projectDir, limit: 1 })).items).toHaveLength(1)
  })
})
