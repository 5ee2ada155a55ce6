// Where an app-level server runs: never inside the project. The user added it in Settings and its env holds the
// vault's secrets; started in the project with the project's PATH, `npx some-server` would run a `node_modules/`
// the model planted there (or in the sandbox's shared scratch home) with those secrets. So each app-level server
// gets a home of its own per project (its working folder and HOME, outside the project and invisible to the model's
// commands: the sandbox's /tmp is empty but for the folders it binds), and a PATH with none of the project's folders.
import { createHash } from 'node:crypto'
import { lstat, mkdir, realpath } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { isAbsolute, join, relative, resolve } from 'node:path'

/** Creates (once) and returns the private home of one app-level server in one project (a real path). */
export async function appServerHome(server: string, projectDir: string): Promise<string> {
  const uid = process.getuid?.()
  const base = join(tmpdir(), `ralph-mcp-${uid ?? 'user'}`)
  await mkdir(base, { mode: 0o700 }).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'EEXIST') throw err
  })
  // The temp folder is shared: a folder someone else made there could be read or planted in.
  const st = await lstat(base)
  if (!st.isDirectory() || (uid !== undefined && (st.uid !== uid || (st.mode & 0o077) !== 0))) {
    throw new Error(`${base} is not a private folder of this user; remove it and try again`)
  }
  const key = createHash('sha256').update(`${server}\u0000${projectDir}`).digest('hex').slice(0, 16)
  const home = join(base, key)
  await mkdir(home, { recursive: true, mode: 0o700 })
  return realpath(home)
}

const inside = (path: string, dir: string) => {
  const rel = relative(dir, path)
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))
}

/**
 * PATH without the project: no empty or relative entry (they mean the working folder) and nothing under the project
 * (`npm run` puts `<project>/node_modules/.bin` first). `projectDirs`: the project's path as given and its real path.
 */
export function pathOutside(path: string | undefined, projectDirs: readonly string[]): string {
  const kept = (path ?? '')
    .split(':')
    .filter((p) => p !== '' && isAbsolute(p) && !projectDirs.some((d) => inside(resolve(p), resolve(d))))
  return kept.length > 0 ? kept.join(':') : '/usr/local/bin:/usr/bin:/bin'
}
