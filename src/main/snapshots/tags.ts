import { AppError } from '../../shared/errors'
import { kindOfTag, snapshotTags } from '../../shared/snapshotTags'
import type { SkippedFile, SnapshotKind, SnapshotMeta } from './types'

const TAG_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/

/** Tag names are user input on the CLI and API: only our own plain names, never options or ref syntax. */
export function assertTagName(tag: string): void {
  if (!TAG_NAME.test(tag) || tag.includes('..') || tag.endsWith('.lock')) {
    throw new AppError(
      'invalid-input',
      `"${tag}" is not a snapshot tag name (e.g. task-3-pre, manual-1700000000).`,
    )
  }
}

/** The tag a new snapshot of `kind` gets (before `-2`, `-3` … for a taken name). */
export function baseTagName(kind: SnapshotKind, task: number | undefined, nowMs: number): string {
  const needTask = (): number => {
    // Safe integers only: 1e23 is an "integer" too, and would make the tag task-1e+23-pre.
    if (task === undefined || !Number.isSafeInteger(task) || task < 1) {
      throw new AppError(
        'invalid-input',
        `A ${kind} snapshot needs a task number (a whole number from 1 to ${Number.MAX_SAFE_INTEGER}).`,
      )
    }
    return task
  }
  switch (kind) {
    case 'task-pre':
      return snapshotTags.taskPre(needTask())
    case 'task-post':
      return snapshotTags.taskPost(needTask())
    case 'stall-recovery':
      return snapshotTags.stallRecovery(needTask())
    case 'manual':
      return snapshotTags.manual(nowMs)
    case 'safety':
      return snapshotTags.safety(nowMs)
    case 'baseline':
      return snapshotTags.baseline(nowMs)
  }
}

/** Tags are never moved or reused: a taken name gets `-2`, `-3` … */
export async function uniqueTagName(
  base: string,
  exists: (tag: string) => Promise<boolean>,
): Promise<string> {
  if (!(await exists(base))) return base
  for (let n = 2; ; n++) {
    const candidate = `${base}-${n}`
    if (!(await exists(candidate))) return candidate
  }
}

export { kindOfTag, snapshotTags }

// Commit messages carry the metadata as trailers, so `list` needs one git call and no database.
const MAX_SKIPPED_IN_COMMIT = 200

/** `extra`: further trailer lines (the mode manifest), read by their own parsers. */
export function commitMessage(meta: Omit<SnapshotMeta, 'commit'>, extra: string[] = []): string {
  // eslint-disable-next-line no-control-regex
  const clean = meta.message.replace(/[\x00-\x08\x0b-\x1f\x7f]/g, ' ').trim()
  const lines = [
    clean || defaultMessage(meta.kind, meta.task),
    '',
    `Ralph-Tag: ${meta.tag}`,
    `Ralph-Kind: ${meta.kind}`,
    ...(meta.task !== null ? [`Ralph-Task: ${meta.task}`] : []),
    `Ralph-Time: ${meta.createdAt}`,
    `Ralph-Added: ${meta.added}`,
    `Ralph-Modified: ${meta.modified}`,
    `Ralph-Deleted: ${meta.deleted}`,
    // Of those, Ralph's own files (.ralph/): added, modified, deleted.
    ...(meta.ralph
      ? [`Ralph-Own-Files: ${meta.ralph.added} ${meta.ralph.modified} ${meta.ralph.deleted}`]
      : []),
    `Ralph-Duration: ${meta.durationMs}`,
    `Ralph-Skipped-Total: ${meta.skippedTotal}`,
    `Ralph-Skipped: ${JSON.stringify(meta.skipped.slice(0, MAX_SKIPPED_IN_COMMIT))}`,
    ...(meta.rollbackTarget ? [`Ralph-Rollback-Of: ${meta.rollbackTarget}`] : []),
    ...extra,
  ]
  return lines.join('\n') + '\n'
}

export function defaultMessage(kind: SnapshotKind, task: number | null): string {
  switch (kind) {
    case 'task-pre':
      return `Before task ${task}`
    case 'task-post':
      return `After task ${task}`
    case 'stall-recovery':
      return `Stall recovery in task ${task}`
    case 'manual':
      return 'Manual snapshot'
    case 'safety':
      return 'Safety snapshot'
    case 'baseline':
      return 'Baseline, taken when the project was opened'
  }
}

/** The trailer fields of a commit message written by commitMessage (`Ralph-Kind: …` as Kind), and the text above. */
function trailerOf(text: string): { message: string; fields: Map<string, string> } | null {
  const trailerStart = text.indexOf('\n\nRalph-Tag: ')
  if (trailerStart === -1) return null
  const fields = new Map<string, string>()
  for (const line of text.slice(trailerStart + 2).split('\n')) {
    const m = /^Ralph-([A-Za-z-]+): (.*)$/.exec(line)
    if (m) fields.set(m[1]!, m[2]!)
  }
  return { message: text.slice(0, trailerStart).trim(), fields }
}

function skippedField(fields: Map<string, string>): SkippedFile[] {
  try {
    return JSON.parse(fields.get('Skipped') ?? '[]') as SkippedFile[]
  } catch (err) {
    if (err instanceof SyntaxError) return [] // a hand-edited or truncated trailer: nothing known to be skipped
    throw err
  }
}

/** The files a snapshot commit records as skipped; none for a message commitMessage did not write. */
export function skippedInCommit(text: string): SkippedFile[] {
  const trailer = trailerOf(text)
  return trailer?.fields.get('Kind') ? skippedField(trailer.fields) : []
}

/** The `Ralph-Own-Files: a m d` trailer; nothing for a commit written before it existed. */
function ownFiles(field: string | undefined): Pick<SnapshotMeta, 'ralph'> {
  const m = field === undefined ? null : /^(\d+) (\d+) (\d+)$/.exec(field.trim())
  return m ? { ralph: { added: Number(m[1]), modified: Number(m[2]), deleted: Number(m[3]) } } : {}
}

/** Parses a commit message written by commitMessage; null for anything else. */
export function parseCommitMessage(tag: string, commit: string, text: string): SnapshotMeta | null {
  const trailer = trailerOf(text)
  if (trailer === null) return null
  const { message, fields } = trailer
  const kind = fields.get('Kind') as SnapshotKind | undefined
  if (!kind || kindOfTag(tag) === null) return null
  const num = (k: string): number => Number(fields.get(k) ?? 0) || 0
  const skipped = skippedField(fields)
  const task = fields.get('Task')
  return {
    tag,
    commit,
    kind,
    task: task === undefined ? null : Number(task),
    message,
    createdAt: num('Time'),
    added: num('Added'),
    modified: num('Modified'),
    deleted: num('Deleted'),
    ...ownFiles(fields.get('Own-Files')),
    skipped,
    skippedTotal: Math.max(num('Skipped-Total'), skipped.length),
    durationMs: num('Duration'),
    rollbackTarget: fields.get('Rollback-Of') ?? null,
  }
}
