import { readdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { pidAlive } from './lock'
import { ifUnreadable } from '../workspace'

// `.status.txt.<pid>.<hex>.tmp` (atomic writes) and `task.md.<pid>.<hex>.init.tmp` (ralph init).
const TEMP_NAME = /\.(\d+)\.[0-9a-f]+(?:\.init)?\.tmp$/

/**
 * Removes `.ralph/` temp files left by an atomic write whose process died before its rename. A live writer's
 * file (this process included) is left alone; snapshots never hold any of them (exclusions.ts). Returns what
 * was removed.
 */
export async function removeStaleTempFiles(ralphDir: string): Promise<string[]> {
  const names = await readdir(ralphDir).catch(ifUnreadable([] as string[]))
  const removed: string[] = []
  for (const name of names) {
    const m = TEMP_NAME.exec(name)
    if (!m || pidAlive(Number(m[1]))) continue
    await rm(join(ralphDir, name), { force: true })
    removed.push(name)
  }
  return removed
}
