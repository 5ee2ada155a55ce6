// An engine session's private home: a fresh folder that is HOME inside the sandbox, holding copies of the user's
// login files for that engine (so it is logged in) and whatever the session writes; removed when the session ends.
// The originals are never bound into the sandbox and never written.
import { copyFile, mkdir, mkdtemp, readFile, realpath, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fallbackTo, ifMissing, writeFileAtomic, type Logger } from '../workspace'

export interface SessionHome {
  /** Real path (the sandbox matches paths after symlinks). Short: a Unix socket's path goes in it. */
  path: string
  /** The login files found and copied, relative to the home. */
  copied: string[]
  /**
   * Writes back the login files the session changed (an engine that refreshed its OAuth token has spent the old
   * refresh token: the user's copy must get the new one), each only while the user's original is still what was
   * copied, so a login the user made meanwhile is never overwritten. Returns the files written back.
   */
  syncBack(): Promise<string[]>
  remove(): Promise<void>
}

export async function createSessionHome(
  homeFiles: readonly string[],
  userHome: string,
  logger: Logger,
  /** Of `homeFiles`, those the engine rewrites when it refreshes its login: the ones `syncBack` may write. */
  refreshedFiles: readonly string[] = [],
): Promise<SessionHome> {
  // /tmp, not the OS temp dir: macOS's is a long path, and sockets allow about 104 bytes.
  const base = process.platform === 'win32' ? tmpdir() : '/tmp'
  const path = await realpath(await mkdtemp(join(base, 'ralph-eng-')))
  const copied: string[] = []
  const originals = new Map<string, Buffer>()
  for (const rel of homeFiles) {
    const from = join(userHome, rel)
    const st = await stat(from).catch(ifMissing(null))
    if (!st?.isFile()) continue
    const to = join(path, rel)
    await mkdir(dirname(to), { recursive: true, mode: 0o700 })
    if (refreshedFiles.includes(rel)) originals.set(rel, await readFile(from))
    await copyFile(from, to)
    copied.push(rel)
  }
  const syncBack = async () => {
    const written: string[] = []
    for (const [rel, original] of originals) {
      const now = await readFile(join(path, rel)).catch(ifMissing(null))
      if (now === null || now.equals(original)) continue
      const current = await readFile(join(userHome, rel)).catch(ifMissing(null))
      if (current === null || !current.equals(original)) continue
      await writeFileAtomic(join(userHome, rel), now, 0o600)
      written.push(rel)
    }
    return written
  }
  return {
    path,
    copied,
    syncBack,
    remove: () =>
      rm(path, { recursive: true, force: true }).catch(
        fallbackTo(logger, `engine: the session folder ${path} could not be removed`, undefined),
      ),
  }
}
