// An engine session's private home: a fresh folder that is HOME inside the sandbox, holding copies of the user's
// login files for that engine (so it is logged in) and whatever the session writes; removed when the session ends.
// The originals are never bound into the sandbox and never written.
import { copyFile, mkdir, mkdtemp, realpath, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fallbackTo, ifMissing, type Logger } from '../workspace'

export interface SessionHome {
  /** Real path (the sandbox matches paths after symlinks). Short: a Unix socket's path goes in it. */
  path: string
  /** The login files found and copied, relative to the home. */
  copied: string[]
  remove(): Promise<void>
}

export async function createSessionHome(
  homeFiles: readonly string[],
  userHome: string,
  logger: Logger,
): Promise<SessionHome> {
  // /tmp, not the OS temp dir: macOS's is a long path, and sockets allow about 104 bytes.
  const base = process.platform === 'win32' ? tmpdir() : '/tmp'
  const path = await realpath(await mkdtemp(join(base, 'ralph-eng-')))
  const copied: string[] = []
  for (const rel of homeFiles) {
    const from = join(userHome, rel)
    const st = await stat(from).catch(ifMissing(null))
    if (!st?.isFile()) continue
    const to = join(path, rel)
    await mkdir(dirname(to), { recursive: true, mode: 0o700 })
    await copyFile(from, to)
    copied.push(rel)
  }
  return {
    path,
    copied,
    remove: () =>
      rm(path, { recursive: true, force: true }).catch(
        fallbackTo(logger, `engine: the session folder ${path} could not be removed`, undefined),
      ),
  }
}
