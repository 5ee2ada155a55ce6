// Helpers shared by the snapshot tests: real folders, real git, no mocks.
import { execFileSync } from 'node:child_process'
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  lstatSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'

export function tempProject(prefix = 'ralph-snap-'): string {
  return mkdtempSync(join(tmpdir(), prefix))
}

/** A temp folder holding an empty bare git store at `storeName`: what the object-level tests write into. */
export function tempBareStore(prefix: string, storeName: string): { dir: string; gitDir: string } {
  const dir = tempProject(prefix)
  const gitDir = join(dir, storeName)
  execFileSync('git', ['init', '-q', '--bare', gitDir])
  return { dir, gitDir }
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true })
}

export function write(root: string, rel: string, content: string | Buffer): void {
  const file = join(root, rel)
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(file, content)
}

export function read(root: string, rel: string): Buffer {
  return readFileSync(join(root, rel))
}

/** Every file under root (except snapshots.git and the lock) with its bytes and mode: a byte-for-byte fingerprint. */
export function fingerprint(
  root: string,
  opts: { skip?: (rel: string) => boolean } = {},
): Map<string, string> {
  const out = new Map<string, string>()
  const walk = (rel: string): void => {
    for (const name of readdirSync(join(root, rel))) {
      const child = rel ? `${rel}/${name}` : name
      if (child === '.ralph/snapshots.git' || child === '.ralph/snapshots.lock') continue
      if (opts.skip?.(child)) continue
      const full = join(root, child)
      const st = lstatSync(full)
      if (st.isDirectory()) walk(child)
      else if (st.isSymbolicLink()) out.set(child, `link:${readlinkSync(full)}`)
      else out.set(child, `${(st.mode & 0o111) !== 0 ? 'x' : '-'}:${readFileSync(full).toString('base64')}`)
    }
  }
  walk('')
  return out
}

export function mtimes(root: string, rels: string[]): Map<string, number> {
  return new Map(rels.map((r) => [r, lstatSync(join(root, r)).mtimeMs]))
}

/** Runs git on the user's own repository (never the shadow store). */
export function userGit(root: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.com', ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' },
  })
}
