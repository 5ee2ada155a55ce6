import type { snapshotCalls } from '../../shared/api/snapshots'
import { SnapshotEngine, type FileDiff } from '../snapshots'
import { countLineChanges } from '../snapshots/lineChanges'
import { encodeShown } from '../snapshots/encodeShown'
import { recoverInterruptedTask } from '../loop/crashRecovery'
import { RunsRepo } from '../store/runsRepo'
import { SnapshotsRepo } from '../store/snapshotsRepo'
import type { ApiContext, Handlers } from './types'

// One engine per project folder and database: the engine remembers that its store was checked and repaired.
const engines = new WeakMap<object, Map<string, SnapshotEngine>>()

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
  'snapshots.list': async ({ projectId, ...query }, ctx) => engineFor(ctx, projectId).list(query),
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
    await recoverInterruptedTask(ctx.resolveProject(projectId).path, new RunsRepo(ctx.db))
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
  'snapshots.usage': async ({ projectId }, ctx) => engineFor(ctx, projectId).usage(),
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

async function mapLimited<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length)
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const i = next++
      out[i] = await fn(items[i]!)
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  return out
}
