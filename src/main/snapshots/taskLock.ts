import { mkdir, realpath } from 'node:fs/promises'
import { join } from 'node:path'
import { AppError, isAppError } from '../../shared/errors'
import { waitForBaseline } from './baseline'
import { FileLock, isStale, readLock, withProjectLock, type LockInfo } from './lock'
import { storePaths } from './store'

/**
 * The task lock: held by the loop for a whole task, in any process (the CLI, the web host, the app). Snapshot
 * writes from anyone but the holder are refused while it is held (DESIGN.md §5: one operation at a time), so a
 * rollback can never rewrite `.ralph/` under a running loop. It is taken while holding the snapshot lock, so a
 * rollback either finishes before the task starts or sees the task and refuses.
 */
export const TASK_BUSY_MESSAGE = 'a task is running: stop it first'

// A task on another machine (a shared folder) can run for hours; its lock is trusted for a day.
const FOREIGN_STALE_MS = 24 * 60 * 60_000

export function taskLockFile(projectDir: string): string {
  return join(projectDir, '.ralph', 'loop.lock')
}

export interface TaskLock {
  /** The lock file's content: a snapshot engine given this lock recognises its own task. */
  readonly token: string
  release(): Promise<void>
}

/** Takes the task lock without waiting; AppError('busy') naming the holder when a live task has it. */
export async function acquireTaskLock(projectDir: string, op: string): Promise<TaskLock> {
  const paths = storePaths(projectDir)
  // Starting a task writes `.ralph/` anyway; the lock files live there.
  await mkdir(paths.ralphDir, { recursive: true })
  const key = await realpath(projectDir)
  // A task sent while the project's background baseline runs waits for it (its Cancel cuts the wait short), so
  // every file is read once, there, and the task's pre-snapshot stores only what changed.
  await waitForBaseline(projectDir)
  const lock = new FileLock(taskLockFile(projectDir), { timeoutMs: 0, foreignStaleMs: FOREIGN_STALE_MS })
  await withProjectLock(key, paths.lockFile, `start ${op}`, {}, async () => {
    try {
      await lock.acquire(op)
    } catch (err) {
      if (!isAppError(err, 'busy')) throw err
      throw anotherTaskError((err.details as { holder?: LockInfo | null } | undefined)?.holder ?? null)
    }
  })
  const token = lock.token!
  return { token, release: () => lock.release() }
}

/** Runs `fn` holding the project's snapshot lock (in-process mutex and lock file), without opening the store. */
export async function withSnapshotLock<T>(projectDir: string, op: string, fn: () => Promise<T>): Promise<T> {
  const key = await realpath(projectDir)
  return withProjectLock(key, storePaths(projectDir).lockFile, op, {}, fn)
}

/** The live holder of the task lock, or null (no lock, or one left by a dead process). */
export async function runningTask(
  projectDir: string,
): Promise<{ raw: string; info: LockInfo | null } | null> {
  const file = taskLockFile(projectDir)
  const current = await readLock(file)
  if (!current) return null
  return (await isStale(file, current.info, FOREIGN_STALE_MS)) ? null : current
}

/** Starting a second task. */
function anotherTaskError(holder: LockInfo | null): AppError {
  const who = holder ? ` (process ${holder.pid}, started ${new Date(holder.startedAt).toLocaleString()})` : ''
  return new AppError(
    'busy',
    `Another Ralph loop is already running on this project${who}. Stop it or wait for it to finish.`,
    { holder, taskRunning: true },
  )
}

/** A snapshot write during someone else's task: one message for every host; the holder is in the details. */
export function busyError(holder: LockInfo | null): AppError {
  return new AppError('busy', TASK_BUSY_MESSAGE, { holder, taskRunning: true })
}
