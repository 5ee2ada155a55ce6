import { mkdirSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openQueueProject, type QueueProject } from '../../../tests/helpers/queueProject'
import { addTask, setSpec } from '../queue'
import { watchRalphFolder, type RalphChange } from '../queue/watchPlanFile'
import { memoryLogger } from '../workspace/logFile'

/** The queue's changes in these tests: failures they survive are kept in memory. */
const options = { logger: memoryLogger() }

// A real core: writers outside it (the CLI, a shell, an editor) reach the Queue panel as events, with no polling.
describe('queue API: the .ralph/ watcher', () => {
  let p: QueueProject
  let projectId: number
  const call = <T = unknown>(name: string, input: unknown) => p.call<T>(name, input)
  const named = (name: string) => p.seen.filter((e) => e.name === name).map((e) => e.payload)
  const plan = (...parts: string[]) => join(p.dir, '.ralph', ...parts)

  beforeEach(async () => {
    p = await openQueueProject()
    projectId = p.projectId
  })
  afterEach(() => p.close())

  it('announces plan.jsonl written by the CLI, replaced by rename, and new notes; nothing after close', async () => {
    // The panel reads the queue: from now on the core watches .ralph/.
    await call('queue.state', { projectId })
    await call('queue.notifications', { projectId })

    // `ralph set-spec` / `ralph task add` in a terminal: the same use-cases, another process as far as the core knows.
    await setSpec({ projectDir: p.dir, spec: 'spec.md', options })
    await addTask({ projectDir: p.dir, name: 'From the CLI', options })
    await expect.poll(() => named('queue.changed')).toContainEqual({ projectId, commit: null })
    const state = await call<{ tasks: { name: string }[] }>('queue.state', { projectId })
    expect(state.tasks.map((t) => t.name)).toEqual(['From the CLI'])

    // A hand edit saved the way editors do: a new file renamed over the old one.
    const count = named('queue.changed').length
    writeFileSync(plan('plan.jsonl.swp'), '{"t":"spec","spec":"spec.md"}\n')
    renameSync(plan('plan.jsonl.swp'), plan('plan.jsonl'))
    await expect.poll(() => named('queue.changed').length).toBeGreaterThan(count)

    mkdirSync(plan('notifications'), { recursive: true })
    writeFileSync(plan('notifications', 'escalation-2026-01-01T00-00-00Z.md'), '# Escalated\n')
    await expect.poll(() => named('queue.notificationsChanged')).toContainEqual({ projectId })

    // .ralph/plan.tsx edited in another editor: the plan editor hears it too, with the new version.
    writeFileSync(plan('plan.tsx'), 'export default <Plan />\n')
    await expect.poll(() => named('plan.changed')).toHaveLength(1)

    // Closing the core closes the watcher: a write after it is announced to nobody.
    await p.core.close() // closed again by p.close(), which the core allows
    const before = p.seen.length
    const witness: RalphChange[][] = []
    const watch = watchRalphFolder(p.dir, (c) => witness.push([...c]), { debounceMs: 150 })
    try {
      await watch.ready
      writeFileSync(plan('plan.jsonl'), '{"t":"spec","spec":"other.md"}\n')
      await expect.poll(() => witness).toEqual([['queue']])
      expect(p.seen.length).toBe(before)
    } finally {
      watch.close()
    }
  })

  it('watches a project as soon as its page asks for the build status: the plan editor hears outside edits', async () => {
    await call('queue.buildStatus', { projectId })
    mkdirSync(plan(), { recursive: true })
    writeFileSync(plan('plan.tsx'), 'export default <Plan />\n')
    await expect.poll(() => named('plan.changed')).toHaveLength(1)
    const version = (named('plan.changed')[0] as { version: string }).version
    expect(await call<{ version: string }>('plan.read', { projectId })).toMatchObject({ version })
  })

  it('announces a panel change once, with its commit (the watcher stays quiet about the core’s own write)', async () => {
    await call('queue.state', { projectId })
    const added = await call<{ commit: string }>('queue.addTask', {
      projectId,
      name: 'grid',
      spec: 'spec.md',
    })
    // An outside write afterwards: its announcement shows the watcher had seen the panel's and kept quiet.
    writeFileSync(plan('plan.tsx'), 'export default <Plan />\n')
    await expect.poll(() => named('plan.changed')).toHaveLength(1)
    expect(named('queue.changed')).toEqual([{ projectId, commit: added.commit }])
  })
})
