import type { snapshotCalls, ListOptions, SnapshotMeta } from '../../shared/api/snapshots'
import { isAppError } from '../../shared/errors'
import { mapLimited } from '../../shared/mapLimited'
import { SnapshotEngine, runningBaseline, startBaseline, type BaselineJob, type FileDiff } from '../snapshots'
import { countLineChanges } from '../snapshots/lineChanges'
import { encodeShown } from '../snapshots/encodeShown'
import { recoverInterruptedTask } from '../loop/crashRecovery'
import { RunsRepo } from '../store/runsRepo'
import { SnapshotsRepo } from '../store/snapshotsRepo'
import { noteFailure } from '../workspace/failures'
import type { ApiContext, Handlers } from './types'

// One engine per project folder and database: the engine remembers that its store was checked and repaired.
const engines = new WeakMap<object, Map<string, SnapshotEngine>>()
// Engines whose store the SQLite mirror was made to match (once: every save and prune after it is recorded).
const mirrored = new WeakSet<SnapshotEngine>()

/** The timeline's page, from SQLite; the mirror is brought in line with the store on the first read. */
async function listFromMirror(ctx: ApiContext, projectId: number, query: ListOptions) {
  const engine = engineFor(ctx, projectId)
  const repo = new SnapshotsRepo(ctx.db)
  if (!mirrored.has(engine)) {
    const all = await engine.list({ limit: Number.MAX_SAFE_INTEGER })
    repo.sync(projectId, all.items)
    mirrored.add(engine)
  }
  return repo.list(projectId, query)
}

/** Every snapshot of the project, oldest first (from the SQLite mirror, filled from the store once). */
export async function snapshotHistory(ctx: ApiContext, projectId: number): Promise<SnapshotMeta[]> {
  const { items } = await listFromMirror(ctx, projectId, { limit: Number.MAX_SAFE_INTEGER })
  return items.reverse()
}

/** The baselines each core (by its database) started: closing the core stops them before the store closes. */
const baselinesOf = new WeakMap<ApiContext['db'], Set<BaselineJob>>()

/** Cancels the baselines this core started and waits for them to let go of their stores. */
export async function stopProjectBaselines(ctx: ApiContext): Promise<void> {
  const jobs = [...(baselinesOf.get(ctx.db) ?? [])]
  for (const job of jobs) job.cancel()
  // Each job's own failure is reported as its `snapshot.baselineFinished`: here it only has to be over.
  await Promise.allSettled(jobs.map((job) => job.done))
}

/**
 * Opening a project without snapshots takes its baseline in the background (DESIGN.md §5), with progress events,
 * so the slow first read of every file happens now rather than when the user sends a task. Every project gets
 * one, however small (a small one's takes a moment). A task sent while it reads waits for it, so its pre-snapshot
 * is incremental; one that takes the project before it starts reading makes it step aside (`skipped`), and its
 * own pre-snapshot reads every file, once. Never throws: the outcome arrives as `snapshot.baselineFinished`.
 */
export function startProjectBaseline(ctx: ApiContext, projectId: number): void {
  let engine: SnapshotEngine
  try {
    engine = engineFor(ctx, projectId)
  } catch (err) {
    // A project removed meanwhile needs no baseline; anything else leaves a record of why none started.
    if (!isAppError(err, 'not-found'))
      noteFailure(
        ctx.logger,
        `no baseline snapshot for project ${projectId}: its store could not be opened`,
        err,
      )
    return
  }
  if (runningBaseline(engine.paths.projectDir)) return
  const job = startBaseline(engine, (progress) =>
    ctx.emit('snapshot.baselineProgress', { projectId, progress }),
  )
  const started = baselinesOf.get(ctx.db) ?? new Set<BaselineJob>()
  baselinesOf.set(ctx.db, started.add(job))
  const forget = () => started.delete(job)
  job.done.then(forget, forget)
  const finished = (
    outcome: 'saved' | 'cancelled' | 'skipped' | 'failed',
    tag: string | null,
    message: string,
  ) => ctx.emit('snapshot.baselineFinished', { projectId, outcome, tag, message })
  job.done.then(
    (snapshot) => {
      if (snapshot === null) return finished('skipped', null, 'The project has snapshots already.')
      ctx.emit('snapshot.created', { projectId, snapshot })
      finished('saved', snapshot.tag, `Saved ${snapshot.tag}`)
    },
    (err: unknown) => {
      if (isAppError(err, 'cancelled')) return finished('cancelled', null, 'Baseline snapshot cancelled.')
      // A task took the project first: its own pre-task snapshot does the work.
      if (isAppError(err, 'busy')) return finished('skipped', null, (err as Error).message)
      finished('failed', null, `Could not take the baseline snapshot: ${(err as Error).message}`)
    },
  )
}

function engineFor(ctx: ApiContext, projectId: number): SnapshotEngine {
  const project = ctx.resolveProject(projectId)
  let perDb = engines.get(ctx.db)
  if (!perDb) {
    perDb = new Map()
    engines.set(ctx.db, perDb)
  }
  const key = `${projectId}\0${project.path}`
  let engine = perDb.get(key)
  if (!engine) {
    engine = new SnapshotEngine({
      projectDir: project.path,
      index: new SnapshotsRepo(ctx.db).indexFor(projectId),
      logger: ctx.logger,
    })
    perDb.set(key, engine)
  }
  return engine
}

export const snapshotHandlers: Handlers<typeof snapshotCalls> = {
  'snapshots.save': async ({ projectId, kind, task, message }, ctx) => {
    const snapshot = await engineFor(ctx, projectId).save({ kind, task, message })
    ctx.emit('snapshot.created', { projectId, snapshot })
    return snapshot
  },
  'snapshots.list': async ({ projectId, ...query }, ctx) => listFromMirror(ctx, projectId, query),
  'snapshots.diff': async ({ projectId, target, against }, ctx) =>
    engineFor(ctx, projectId).diff(target, against),
  'snapshots.fileDiff': async ({ projectId, target, against, path, oldPath, maxBytes }, ctx) =>
    fileDiffOf(engineFor(ctx, projectId), target, against, { path, oldPath }, maxBytes),
  'snapshots.diffStats': async ({ projectId, target, against, files }, ctx) => {
    const engine = engineFor(ctx, projectId)
    const stats = await mapLimited(files, 6, async (file) => {
      const diff = await fileDiffOf(engine, target, against, file)
      const unreadable = [diff.old, diff.new].some((side) => side.binary || side.tooLarge)
      const lines = unreadable ? null : countLineChanges(diff.old.content, diff.new.content)
      return {
        path: file.path,
        additions: lines?.additions ?? null,
        deletions: lines?.deletions ?? null,
        binary: diff.old.binary || diff.new.binary,
        tooLarge: diff.old.tooLarge || diff.new.tooLarge,
      }
    })
    return { files: stats }
  },
  'snapshots.status': async ({ projectId }, ctx) => {
    // The timeline asks this on open: a task left running by a dead process shows as interrupted from here on.
    await recoverInterruptedTask(
      ctx.resolveProject(projectId).path,
      new RunsRepo(ctx.db),
      undefined,
      ctx.logger,
    )
    return engineFor(ctx, projectId).status()
  },
  'snapshots.show': async ({ projectId, tag, path }, ctx) =>
    encodeShown(await engineFor(ctx, projectId).show(tag, path)),
  'snapshots.previewRollback': async ({ projectId, tag }, ctx) =>
    engineFor(ctx, projectId).previewRollback(tag),
  'snapshots.rollback': async ({ projectId, tag }, ctx) => {
    const report = await engineFor(ctx, projectId).rollback(tag)
    ctx.emit('snapshot.rolledBack', { projectId, report, undo: false })
    return report
  },
  'snapshots.undo': async ({ projectId }, ctx) => {
    const report = await engineFor(ctx, projectId).undo()
    ctx.emit('snapshot.rolledBack', { projectId, report, undo: true })
    return report
  },
  'snapshots.finishRollback': async ({ projectId }, ctx) => {
    const report = await engineFor(ctx, projectId).finishRollback()
    ctx.emit('snapshot.rolledBack', { projectId, report, undo: false })
    return report
  },
  'snapshots.dismissRollbackNotice': async ({ projectId }, ctx) => {
    await engineFor(ctx, projectId).dismissRollbackNotice()
    return { dismissed: true }
  },
  'snapshots.usage': async ({ projectId }, ctx) => engineFor(ctx, projectId).usage(),
  'snapshots.baselineState': async ({ projectId }, ctx) => {
    const job = runningBaseline(ctx.resolveProject(projectId).path)
    return job ? (job.progress ?? { phase: 'listing', done: 0, total: null }) : null
  },
  'snapshots.cancelBaseline': async ({ projectId }, ctx) => {
    const job = runningBaseline(ctx.resolveProject(projectId).path)
    job?.cancel()
    return { cancelled: job !== null }
  },
  'snapshots.prune': async ({ projectId, ...options }, ctx) => {
    const result = await engineFor(ctx, projectId).prune(options)
    if (!result.dryRun && result.removedTags.length > 0) {
      ctx.emit('snapshot.pruned', { projectId, removedTags: result.removedTags })
    }
    return result
  },
}

/** One file on both sides; a renamed file is read at its old path on the `target` side and its new path after. */
async function fileDiffOf(
  engine: SnapshotEngine,
  target: string,
  against: string | undefined,
  file: { path: string; oldPath?: string },
  maxBytes?: number,
): Promise<FileDiff> {
  const after = await engine.fileDiff(target, file.path, against, maxBytes)
  if (file.oldPath === undefined || file.oldPath === file.path) return after
  const before = await engine.fileDiff(target, file.oldPath, against, maxBytes)
  return { ...after, old: before.old }
}
