import type { ChildProcessWithoutNullStreams } from 'node:child_process'
import { hash } from 'node:crypto'
import {
  type BigIntStats,
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readlinkSync,
  rmSync,
} from 'node:fs'
import { readFile as readFileAsync } from 'node:fs/promises'
import { join } from 'node:path'
import { setImmediate } from 'node:timers/promises'
import { readBehindHeader } from './blobRead'
import { blobSha } from './applyChanges'
import type { ShadowGit } from './git'
import { IndexEntries } from './indexFile'
import { buildTrees, type BuiltTrees } from './treeHash'
import { progressReporter, type SaveHooks } from './stageHooks'
import { ifUnreadable, isUnreadable, reportedElsewhere } from '../workspace'
import { traceFallback } from './traceGit'

export interface Prepacked {
  /** The index entry of every file stored, in index order. */
  entries: IndexEntries
  /**
   * With an empty index: the trees those entries make, root and cache-tree. `done` checks them against the
   * trees fast-import stored; should it reject, an index written with these names must be discarded.
   */
  trees: BuiltTrees | null
  /** Resolves once fast-import has stored every object; rejects if it failed or its trees differ from `trees`. */
  done: Promise<void>
}

/**
 * Stores the blobs of many new files, and every tree of the index they will make, in one pack written by
 * `git fast-import`, before the index is updated and `write-tree` runs: those then find every object already
 * stored and write none. Without this a first snapshot writes a loose file per folder (and a pack per file
 * batch), which on slow file systems took seconds (50k files: write-tree 3.4-4.8 s). The trees only have to
 * match what write-tree will compute; if a file changes in between, write-tree simply stores the difference.
 *
 * Each file is read once, and its blob is named here as it is handed over, so a caller starting from an empty
 * index can write that index (trees included) at once, without git reading the files again, and go on while
 * fast-import is still compressing (`done`).
 *
 * Best effort: the objects are unreferenced until the snapshot commit exists, and a failure here only means
 * the normal path does all the writing.
 */
export async function prepack(
  git: ShadowGit,
  projectDir: string,
  paths: string[],
  sizeCap: number,
  hooks: SaveHooks = {},
): Promise<Prepacked> {
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
  closed.catch(reportedElsewhere) // a spawn failure is reported where `closed` is awaited, not as an unhandled rejection
  const out = new StreamBatcher(child)

  const entries = new IndexEntries()
  let trees: BuiltTrees | null
  try {
    const scratch = Buffer.allocUnsafe(SCRATCH)
    const progress = progressReporter(hooks, paths.length)
    for (const path of paths) {
      const due = progress.step()
      const file = readBlob(join(projectDir, path), sizeCap, scratch)
      // Gone, unreadable, over the cap or a folder: the normal staging path decides what happens to it.
      if (file === null) continue
      entries.add(path, file.stat, file.sha)
      out.add(`blob\ndata ${file.body.length}\n`)
      out.add(file.body)
      if (out.add('\n') || due) {
        await out.flush()
        progress.yielded()
      }
    }
    const names = entries.sortedNames()
    trees =
      indexed.length === 0
        ? buildTrees({ names, sha: (i) => entries.sha(i), mode: (i) => entries.mode(i) })
        : null
  } catch (err) {
    child.kill() // its stream will never end: don't leave it waiting
    rmSync(marksFile, { force: true })
    throw err
  }

  // The trees go over while the caller goes on (it may write the index and start git meanwhile).
  const done = (async () => {
    // The commit only exists to make fast-import build the trees; the reset at the end drops its ref.
    out.add(`commit ${SCRATCH_REF}\nmark :1\ncommitter ${SCRATCH_IDENT}\ndata 0\n`)
    for (const entry of indexed) {
      const tab = entry.indexOf('\t')
      const path = entry.slice(tab + 1)
      if (adding.has(path)) continue
      const [mode, sha] = entry.slice(0, tab).split(' ')
      if (out.add(`M ${mode} ${sha} ${quotePath(path)}\n`)) await out.flush()
    }
    for (let i = 0; i < entries.length; i++) {
      const line = `M ${entries.mode(i).toString(8)} ${entries.sha(i).toString('hex')} ${quotePath(entries.paths[i]!)}\n`
      if (out.add(line)) await out.flush()
    }
    await out.end(`\nreset ${SCRATCH_REF}\n\n`)

    const code = await closed
    try {
      if (code !== 0) throw new Error(`git fast-import exited with ${code}: ${stderr.trim()}`)
      if (trees === null) return
      // The scratch commit names its tree, which names every tree and blob below it: one comparison checks
      // that every name computed here is what git stored.
      const stored = parseMarks(await readFileAsync(marksFile, 'utf8')).get(1)
      if (stored !== scratchCommitName(trees.root)) {
        throw new Error(`git fast-import stored commit ${stored ?? '(none)'}, not the one computed here`)
      }
    } finally {
      rmSync(marksFile, { force: true })
    }
  })()
  done.catch(reportedElsewhere) // callers await it; this only keeps an early failure from counting as unhandled
  return { entries, trees, done }
}

const SCRATCH_REF = 'refs/ralph/prepack'

const SCRATCH_IDENT = 'Ralph Studio <snapshots@ralph.local> 0 +0000'

/** The commit fast-import writes for the scratch commit above when its tree is `root`. */
function scratchCommitName(root: Buffer): string {
  const body = `tree ${root.toString('hex')}\nauthor ${SCRATCH_IDENT}\ncommitter ${SCRATCH_IDENT}\n\n`
  return hash('sha1', `commit ${Buffer.byteLength(body)}\0${body}`)
}

/** Reused for every file that fits: git's object header, then the file's bytes. */
const SCRATCH = 256 * 1024

/**
 * Reads a file or symlink with the stat git would record, and names its blob. One open + fstat + read per
 * file, where lstat followed by readFile would look the path up twice (50,000 files: ~200 ms less). The
 * content lands right behind git's object header, so the name is hashed from one buffer. Windows has no
 * O_NOFOLLOW, so there a symlink is read through; that only stores an unused object, since Windows never
 * writes the index from these. `body` may point into `scratch`: use it before the next call.
 */
function readBlob(
  full: string,
  sizeCap: number,
  scratch: Buffer,
): { body: Buffer; sha: Buffer; stat: BigIntStats } | null {
  let fd: number
  try {
    // O_NONBLOCK: a path swapped for a named pipe since git listed it opens at once (fstat then refuses it).
    fd = openSync(full, constants.O_RDONLY | constants.O_NOFOLLOW | (constants.O_NONBLOCK ?? 0))
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ELOOP') return null
    try {
      const stat = lstatSync(full, { bigint: true })
      const body = readlinkSync(full, { encoding: 'buffer' })
      return { body, sha: blobName(body), stat }
    } catch (err) {
      return ifUnreadable(null)(err)
    }
  }
  try {
    const stat = fstatSync(fd, { bigint: true })
    if (!stat.isFile() || stat.size > BigInt(sizeCap)) return null
    const size = Number(stat.size)
    const { buf, headerLength, filled } = readBehindHeader(fd, size, scratch)
    const body = buf.subarray(headerLength, headerLength + filled)
    // Shrank while being read: store what is there (its header changes with it); the next save sees the rest.
    if (filled < size) return { body, sha: blobName(body), stat }
    return { body, sha: hash('sha1', buf.subarray(0, headerLength + size), 'buffer'), stat }
  } catch (err) {
    // Unreadable, or changed while read (the normal staging path decides what happens to it).
    if (!isUnreadable(err)) traceFallback(`${full} could not be read up front`, err)
    return null
  } finally {
    closeSync(fd)
  }
}

/** Git's name for a blob holding `data`, in bytes. */
function blobName(data: Buffer): Buffer {
  return Buffer.from(blobSha(data), 'hex')
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
 * Copies small pieces into chunks of CHUNK bytes, so that a stream of 50,000 files costs a few hundred
 * writes (and awaits) rather than 150,000, and no buffer per piece.
 */
class StreamBatcher {
  private chunk = Buffer.allocUnsafe(CHUNK)
  private used = 0
  private ready: Buffer[] = []

  constructor(private readonly child: ChildProcessWithoutNullStreams) {}

  /** Copies a piece in (it may be reused afterwards); true when a chunk is full and the caller should `flush()`. */
  add(part: string | Buffer): boolean {
    const length = typeof part === 'string' ? Buffer.byteLength(part, 'utf8') : part.length
    if (this.used + length > CHUNK) this.seal()
    if (length > CHUNK) this.ready.push(Buffer.from(part))
    else if (typeof part === 'string') this.used += this.chunk.write(part, this.used, 'utf8')
    else this.used += part.copy(this.chunk, this.used)
    return this.ready.length > 0
  }

  async end(last: string): Promise<void> {
    this.add(last)
    this.seal()
    await this.flush()
    this.child.stdin.end()
  }

  async flush(): Promise<void> {
    for (const chunk of this.ready) this.child.stdin.write(chunk)
    this.ready = []
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

  private seal(): void {
    if (this.used === 0) return
    this.ready.push(this.chunk.subarray(0, this.used))
    this.chunk = Buffer.allocUnsafe(CHUNK)
    this.used = 0
  }
}

const CHUNK = 32 * 1024
/** Bytes read ahead of fast-import before waiting for it to catch up. */
const BACKLOG = 8 * 1024 * 1024
