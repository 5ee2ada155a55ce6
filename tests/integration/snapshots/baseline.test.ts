import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { AppError } from '../../../src/shared/errors'
import type { BaselineProgress, SnapshotMeta } from '../../../src/shared/api/snapshots'
import { snapshotHandlers, startProjectBaseline } from '../../../src/main/api/snapshots'
import type { ApiContext } from '../../../src/main/api/types'
import { acquireTaskLock, runningBaseline, SnapshotEngine } from '../../../src/main/snapshots'
import { openDatabase, type Db } from '../../../src/main/store/database'
import { SnapshotsRepo } from '../../../src/main/store/snapshotsRepo'
import { removeDir, tempProject, write } from '../../../src/main/snapshots/testkit'

// The background baseline of a project opened without snapshots (DESIGN.md §5), through the same function
// `projects.open` calls, on a real 10,000-file folder, real git and real SQLite.
const FILES = 10_000

let root: string
let db: Db
let ctx: ApiContext
let events: { name: string; payload: unknown }[]
let projectId: number
const project = (): string => join(root, 'project')

function makeProject(): void {
  for (let i = 0; i < FILES; i++) {
    write(
      project(),
      `src/m${Math.floor(i / 100)}/file${i}.ts`,
      `export const v${i} = ${i}\n${'// pad\n'.repeat(20)}`,
    )
  }
}

beforeEach(() => {
  root = tempProject('ralph-baseline-')
  db = openDatabase(join(root, 'home', 'ralph.db'))
  makeProject()
  projectId = Number(
    db
      .prepare('INSERT INTO projects (path, name, created_at, last_opened_at) VALUES (?, ?, ?, ?)')
      .run(project(), 'project', 1, 1).lastInsertRowid,
  )
  events = []
  ctx = {
    db,
    appDataDir: join(root, 'home'),
    resolveProject: (id) => {
      if (id !== projectId) throw new AppError('not-found', `No project ${id}`)
      return { id, path: project(), name: 'project', createdAt: 1, lastOpenedAt: 1 }
    },
    emit: (name, payload) => events.push({ name, payload }),
  }
})
afterEach(async () => {
  await runningBaseline(project())?.done.catch(() => undefined)
  db.close()
  removeDir(root)
})

const progressEvents = (): BaselineProgress[] =>
  events
    .filter((e) => e.name === 'snapshot.baselineProgress')
    .map((e) => (e.payload as { progress: BaselineProgress }).progress)

const finished = () =>
  events.find((e) => e.name === 'snapshot.baselineFinished')?.payload as
    | { outcome: string; tag: string | null; message: string }
    | undefined

describe('the background baseline', { timeout: 120_000 }, () => {
  it('reports progress, and a task started meanwhile waits for it and saves only what changed', async () => {
    startProjectBaseline(ctx, projectId, FILES)
    const job = runningBaseline(project())
    expect(job).not.toBeNull()
    // The contract's state call sees it while it runs.
    expect(await snapshotHandlers['snapshots.baselineState']({ projectId }, ctx)).not.toBeNull()

    // What the loop does when a task starts: its own engine, holding the task lock, saves task-1-pre.
    await expect.poll(() => progressEvents().length).toBeGreaterThan(0)
    expect(runningBaseline(project())).not.toBeNull()
    const lock = await acquireTaskLock(project(), 'task 1')
    const loopEngine = new SnapshotEngine({
      projectDir: project(),
      index: new SnapshotsRepo(db).indexFor(projectId),
      taskLock: lock,
    })
    let pre: SnapshotMeta
    try {
      pre = await loopEngine.save({ kind: 'task-pre', task: 1, message: 'pre-task 1' })
    } finally {
      await lock.release()
    }

    expect(finished()).toMatchObject({ outcome: 'saved' })
    const baselineTag = finished()!.tag!
    expect(baselineTag).toMatch(/^baseline-\d+$/)

    // Progress: listed, then files read of the estimated total, then saving.
    const progress = progressEvents()
    expect(progress[0]).toEqual({ phase: 'listing', done: 0, total: null })
    const reading = progress.filter((p) => p.phase === 'reading')
    expect(reading[0]).toMatchObject({ done: 0 })
    expect(reading[0]!.total).toBeGreaterThanOrEqual(FILES)
    expect(progress.at(-1)).toMatchObject({ phase: 'saving' })
    expect(progress.at(-1)!.done).toBeGreaterThanOrEqual(FILES)

    // The baseline holds every file; the task's pre-snapshot came after it and stored only what changed since
    // (nothing in the project: the .ralph/ state at most), not the 10,000 files again.
    const list = await snapshotHandlers['snapshots.list']({ projectId }, ctx)
    expect(list.items.map((s) => s.tag)).toEqual(['task-1-pre', baselineTag])
    const baseline = list.items[1]!
    expect(baseline).toMatchObject({ kind: 'baseline', task: null })
    expect(baseline.added).toBeGreaterThanOrEqual(FILES)
    expect(pre!.added + pre!.modified + pre!.deleted).toBeLessThan(10)
    const usage = await snapshotHandlers['snapshots.usage']({ projectId }, ctx)
    // The pre-snapshot's few objects are loose; the 10,000 blobs went into the baseline's pack.
    expect(usage.looseObjects).toBeLessThan(20)
    expect(events.filter((e) => e.name === 'snapshot.created')).toHaveLength(1)
  })

  it('can be cancelled: nothing is committed, the state call says none runs, and a later save still works', async () => {
    startProjectBaseline(ctx, projectId, FILES)
    await expect.poll(() => progressEvents().length).toBeGreaterThan(0)
    expect(await snapshotHandlers['snapshots.cancelBaseline']({ projectId }, ctx)).toEqual({
      cancelled: true,
    })
    await expect.poll(() => finished()?.outcome).toBe('cancelled')
    expect(await snapshotHandlers['snapshots.baselineState']({ projectId }, ctx)).toBeNull()
    expect(await snapshotHandlers['snapshots.cancelBaseline']({ projectId }, ctx)).toEqual({
      cancelled: false,
    })
    expect((await snapshotHandlers['snapshots.list']({ projectId }, ctx)).total).toBe(0)

    const saved = await snapshotHandlers['snapshots.save']({ projectId, kind: 'manual' }, ctx)
    expect(saved.added).toBeGreaterThanOrEqual(FILES)
  })

  it('is not taken for a project too small to need one', async () => {
    startProjectBaseline(ctx, projectId, 999)
    expect(runningBaseline(project())).toBeNull()
    expect(await snapshotHandlers['snapshots.baselineState']({ projectId }, ctx)).toBeNull()
    expect(events).toEqual([])
  })

  it('is skipped for a project that has snapshots', async () => {
    await snapshotHandlers['snapshots.save']({ projectId, kind: 'manual' }, ctx)
    startProjectBaseline(ctx, projectId, FILES)
    await expect.poll(() => finished()?.outcome).toBe('skipped')
    expect(progressEvents()).toEqual([])
    expect((await snapshotHandlers['snapshots.list']({ projectId }, ctx)).total).toBe(1)
  })
})
