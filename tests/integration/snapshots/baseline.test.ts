import { join } from 'node:path'
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { baselineSettled } from '../../helpers/baseline'
import { useChatCore } from '../../helpers/chatCore'
import { parsed, say, tools } from '../loop/harness'
import { AppError } from '../../../src/shared/errors'
import type { BaselineProgress, SnapshotMeta } from '../../../src/shared/api/snapshots'
import { snapshotHandlers, startProjectBaseline } from '../../../src/main/api/snapshots'
import type { ApiContext } from '../../../src/main/api/types'
import { memoryLogger } from '../../../src/main/workspace/logFile'
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

const progressEvents = (): BaselineProgress[] =>
  events
    .filter((e) => e.name === 'snapshot.baselineProgress')
    .map((e) => (e.payload as { progress: BaselineProgress }).progress)

const finished = () =>
  events.find((e) => e.name === 'snapshot.baselineFinished')?.payload as
    | { outcome: string; tag: string | null; message: string }
    | undefined

describe('the background baseline', { timeout: 120_000 }, () => {
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
      logger: memoryLogger(),
    }
  })
  afterEach(async () => {
    await runningBaseline(project())?.done.catch(() => undefined)
    db.close()
    removeDir(root)
  })

  it('reports progress, and a task started meanwhile waits for it and saves only what changed', async () => {
    startProjectBaseline(ctx, projectId)
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
      logger: memoryLogger(),
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
    startProjectBaseline(ctx, projectId)
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

  it('is skipped for a project that has snapshots', async () => {
    await snapshotHandlers['snapshots.save']({ projectId, kind: 'manual' }, ctx)
    startProjectBaseline(ctx, projectId)
    await expect.poll(() => finished()?.outcome).toBe('skipped')
    expect(progressEvents()).toEqual([])
    expect((await snapshotHandlers['snapshots.list']({ projectId }, ctx)).total).toBe(1)
  })
})

// Opening a project through a real core, as every host does: each project without snapshots gets its baseline,
// however small, and a task then starts from an incremental save (DESIGN.md §5).
describe('the baseline taken when a project opens', { timeout: 120_000 }, () => {
  const SMALL_FILES = 2_000
  const chat = useChatCore({ folder: null, workPrefix: 'ralph-work-' })
  const { call } = chat
  const dispatch = (name: string, input: unknown) => chat.core.dispatch(name, input)
  const named = (name: string, projectId: number) =>
    chat.seen.filter((e) => e.name === name && (e.payload as { projectId: number }).projectId === projectId)
  type Listed = { tag: string; kind: string; added: number; modified: number; deleted: number }
  const tags = async (projectId: number) =>
    (await call<{ items: Listed[] }>('snapshots.list', { projectId })).items

  /** A folder of `count` small source files. */
  function folder(name: string, count: number): string {
    const dir = join(chat.work, name)
    for (let i = 0; i < count; i++) {
      const sub = join(dir, 'src', `m${Math.floor(i / 100)}`)
      if (i % 100 === 0) mkdirSync(sub, { recursive: true })
      writeFileSync(join(sub, `file${i}.ts`), `export const v${i} = ${i}\n`)
    }
    if (count === 0) mkdirSync(dir, { recursive: true })
    return dir
  }
  async function runTask(projectId: number, text: string, file: string): Promise<void> {
    chat.llm.enqueue(
      parsed({ type: 'fresh', title: text }),
      tools(['write_file', { path: file, content: `${text}\n` }], ['mark_complete', { summary: 'Done.' }]),
    )
    const before = named('loop.finished', projectId).length
    await call('chat.send', { projectId, mode: 'task', text })
    await expect.poll(() => named('loop.finished', projectId).length, { timeout: 60_000 }).toBe(before + 1)
    expect(named('loop.finished', projectId).at(-1)!.payload).toMatchObject({ status: 'complete' })
  }

  it('is taken for a three-file project too, once: reopening it takes none', async () => {
    const dir = folder('tiny', 3)
    const { id } = await call<{ id: number }>('projects.open', { path: dir })
    await baselineSettled(dispatch, id)
    const [baseline, ...rest] = await tags(id)
    expect(rest).toEqual([])
    expect(baseline).toMatchObject({ tag: expect.stringMatching(/^baseline-\d+$/), kind: 'baseline' })
    expect(baseline!.added).toBeGreaterThanOrEqual(3)
    expect(named('snapshot.baselineFinished', id).map((e) => e.payload)).toEqual([
      { projectId: id, outcome: 'saved', tag: baseline!.tag, message: `Saved ${baseline!.tag}` },
    ])

    await call('projects.open', { path: dir })
    await baselineSettled(dispatch, id)
    expect((await tags(id)).map((s) => s.tag)).toEqual([baseline!.tag])
    expect(named('snapshot.baselineFinished', id).at(-1)!.payload).toMatchObject({ outcome: 'skipped' })
  })

  it(`${SMALL_FILES.toLocaleString('en-US')} files: a task sent while the baseline reads waits for it, and its pre-snapshot holds only what changed`, async () => {
    const dir = folder('two-thousand', SMALL_FILES)
    const { id } = await call<{ id: number }>('projects.open', { path: dir })
    // Once the baseline reports progress it holds the store: the task's own start queues behind it.
    await expect
      .poll(() => named('snapshot.baselineProgress', id).length, { timeout: 30_000 })
      .toBeGreaterThan(0)
    await runTask(id, 'write notes', 'notes.md')

    const [post, pre, baseline, ...rest] = await tags(id)
    expect(rest).toEqual([])
    expect([post!.tag, pre!.tag]).toEqual(['task-1-post', 'task-1-pre'])
    expect(baseline).toMatchObject({ tag: expect.stringMatching(/^baseline-\d+$/), kind: 'baseline' })
    expect(baseline!.added).toBeGreaterThanOrEqual(SMALL_FILES)
    // Nothing in the project changed between the two: the pre-snapshot stored the loop's .ralph/ state at most.
    const diff = await call<{ entries: { path: string }[] }>('snapshots.diff', {
      projectId: id,
      target: baseline!.tag,
      against: 'task-1-pre',
    })
    expect(diff.entries.filter((e) => !e.path.startsWith('.ralph/'))).toEqual([])
    expect(pre!.added + pre!.modified + pre!.deleted).toBeLessThan(10)
  })

  it('a task sent the moment the project opens waits for the baseline, then stores only what changed', async () => {
    const dir = folder('eager', SMALL_FILES)
    const { id } = await call<{ id: number }>('projects.open', { path: dir })
    await runTask(id, 'write notes', 'notes.md')
    const [finished] = named('snapshot.baselineFinished', id).map((e) => e.payload as { outcome: string })
    expect(finished!.outcome).toBe('saved')
    const items = await tags(id)
    expect(items.map((s) => s.kind)).toEqual(['task-post', 'task-pre', 'baseline'])
    const pre = items.find((s) => s.tag === 'task-1-pre')!
    expect(pre.added + pre.modified + pre.deleted).toBeLessThan(10)
  })

  it('an Ask answer sent while the baseline reads changes no file, and the baseline still saves', async () => {
    const dir = folder('asking', SMALL_FILES)
    const { id } = await call<{ id: number }>('projects.open', { path: dir })
    await expect
      .poll(() => named('snapshot.baselineProgress', id).length, { timeout: 30_000 })
      .toBeGreaterThan(0)
    const before = projectFiles(dir)
    chat.llm.enqueue(say('It holds two thousand small modules.'))
    await call('chat.send', { projectId: id, mode: 'ask', text: 'What is in here?' })
    await expect
      .poll(
        async () =>
          (await call<{ messages: { kind: string; text: string }[] }>('chat.history', { projectId: id }))
            .messages[0],
        {
          timeout: 30_000,
        },
      )
      .toMatchObject({ kind: 'answer', text: 'It holds two thousand small modules.' })
    await baselineSettled(dispatch, id)
    // The store is the baseline's to write; every other file is as it was.
    expect(projectFiles(dir)).toEqual(before)
    expect((await tags(id)).map((s) => s.kind)).toEqual(['baseline'])
  })

  it('the first task after the baseline stores exactly the files the user changed meanwhile', async () => {
    const dir = folder('edited', SMALL_FILES)
    const { id } = await call<{ id: number }>('projects.open', { path: dir })
    await baselineSettled(dispatch, id)
    // The user edits in their own editor between opening the project and sending a task.
    for (const i of [3, 1200, 1999])
      writeFileSync(join(dir, 'src', `m${Math.floor(i / 100)}`, `file${i}.ts`), 'edited\n')
    unlinkSync(join(dir, 'src', 'm5', 'file500.ts'))
    writeFileSync(join(dir, 'CHANGELOG.md'), '# Changes\nA brand new file with its own words.\n')
    await runTask(id, 'write notes', 'notes.md')

    const [, pre, baseline] = await tags(id)
    expect(pre!.tag).toBe('task-1-pre')
    expect(baseline!.kind).toBe('baseline')
    const diff = await call<{ entries: { path: string; status: string }[] }>('snapshots.diff', {
      projectId: id,
      target: baseline!.tag,
      against: 'task-1-pre',
    })
    expect(
      diff.entries
        .filter((e) => !e.path.startsWith('.ralph/'))
        .map((e) => `${e.status} ${e.path}`)
        .sort(),
    ).toEqual([
      'added CHANGELOG.md',
      'deleted src/m5/file500.ts',
      'modified src/m0/file3.ts',
      'modified src/m12/file1200.ts',
      'modified src/m19/file1999.ts',
    ])
    // The snapshot's own counts say the same (plus the .ralph/ state the loop keeps).
    expect(pre!.added).toBeGreaterThanOrEqual(1)
    expect(pre!.modified).toBeGreaterThanOrEqual(3)
    expect(pre!.deleted).toBe(1)
    expect(pre!.added + pre!.modified + pre!.deleted).toBeLessThan(15)
  })

  it('closing the core stops a running baseline and waits for it, so the folder can be removed at once', async () => {
    const dir = folder('closing', SMALL_FILES)
    const { id } = await call<{ id: number }>('projects.open', { path: dir })
    await expect
      .poll(() => named('snapshot.baselineProgress', id).length, { timeout: 30_000 })
      .toBeGreaterThan(0)
    await chat.close()
    expect(runningBaseline(dir)).toBeNull()
    expect(
      named('snapshot.baselineFinished', id).map((e) => (e.payload as { outcome: string }).outcome),
    ).toEqual([expect.stringMatching(/^(cancelled|saved)$/)])
    // Nothing writes into the folder any more.
    rmSync(dir, { recursive: true })
    expect(existsSync(dir)).toBe(false)
  })
})

/** Every file under a folder but the snapshot store and its lock, with size and mtime: any write shows. */
function projectFiles(root: string, rel = ''): string[] {
  return readdirSync(join(root, rel), { withFileTypes: true }).flatMap((entry) => {
    const path = rel ? `${rel}/${entry.name}` : entry.name
    if (path === '.ralph/snapshots.git' || path === '.ralph/snapshots.lock') return []
    if (entry.isDirectory()) return [`${path}/`, ...projectFiles(root, path)]
    const stat = statSync(join(root, path))
    return [`${path} ${stat.size} ${stat.mtimeMs}`]
  })
}
