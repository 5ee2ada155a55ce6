import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { checkGitVersion, compareVersions, type ShadowGit } from './git'
import { ifUnreadable } from '../workspace'
import { traceGitFallback } from './traceGit'

// Saves that store many objects write a pack each (see objectStore.ts). Git looks an object up pack by pack, so
// past this many the small packs are merged. Git's own gc.autoPackLimit is 50; lookups here are ours too.
const PACK_LIMIT = 12

/**
 * Merges small packs once there are many: `repack --geometric` (git 2.33+) rewrites only the small ones, so
 * the large pack of a first snapshot is not copied again; older git repacks everything. Best effort: the
 * store is valid either way, only slower to read.
 */
export async function consolidatePacks(git: ShadowGit): Promise<void> {
  const names = await readdir(join(git.gitDir, 'objects', 'pack')).catch(ifUnreadable([] as string[]))
  if (names.filter((n) => n.endsWith('.idx')).length <= PACK_LIMIT) return
  const version = await checkGitVersion(git.binary)
  const how = compareVersions(version, '2.33.0') >= 0 ? ['--geometric=2'] : ['-a']
  await git
    .run(['repack', '-d', '-q', ...how])
    .catch((err: unknown) => traceGitFallback('repack failed', err))
}
