import type { ChildProcessWithoutNullStreams } from 'node:child_process'
import type { BigIntStats } from 'node:fs'
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, readlinkSync, rmSync } from 'node:fs'
import { readFile as readFileAsync } from 'node:fs/promises'
import { join } from 'node:path'
import { setImmediate } from 'node:timers/promises'
import type { ShadowGit } from './git'
import { indexMode, type IndexEntry } from './indexFile'

/**
 * Stores the blobs of many new files, and every tree of the index they will make, in one pack written by
 * `git fast-import`, before the index is updated and `write-tree` runs: those then find every object already
 * stored and write none. Without this a first snapshot writes a loose file per folder (and a pack per file
 * batch), which on slow file systems took seconds (50k files: write-tree 3.4-4.8 s). The trees only have to
 * match what write-tree will compute; if a file changes in between, write-tree simply stores the difference.
 *
 * Returns the index entry of every file it stored (fast-import names each blob through a mark), so a caller
 * starting from an empty index can write it without git reading the files again.
 *
 * Best effort: the objects are unreferenced until the snapshot commit exists, and a failure here only means
 * the normal path does all the writing.
 */
export async function prepack(
  git: ShadowGit,
  projectDir: string,
  paths: string[],
  sizeCap: number,
): Promise<IndexEntry[]> {
  const adding = new Set(paths)
  const indexed = await git.fields(['ls-files', '-z', '-s'])
  const marksFile = join(git.gitDir, 'ralph-prepack-marks')
  const child = git.spawn(['fast-import', '--quiet', '--force', `--export-marks=${marksFile}`])
  let stderr = ''
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString('utf8')))
  child.stdin.on('error', () => {}) // an early exit is reported by the exit code
  const closed = new Promise<number>((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code) => resolve(code ?? 1))
  })
  const out = new StreamBatcher(child)

  // Blobs first, each under a mark; the commit below names them by mark.
  const stored: { path: string; stat: BigIntStats }[] = []
  for (const path of paths) {
    const file = readFile(join(projectDir, path), sizeCap)
    // Gone, unreadable, over the cap or a folder: the normal staging path decides what happens to it.
    if (file === null) continue
    stored.push({ path, stat: file.stat })
    out.add(`blob\nmark :${stored.length}\ndata ${file.data.length}\n`)
    out.add(file.data)
    if (out.add('\n')) await out.flush()
  }
  // The commit only exists to make fast-import build the trees; the reset at the end drops its ref.
  out.add(`commit ${SCRATCH_REF}\ncommitter Ralph Studio <snapshots@ralph.local> 0 +0000\ndata 0\n`)
  for (const entry of indexed) {
    const tab = entry.indexOf('\t')
    const path = entry.slice(tab + 1)
    if (adding.has(path)) continue
    const [mode, sha] = entry.slice(0, tab).split(' ')
    if (out.add(`M ${mode} ${sha} ${quotePath(path)}\n`)) await out.flush()
  }
  for (let i = 0; i < stored.length; i++) {
    const { path, stat } = stored[i]!
    if (out.add(`M ${indexMode(stat).toString(8)} :${i + 1} ${quotePath(path)}\n`)) await out.flush()
  }
  await out.end(`\nreset ${SCRATCH_REF}\n\n`)
  const code = await closed
  try {
    if (code !== 0) throw new Error(`git fast-import exited with ${code}: ${stderr.trim()}`)
    const shas = parseMarks(await readFileAsync(marksFile, 'utf8'))
    return stored.map(({ path, stat }, i) => {
      const sha = shas.get(i + 1)
      if (!sha) throw new Error(`git fast-import did not name blob :${i + 1}`)
      return { path, sha, stat }
    })
  } finally {
    rmSync(marksFile, { force: true })
  }
}

const SCRATCH_REF = 'refs/ralph/prepack'

/**
 * Reads a file or symlink with the stat git would record. One open + fstat + read per file, where lstat followed
 * by readFile would look the path up twice (50,000 files: ~200 ms less). Windows has no O_NOFOLLOW, so there a
 * symlink is read through; that only stores an unused object, since Windows never writes the index from these.
 */
function readFile(full: string, sizeCap: number): { data: Buffer; stat: BigIntStats } | null {
  let fd: number
  try {
    fd = openSync(full, constants.O_RDONLY | constants.O_NOFOLLOW)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ELOOP') return null
    try {
      const stat = lstatSync(full, { bigint: true })
      return { data: readlinkSync(full, { encoding: 'buffer' }), stat }
    } catch {
      return null
    }
  }
  try {
    const stat = fstatSync(fd, { bigint: true })
    if (!stat.isFile() || stat.size > BigInt(sizeCap)) return null
    const data = Buffer.allocUnsafe(Number(stat.size))
    let filled = 0
    while (filled < data.length) {
      const n = readSync(fd, data, filled, data.length - filled, null)
      if (n === 0) break // shrank while being read: store what is there; the next save sees the rest
      filled += n
    }
    return { data: data.subarray(0, filled), stat }
  } catch {
    return null
  } finally {
    closeSync(fd)
  }
}

/** `:<mark> <sha>` lines, as fast-import exports them. */
export function parseMarks(text: string): Map<number, string> {
  const marks = new Map<number, string>()
  for (const line of text.split('\n')) {
    const m = /^:(\d+) ([0-9a-f]{40,64})$/.exec(line)
    if (m) marks.set(Number(m[1]), m[2]!)
  }
  return marks
}

/** fast-import reads a path to the end of the line unless it starts with a quote; C-quote the ones that must be. */
export function quotePath(path: string): string {
  if (!path.startsWith('"') && !path.includes('\n')) return path
  return `"${path.replace(/[\\"]/g, (c) => `\\${c}`).replace(/\n/g, '\\n')}"`
}

/**
 * Gathers small pieces into chunks of CHUNK bytes, so that a stream of 50,000 files costs a few hundred
 * writes (and awaits) rather than 150,000.
 */
class StreamBatcher {
  private parts: Buffer[] = []
  private size = 0

  constructor(private readonly child: ChildProcessWithoutNullStreams) {}

  /** Queues a piece; true when a chunk is full and the caller should `flush()`. */
  add(part: string | Buffer): boolean {
    const bytes = typeof part === 'string' ? Buffer.from(part, 'utf8') : part
    this.parts.push(bytes)
    this.size += bytes.length
    return this.size >= CHUNK
  }

  async end(last: string): Promise<void> {
    this.add(last)
    await this.flush()
    this.child.stdin.end()
  }

  async flush(): Promise<void> {
    const chunk = Buffer.concat(this.parts, this.size)
    this.parts = []
    this.size = 0
    this.child.stdin.write(chunk)
    if (this.child.stdin.writableLength < BACKLOG) {
      // Let the event loop hand queued bytes to the pipe, then go on reading files while fast-import works.
      await setImmediate()
      return
    }
    await new Promise<void>((resolve) => {
      const done = (): void => {
        this.child.stdin.off('drain', done)
        this.child.off('close', done)
        resolve()
      }
      this.child.stdin.once('drain', done)
      this.child.once('close', done)
    })
  }
}

const CHUNK = 32 * 1024
/** Bytes read ahead of fast-import before waiting for it to catch up. */
const BACKLOG = 8 * 1024 * 1024
