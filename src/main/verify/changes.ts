import { structuredPatch } from 'diff'
import { type DiffStatus, type FileSide, type SnapshotEngine, ShadowGit } from '../snapshots'

/** One hunk of a unified diff, ready to quote in an evidence bundle. */
export interface Hunk {
  header: string
  lines: string[]
}

export interface ChangedFile {
  path: string
  oldPath?: string
  status: DiffStatus
  /** Binary or too large to diff: no hunks, counted as one changed line so it still weighs in the size check. */
  opaque: boolean
  additions: number
  deletions: number
  hunks: Hunk[]
  /** The added lines with their line number in the new file (for the secret scan). */
  added: { line: number; text: string }[]
}

/** Larger files are named but not diffed: a generated bundle should not crowd out the evidence. */
const MAX_FILE_BYTES = 256 * 1024

/** Harness state is not the task's work: `.ralph/` never counts as a change to verify. */
export const isHarnessPath = (path: string): boolean => path === '.ralph' || path.startsWith('.ralph/')

function textOf(side: FileSide): string | null {
  if (!side.exists) return ''
  if (side.binary || side.tooLarge || side.content === null) return null
  return side.content
}

function fileChange(
  entry: { path: string; oldPath?: string; status: DiffStatus },
  oldSide: FileSide,
  newSide: FileSide,
): ChangedFile {
  const before = textOf(oldSide)
  const after = textOf(newSide)
  const base = {
    path: entry.path,
    status: entry.status,
    ...(entry.oldPath ? { oldPath: entry.oldPath } : {}),
  }
  if (before === null || after === null) {
    return { ...base, opaque: true, additions: 1, deletions: 0, hunks: [], added: [] }
  }
  const patch = structuredPatch(
    entry.oldPath ?? entry.path,
    entry.path,
    before,
    after,
    undefined,
    undefined,
    {
      context: 3,
    },
  )
  let additions = 0
  let deletions = 0
  const added: ChangedFile['added'] = []
  const hunks = patch.hunks.map((h) => {
    let newLine = h.newStart
    for (const l of h.lines) {
      if (l.startsWith('+')) {
        additions++
        added.push({ line: newLine, text: l.slice(1) })
        newLine++
      } else if (l.startsWith('-')) deletions++
      else if (!l.startsWith('\\')) newLine++
    }
    return { header: `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`, lines: h.lines }
  })
  return { ...base, opaque: false, additions, deletions, hunks, added }
}

/** A blob as read for the diff: absent, unreadable as text (binary or over the cap), or its text. */
type Side = { kind: 'missing' } | { kind: 'opaque' } | { kind: 'text'; text: string }

const toFileSide = (side: Side): FileSide =>
  side.kind === 'text'
    ? { exists: true, size: side.text.length, binary: false, tooLarge: false, content: side.text }
    : side.kind === 'opaque'
      ? { exists: true, size: 0, binary: true, tooLarge: false, content: null }
      : { exists: false, size: 0, binary: false, tooLarge: false, content: null }

/**
 * Reads `<tag>:<path>` blobs from the shadow store with two git processes in all (sizes, then the contents of
 * those under the cap), instead of several per file: verification's own time stays small however many files changed.
 */
async function readBlobs(git: ShadowGit, names: readonly string[]): Promise<Side[]> {
  if (names.length === 0) return []
  const check = await git.text(['cat-file', '--batch-check=%(objectname) %(objecttype) %(objectsize)'], {
    input: names.map((n) => `${n}\n`).join(''),
  })
  const lines = check.split('\n')
  const sides: Side[] = names.map(() => ({ kind: 'missing' }))
  const wanted: { index: number; sha: string }[] = []
  names.forEach((_, i) => {
    const m = /^([0-9a-f]{40,64}) blob (\d+)$/.exec(lines[i] ?? '')
    if (!m) return
    if (Number(m[2]) > MAX_FILE_BYTES) sides[i] = { kind: 'opaque' }
    else wanted.push({ index: i, sha: m[1]! })
  })
  if (wanted.length === 0) return sides
  const out = (await git.run(['cat-file', '--batch'], { input: wanted.map((w) => `${w.sha}\n`).join('') }))
    .stdout
  let at = 0
  for (const w of wanted) {
    const eol = out.indexOf(0x0a, at)
    const header = out.subarray(at, eol).toString('utf8')
    const size = Number(header.split(' ')[2])
    const body = out.subarray(eol + 1, eol + 1 + size)
    at = eol + 1 + size + 1
    sides[w.index] = body.subarray(0, 8000).includes(0)
      ? { kind: 'opaque' }
      : { kind: 'text', text: body.toString('utf8') }
  }
  return sides
}

/**
 * What the task changed: every file that differs between its pre and post snapshots (the snapshot engine's diff),
 * outside `.ralph/`, with line counts and hunks computed from both versions in the store.
 */
export async function collectChanges(
  engine: SnapshotEngine,
  fromTag: string,
  toTag: string,
): Promise<ChangedFile[]> {
  const diff = await engine.diff(fromTag, toTag)
  const entries = diff.entries.filter((e) => !isHarnessPath(e.path))
  // A path with a newline cannot go through --batch (one name per line): the engine reads those one by one.
  const odd = entries.filter((e) => e.path.includes('\n') || e.oldPath?.includes('\n'))
  const plain = entries.filter((e) => !odd.includes(e))
  const git = new ShadowGit(engine.paths.gitDir, engine.paths.projectDir)
  const names: string[] = []
  for (const e of plain) {
    if (e.status !== 'added') names.push(`refs/tags/${fromTag}:${e.oldPath ?? e.path}`)
    if (e.status !== 'deleted') names.push(`refs/tags/${toTag}:${e.path}`)
  }
  const sides = await readBlobs(git, names)
  const missing: Side = { kind: 'missing' }
  let k = 0
  const byEntry = new Map<(typeof entries)[number], ChangedFile>()
  for (const e of plain) {
    const before = e.status !== 'added' ? sides[k++]! : missing
    const after = e.status !== 'deleted' ? sides[k++]! : missing
    byEntry.set(e, fileChange(e, toFileSide(before), toFileSide(after)))
  }
  for (const e of odd) {
    const oldSide = (await engine.fileDiff(fromTag, e.oldPath ?? e.path, toTag, MAX_FILE_BYTES)).old
    const newSide = (await engine.fileDiff(fromTag, e.path, toTag, MAX_FILE_BYTES)).new
    byEntry.set(
      e,
      fileChange(
        e,
        e.status === 'added' ? toFileSide(missing) : oldSide,
        e.status === 'deleted' ? toFileSide(missing) : newSide,
      ),
    )
  }
  return entries.map((e) => byEntry.get(e)!)
}

export const changedLines = (files: readonly ChangedFile[]): number =>
  files.reduce((n, f) => n + f.additions + f.deletions, 0)
