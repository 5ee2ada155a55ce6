// HOME inside the sandbox: a scratch folder per project, kept between commands so package caches (npm, pip,
// cargo …) survive, and never the user's real home with its dotfiles and credentials.
import { createHash } from 'node:crypto'
import { lstat, mkdir, realpath } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** Creates (once) and returns the scratch home of a project (`projectDir`: its real path). */
export async function scratchHome(projectDir: string): Promise<string> {
  const uid = process.getuid?.()
  const base = join(tmpdir(), `ralph-sandbox-${uid ?? 'user'}`)
  await mkdir(base, { mode: 0o700 }).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'EEXIST') throw err
  })
  // The temp folder is shared: a folder someone else made there could be read or planted in.
  const st = await lstat(base)
  if (!st.isDirectory() || (uid !== undefined && (st.uid !== uid || (st.mode & 0o077) !== 0))) {
    throw new Error(`${base} is not a private folder of this user; remove it and try again`)
  }
  const home = join(base, createHash('sha256').update(projectDir).digest('hex').slice(0, 16))
  await mkdir(home, { recursive: true, mode: 0o700 })
  // Real path: the sandboxes match paths after symlinks (macOS's /var is /private/var).
  return realpath(home)
}
