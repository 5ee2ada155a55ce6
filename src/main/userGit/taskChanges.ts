// What a task changed, read from its snapshots (read-only use of the snapshot engine; never the user's git).
import { AppError, isAppError } from '../../shared/errors'
import { type SnapshotEngine, baseTagName } from '../snapshots'

export interface TaskChange {
  /** Project-relative. */
  path: string
  status: 'added' | 'modified' | 'deleted'
}

/** Where a task's changes come from; the snapshot engine in the app, anything with the same answers in a test. */
export interface TaskSnapshots {
  /** The files the task changed, task-N-pre → task-N-post; a rename is its old path deleted and its new added. */
  changes(task: number): Promise<TaskChange[]>
  /** Paths that differ between task-N-post and the folder now (edited after the task, by the user or a later task). */
  changedSince(task: number): Promise<Set<string>>
}

// Tag names come from the snapshot module's helpers only (one source per fact). The time is unused for task tags.
const preTag = (task: number) => baseTagName('task-pre', task, 0)
const postTag = (task: number) => baseTagName('task-post', task, 0)

export function taskSnapshotsOf(engine: Pick<SnapshotEngine, 'diff'>): TaskSnapshots {
  return {
    async changes(task) {
      const diff = await withNoSnapshotMessage(task, () => engine.diff(preTag(task), postTag(task)))
      const out: TaskChange[] = []
      for (const e of diff.entries) {
        if (e.status === 'renamed') {
          if (e.oldPath !== undefined) out.push({ path: e.oldPath, status: 'deleted' })
          out.push({ path: e.path, status: 'added' })
        } else {
          out.push({ path: e.path, status: e.status === 'typechange' ? 'modified' : e.status })
        }
      }
      return out
    },
    async changedSince(task) {
      const diff = await withNoSnapshotMessage(task, () => engine.diff(postTag(task)))
      const paths = new Set<string>()
      for (const e of diff.entries) {
        paths.add(e.path)
        if (e.oldPath !== undefined) paths.add(e.oldPath)
      }
      return paths
    },
  }
}

async function withNoSnapshotMessage<T>(task: number, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn()
  } catch (err) {
    if (!isAppError(err, 'not-found')) throw err
    throw new AppError(
      'not-found',
      `Task ${task} has no after-task snapshot (${postTag(task)}): only a completed task can be committed.`,
      { refusal: 'no-snapshot' },
    )
  }
}
