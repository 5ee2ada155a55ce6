import { snapshotTags, type DiffStatDto, type SnapshotMetaDto } from '../../../../shared/api/snapshots'

/** The working copy in a From/To choice (the folder as it is now, not a snapshot). */
export const WORKING = 'working'

/** What Compare shows: a snapshot tag or `working` on each side. */
export interface CompareRange {
  from: string
  to: string
}

export type ChangeStatus = 'added' | 'modified' | 'deleted' | 'renamed' | 'typechange'

/** A changed file as the view shows it, oriented From → To. */
export interface ChangedFile {
  status: ChangeStatus
  path: string
  /** For a rename: the path on the From side. */
  oldPath?: string
  similarity?: number
}

/**
 * How a range becomes the core's calls: `target` is always a snapshot and `against` a snapshot or the working copy
 * (omitted). A range from the working copy to a snapshot is asked the other way round and turned back (`swapped`).
 * Null when both sides are the same thing.
 */
export function diffCall(range: CompareRange): { target: string; against?: string; swapped: boolean } | null {
  if (range.from === range.to) return null
  if (range.from === WORKING) return { target: range.to, swapped: true }
  return range.to === WORKING
    ? { target: range.from, swapped: false }
    : { target: range.from, against: range.to, swapped: false }
}

const flipped: Record<ChangeStatus, ChangeStatus> = {
  added: 'deleted',
  deleted: 'added',
  modified: 'modified',
  renamed: 'renamed',
  typechange: 'typechange',
}

/** An entry of the core's diff, turned From → To when the call was asked the other way round. */
export function orient(entry: ChangedFile, swapped: boolean): ChangedFile {
  if (!swapped) return entry
  const out: ChangedFile = { ...entry, status: flipped[entry.status] }
  if (entry.oldPath !== undefined) {
    out.path = entry.oldPath
    out.oldPath = entry.path
  }
  return out
}

/** The file as the core's call wants it (its `target` side first), for `fileDiff` and `diffStats`. */
export function callFile(file: ChangedFile, swapped: boolean): { path: string; oldPath?: string } {
  if (file.oldPath === undefined) return { path: file.path }
  return swapped ? { path: file.oldPath, oldPath: file.path } : { path: file.path, oldPath: file.oldPath }
}

/** Line counts, From → To. */
export const orientStat = (stat: DiffStatDto, swapped: boolean): DiffStatDto =>
  swapped ? { ...stat, additions: stat.deletions, deletions: stat.additions } : stat

/** Where Compare starts for a timeline entry: the snapshot before it (a task's post: its pre) → the entry itself. */
export function rangeFor(snapshot: SnapshotMetaDto, previous: SnapshotMetaDto | undefined): CompareRange {
  if (snapshot.kind === 'task-post' && snapshot.task !== null)
    return { from: snapshotTags.taskPre(snapshot.task), to: snapshot.tag }
  // The oldest snapshot has nothing before it: show what changed since.
  return previous ? { from: previous.tag, to: snapshot.tag } : { from: snapshot.tag, to: WORKING }
}

/** The task card's Compare: the task's pre-task snapshot against its post-task one (or the working copy). */
export const taskRange = (task: number): CompareRange => ({
  from: snapshotTags.taskPre(task),
  to: snapshotTags.taskPost(task),
})

export const sideLabel = (side: string): string => (side === WORKING ? 'Working copy' : side)

/** "+3 −1" and its words; binary and too-large files have no line counts. */
export function statText(stat: DiffStatDto | undefined): { short: string; words: string } | null {
  if (!stat) return null
  if (stat.binary) return { short: 'binary', words: 'binary file' }
  if (stat.tooLarge) return { short: 'too large', words: 'too large to compare' }
  if (stat.additions === null || stat.deletions === null) return null
  return {
    short: `+${stat.additions} −${stat.deletions}`,
    words: `${stat.additions} line${stat.additions === 1 ? '' : 's'} added, ${stat.deletions} deleted`,
  }
}

const languages: Record<string, string> = {
  ts: 'typescript',
  tsx: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  js: 'javascript',
  jsx: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  json: 'json',
  css: 'css',
  scss: 'scss',
  less: 'less',
  html: 'html',
  htm: 'html',
  md: 'markdown',
  markdown: 'markdown',
  py: 'python',
  rs: 'rust',
  go: 'go',
  java: 'java',
  c: 'c',
  h: 'c',
  cpp: 'cpp',
  hpp: 'cpp',
  cs: 'csharp',
  rb: 'ruby',
  php: 'php',
  sh: 'shell',
  bash: 'shell',
  yml: 'yaml',
  yaml: 'yaml',
  xml: 'xml',
  svg: 'xml',
  sql: 'sql',
}

/** Monaco's language for a path, by its extension; plain text otherwise. */
export function languageOf(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1)
  const dot = name.lastIndexOf('.')
  return dot > 0 ? (languages[name.slice(dot + 1).toLowerCase()] ?? 'plaintext') : 'plaintext'
}

export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`
}
