import { realpathSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { runningTask, withSnapshotLock, type TaskLock } from '../snapshots'
import type { RunsRepo } from '../store'
import { writeFileAtomic, ifMissing, isMissing, noteFailure, type Logger, ralphPath } from '../workspace'

// Its own module, light on imports: read-only commands (`ralph snapshot status`) call it and must not load the
// plan parser (TypeScript) that the rest of the lifecycle needs.

/**
 * Crash recovery (every host calls this when it opens a project, starts a task or asks whether one runs): a task
 * still marked running whose lock holder is dead becomes `interrupted`, in status.txt and in its SQLite run row.
 * `own` is the caller's task lock, when it holds one; `logger` hears a status that could not be written. Returns whether a live task holds the project.
 */
export async function recoverInterruptedTask(
  projectDir: string,
  runs: RunsRepo | undefined,
  own: TaskLock | undefined,
  logger: Logger,
): Promise<boolean> {
  let dir: string
  try {
    dir = realpathSync(projectDir)
  } catch (err) {
    // No folder there: no task runs in it.
    if (isMissing(err)) return false
    throw err
  }
  const live = async () => {
    const holder = await runningTask(dir)
    return holder !== null && holder.raw !== own?.token
  }
  if (await live()) return true
  const statusFile = ralphPath(dir, 'status')
  const status = async () => (await readFile(statusFile, 'utf8').catch(ifMissing(''))).trim()
  if ((await status()) === 'running') {
    try {
      // Under the snapshot lock a task cannot start meanwhile: it takes its lock while holding that one.
      const stillLive = await withSnapshotLock(dir, 'recover', async () => {
        if (await live()) return true
        if ((await status()) === 'running') await writeFileAtomic(statusFile, 'interrupted\n')
        return false
      })
      if (stillLive) return true
    } catch (err) {
      // A read-only project: nothing can be written, and nothing runs there either.
      noteFailure(logger, `the interrupted task in ${dir} could not be marked interrupted`, err)
    }
  }
  runs?.markInterrupted(dir)
  return false
}
