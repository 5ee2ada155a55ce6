import { mkdirSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { EventEnvelope } from '../../shared/api/contract'
import { makeTempDir } from '../../../tests/helpers/tempDir'
import { addTask, setSpec } from '../queue'
import { watchRalphFolder, type RalphChange } from '../queue/watchPlanFile'
import { createCore, type Core } from './core'

// A real core: writers outside it (the CLI, a shell, an editor) reach the Queue panel as events, with no polling.
describe('queue API: the .ralph/ watcher', () => {
  let home: ReturnType<typeof makeTempDir>
  let work: ReturnType<typeof makeTempDir>
  let core: Core
  let closed = false
  let projectId: number
  let seen: EventEnvelope[]

  async function call<T = unknown>(name: string, input: unknown): Promise<T> {
    const result = await core.dispatch(name, input)
    if (!result.ok) throw new Error(result.error.message)
    return result.value as T
  }
  const named = (name: string) => seen.filter((e) => e.name === name).map((e) => e.payload)
  const plan = (...parts: string[]) => join(work.path, '.ralph', ...parts)

  beforeEach(async () => {
    home = makeTempDir('ralph-home-')
    work = makeTempDir('ralph-work-')
    writeFileSync(join(work.path, 'spec.md'), '# Spec\n')
    core = createCore({ appDataDir: home.path, env: {}, host: { kind: 'web', openedFrom: 'test' } })
    closed = false
    seen = []
    core.events.subscribe((e) => seen.push(e))
    projectId = (await call<{ id: number }>('projects.open', { path: work.path })).id
  })

  afterEach(async () => {
    if (!closed) await core.close()
    home.cleanup()
    work.cleanup()
  })

  it('announces plan.jsonl written by the CLI, replaced by rename, and new notes; nothing after close', async () => {
    // The panel reads the queue: from now on the core watches .ralph/.
    await call('queue.state', { projectId })
    await call('queue.notifications', { projectId })

    // `ralph set-spec` / `ralph task add` in a terminal: the same use-cases, another process as far as the core knows.
    await setSpec({ projectDir: work.path, spec: 'spec.md' })
    await addTask({ projectDir: work.path, name: 'From the CLI' })
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
    await core.close()
    closed = true
    const before = seen.length
    const witness: RalphChange[][] = []
    const watch = watchRalphFolder(work.path, (c) => witness.push([...c]), { debounceMs: 150 })
    try {
      await watch.ready
      writeFileSync(plan('plan.jsonl'), '{"t":"spec","spec":"other.md"}\n')
      await expect.poll(() => witness).toEqual([['queue']])
      expect(seen.length).toBe(before)
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
