import { lstat, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { type Logger, unlessMissing } from '../workspace'
import type { UsageResult } from './types'

/** The store's size on disk, its loose objects and its packs (a file vanishing meanwhile counts as nothing). */
export async function storeSizes(gitDir: string, log: Logger): Promise<Omit<UsageResult, 'snapshotCount'>> {
  let storeBytes = 0
  let looseObjects = 0
  let packs = 0
  const walk = async (dir: string, depth: number, inObjects: boolean): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(
      unlessMissing(log, `Could not list ${dir} while sizing the snapshot store`, []),
    )
    for (const e of entries) {
      const full = join(dir, e.name)
      if (e.isDirectory()) {
        await walk(full, depth + 1, inObjects || (depth === 0 && e.name === 'objects'))
      } else {
        const st = await lstat(full).catch(unlessMissing(log, `Could not size ${full}`, null))
        storeBytes += st?.size ?? 0
        if (inObjects && depth === 2 && /^[0-9a-f]{38}$/.test(e.name)) looseObjects++
        if (inObjects && e.name.endsWith('.pack')) packs++
      }
    }
  }
  await walk(gitDir, 0, false)
  return { storeBytes, looseObjects, packs }
}
