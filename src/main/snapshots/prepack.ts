import { lstatSync, readFileSync, readlinkSync } from 'node:fs'
import { join } from 'node:path'
import type { ShadowGit } from './git'

/**
 * Stores the blobs of many new files, and every tree of the index they will make, in one pack written by
 * `git fast-import`, before `update-index` and `write-tree` run: those then find every object already stored
 * and write none. Without this a first snapshot writes a loose file per folder (and a pack per file batch),
 * which on slow file systems took seconds (50k files: write-tree 3.4-4.8 s). The trees only have to match
 * what write-tree will compute; if a file changes in between, write-tree simply stores the difference.
 *
 * Best effort: the objects are unreferenced until the snapshot commit exists, and a failure here only means
 * the normal path does all the writing.
 */
export async function prepack(git: ShadowGit, projectDir: string, paths: string[]): Promise<void> {
  const adding = new Set(paths)
  const indexed = await git.fields(['ls-files', '-z', '-s'])
  const child = git.spawn(['fast-import', '--quiet', '--force'])
  let stderr = ''
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString('utf8')))
  child.stdin.on('error', () => {}) // an early exit is reported by the exit code
  const closed = new Promise<number>((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code) => resolve(code ?? 1))
  })
  const write = async (chunk: string | Buffer): Promise<void> => {
    if (!child.stdin.write(chunk)) {
      await new Promise<void>((resolve) => {
        child.stdin.once('drain', resolve)
        child.once('close', resolve)
      })
    }
  }

  // The commit only exists to make fast-import build the trees; the reset at the end drops its ref.
  await write(`commit ${SCRATCH_REF}\ncommitter Ralph Studio <snapshots@ralph.local> 0 +0000\ndata 0\n`)
  for (const entry of indexed) {
    const tab = entry.indexOf('\t')
    const path = entry.slice(tab + 1)
    if (adding.has(path)) continue
    const [mode, sha] = entry.slice(0, tab).split(' ')
    await write(`M ${mode} ${sha} ${quotePath(path)}\n`)
  }
  for (const path of paths) {
    const content = readEntry(projectDir, path)
    if (content === null) continue // gone or unreadable: update-index decides what happens to it
    await write(`M ${content.mode} inline ${quotePath(path)}\ndata ${content.data.length}\n`)
    await write(content.data)
    await write('\n')
  }
  child.stdin.end(`\nreset ${SCRATCH_REF}\n\n`)
  const code = await closed
  if (code !== 0) throw new Error(`git fast-import exited with ${code}: ${stderr.trim()}`)
}

const SCRATCH_REF = 'refs/ralph/prepack'

function readEntry(projectDir: string, path: string): { mode: string; data: Buffer } | null {
  const file = join(projectDir, path)
  try {
    const st = lstatSync(file)
    if (st.isSymbolicLink()) return { mode: '120000', data: readlinkSync(file, { encoding: 'buffer' }) }
    if (!st.isFile()) return null
    return { mode: (st.mode & 0o100) !== 0 ? '100755' : '100644', data: readFileSync(file) }
  } catch {
    return null
  }
}

/** fast-import reads a path to the end of the line unless it starts with a quote; C-quote the ones that must be. */
export function quotePath(path: string): string {
  if (!path.startsWith('"') && !path.includes('\n')) return path
  return `"${path.replace(/[\\"]/g, (c) => `\\${c}`).replace(/\n/g, '\\n')}"`
}
