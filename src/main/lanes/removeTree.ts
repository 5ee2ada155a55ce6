// A lane folder's removal (thousands of files) by `rm -rf` in a process of its own. Node's recursive fs.rm runs its
// walk on this process's thread and its lstat/unlink calls on the shared libuv pool: during a lanes build a removal
// queued every other file read behind it (the build's own queue reads took 150 ms instead of 2 ms after each
// merge). The child is started the way git is (snapshots' startGit: from the small helper process where it can).
import { rm } from 'node:fs/promises'
import { startGit } from '../snapshots'
import { isMissing } from '../workspace'

/**
 * Removes `dir` and everything in it. Links inside are removed as links, never followed (rm -r and fs.rm alike).
 * Windows, or no `rm` to start: Node's own recursive removal.
 */
export async function removeTree(dir: string): Promise<void> {
  if (process.platform === 'win32') return rm(dir, { recursive: true })
  let end
  try {
    end = await startGit({ binary: 'rm', args: ['-rf', '--', dir], env: { PATH: process.env.PATH ?? '' } })
      .end
  } catch (err) {
    // rm is not on PATH: the same removal, in this process. Any other failure to start it is the caller's to see.
    if (isMissing(err)) return rm(dir, { recursive: true })
    throw err
  }
  if (end.code !== 0)
    throw new Error(`rm could not remove ${dir}: ${end.stderr.toString('utf8').trim() || `exit ${end.code}`}`)
}
