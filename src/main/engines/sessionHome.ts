// An engine session's private home: a fresh folder that is HOME inside the sandbox, holding the engine's folders,
// copies of the user's configuration for that engine (or, where a filter is given, only the part it keeps) and the login's stand-in files (placeholders only: the real
// login never enters it, see credentialProxy.ts), and whatever the session writes; removed when the session ends.
// The originals are never bound into the sandbox, and nothing is ever written back from it.
import { copyFile, mkdir, mkdtemp, realpath, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fallbackTo, ifMissing, readRegularFile, type Logger } from '../workspace'

/** The largest configuration file read to filter (Codex's config.toml is a few KB). */
const MAX_FILTERED_BYTES = 4 * 1024 * 1024

export interface SessionHome {
  /** Real path (the sandbox matches paths after symlinks). Short: a Unix socket's path goes in it. */
  path: string
  /** The user's files found and copied, relative to the home. */
  copied: string[]
  /** Writes a session file (relative to the home), private to the user. */
  write(rel: string, content: string): Promise<void>
  remove(): Promise<void>
}

/** Rewrites a copied file's text to what the session may have of it (Codex's config.toml: an allowlist). */
export type HomeFileFilter = (text: string) => string

export async function createSessionHome(
  spec: {
    dirs: readonly string[]
    files: readonly string[]
    filters?: Readonly<Record<string, HomeFileFilter>>
  },
  userHome: string,
  logger: Logger,
): Promise<SessionHome> {
  // /tmp, not the OS temp dir: macOS's is a long path, and sockets allow about 104 bytes.
  const base = process.platform === 'win32' ? tmpdir() : '/tmp'
  const path = await realpath(await mkdtemp(join(base, 'ralph-eng-')))
  const remove = () =>
    rm(path, { recursive: true, force: true }).catch(
      fallbackTo(logger, `engine: the session folder ${path} could not be removed`, undefined),
    )
  try {
    // The engine's own folders always exist: Codex refuses a CODEX_HOME that does not.
    for (const rel of spec.dirs) await mkdir(join(path, rel), { recursive: true, mode: 0o700 })
    const copied: string[] = []
    for (const rel of spec.files) {
      const from = join(userHome, rel)
      const st = await stat(from).catch(ifMissing(null))
      if (!st?.isFile()) continue
      const to = join(path, rel)
      await mkdir(dirname(to), { recursive: true, mode: 0o700 })
      const filter = spec.filters?.[rel]
      if (filter) {
        const read = await readRegularFile(from, { maxBytes: MAX_FILTERED_BYTES })
        if (!read.ok) continue
        await writeFile(to, filter(read.data.toString('utf8')), { mode: 0o600 })
      } else await copyFile(from, to)
      copied.push(rel)
    }
    return {
      path,
      copied,
      write: async (rel, content) => {
        await mkdir(dirname(join(path, rel)), { recursive: true, mode: 0o700 })
        await writeFile(join(path, rel), content, { mode: 0o600 })
      },
      remove,
    }
  } catch (err) {
    await remove()
    throw err
  }
}
