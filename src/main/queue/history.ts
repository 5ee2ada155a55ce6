import { rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { AppError } from '../../shared/errors'
import { writeCommit, type ShadowGit, ObjectStore, UnsupportedStore, readRef } from '../snapshots'
import { updateRefIfUnchanged } from './refUpdate'
import { ifMissing } from '../workspace'

/**
 * The queue's history (DESIGN.md §16): every mutation adds one commit holding the new plan.jsonl to this ref in
 * the shadow store. The ref only ever moves forward; a rollback restores the file, never the ref.
 */
export const QUEUE_REF = 'refs/ralph/queue'
/** Where the file sits in each history commit's tree. */
export const HISTORY_PATH = 'plan.jsonl'

const ZERO = '0'.repeat(40)

export interface Trailers {
  op: string
  ids: string[]
  spec: string | null
}

const oneLine = (s: string, max: number): string => {
  const flat = s.replace(/\s+/g, ' ').trim()
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}

/** A summary line people read, then trailers `ralph log` reads back. */
export function commitMessage(summary: string, t: Trailers): string {
  const lines = [oneLine(summary, 200), '', `Ralph-Op: ${t.op}`]
  if (t.ids.length > 0) lines.push(`Ralph-Ids: ${t.ids.join(' ')}`)
  if (t.spec !== null) lines.push(`Ralph-Spec: ${oneLine(t.spec, 500)}`)
  return `${lines.join('\n')}\n`
}

export function parseCommitMessage(text: string): Trailers & { summary: string } {
  const summary = text.split('\n', 1)[0] ?? ''
  const trailer = (key: string): string | null =>
    new RegExp(`^${key}: (.*)$`, 'm').exec(text)?.[1]?.trim() ?? null
  return {
    summary,
    op: trailer('Ralph-Op') ?? 'unknown',
    ids: (trailer('Ralph-Ids') ?? '').split(' ').filter(Boolean),
    spec: trailer('Ralph-Spec'),
  }
}

export interface AppendOptions {
  /** Compare-and-swap attempts before giving up (another writer moved the ref each time). */
  attempts?: number
}

/**
 * Adds one commit holding `content` on top of the ref. The update is a compare-and-swap against the parent the
 * commit was built on, so a writer that raced us is never overwritten: we re-parent onto its commit and retry.
 * The objects and the ref are written in-process (four git processes cost more than the queue command itself);
 * a store this cannot read (a pack index of another version) goes through git.
 */
export async function appendHistory(
  git: ShadowGit,
  content: string,
  message: string,
  opts: AppendOptions = {},
): Promise<string> {
  const writer = inProcessWriter(git, content) ?? (await gitWriter(git, content))
  const attempts = opts.attempts ?? 50
  let lastError = ''
  for (let attempt = 0; attempt < attempts; attempt++) {
    const parent = await readRef(git.gitDir, QUEUE_REF)
    const commit = await writer.commit(parent, message)
    const res = await writer.updateRef(commit, parent)
    if (res === null) return commit
    lastError = res
    await clearStaleRefLock(git.gitDir)
    await new Promise((r) => setTimeout(r, Math.min(5 + attempt * 5, 50) * Math.random()))
  }
  throw new AppError(
    'busy',
    `Could not record the queue change in its history after ${attempts} attempts (${lastError}). The change is saved in .ralph/plan.jsonl; run the command again to record it.`,
  )
}

interface HistoryWriter {
  commit(parent: string | null, message: string): Promise<string>
  /** Null when the ref moved to `commit`; otherwise why not (another writer moved or holds it). */
  updateRef(commit: string, parent: string | null): Promise<string | null>
}

function inProcessWriter(git: ShadowGit, content: string): HistoryWriter | null {
  let tree: string
  try {
    const store = new ObjectStore(git.gitDir)
    const blob = store.write('blob', Buffer.from(content, 'utf8'))
    const entry = Buffer.concat([Buffer.from(`100644 ${HISTORY_PATH}\0`, 'utf8'), Buffer.from(blob, 'hex')])
    tree = store.write('tree', entry)
  } catch (err) {
    if (err instanceof UnsupportedStore) return null
    throw err
  }
  return {
    // An identity git would clean up first is left to git (writeCommit returns null).
    commit: async (parent, message) =>
      writeCommit(
        git.gitDir,
        tree,
        git.identity,
        Math.floor(Date.now() / 1000),
        message,
        parent ? [parent] : [],
      ) ?? (await commitTree(git, tree, parent, message)),
    updateRef: async (commit, parent) => {
      const res = await updateRefIfUnchanged(git.gitDir, QUEUE_REF, commit, parent)
      return res === 'updated'
        ? null
        : `the ref was ${res === 'moved' ? 'moved' : 'locked'} by another writer`
    },
  }
}

async function commitTree(git: ShadowGit, tree: string, parent: string | null, message: string) {
  const args = ['commit-tree', tree, ...(parent ? ['-p', parent] : []), '-F', '-']
  return (await git.text(args, { input: message })).trim()
}

async function gitWriter(git: ShadowGit, content: string): Promise<HistoryWriter> {
  const blob = (await git.text(['hash-object', '-w', '--stdin'], { input: content })).trim()
  const tree = (await git.text(['mktree'], { input: `100644 blob ${blob}\t${HISTORY_PATH}\n` })).trim()
  return {
    commit: (parent, message) => commitTree(git, tree, parent, message),
    updateRef: async (commit, parent) => {
      const res = await git.run(['update-ref', QUEUE_REF, commit, parent ?? ZERO], { okCodes: [0, 1, 128] })
      return res.code === 0 ? null : res.stderr.trim()
    },
  }
}

// A ref lock left by a writer killed mid-update would refuse every later update; a live one lasts milliseconds.
async function clearStaleRefLock(gitDir: string): Promise<void> {
  const file = join(gitDir, `${QUEUE_REF}.lock`)
  const st = await stat(file).catch(ifMissing(null))
  if (st && Date.now() - st.mtimeMs > 5000) await rm(file, { force: true })
}

export interface HistoryCommit {
  commit: string
  /** Committer date, ISO 8601 with offset. */
  date: string
  message: string
}

/** Every commit on the ref, oldest first (one git call). */
export async function readHistoryCommits(git: ShadowGit): Promise<HistoryCommit[]> {
  if ((await readRef(git.gitDir, QUEUE_REF)) === null) return []
  const out = await git.text(['log', '--reverse', '--format=%H%x00%cI%x00%B%x01', QUEUE_REF, '--'])
  const commits: HistoryCommit[] = []
  for (const chunk of out.split('\x01')) {
    const rec = chunk.replace(/^\n/, '')
    const [commit, date, message] = rec.split('\0')
    if (!commit || !date || message === undefined) continue
    commits.push({ commit, date, message })
  }
  return commits
}

/** plan.jsonl as each commit holds it (one `cat-file --batch` for all); null where a commit lacks it. */
export async function readHistoryFiles(
  git: ShadowGit,
  commits: readonly string[],
): Promise<(string | null)[]> {
  if (commits.length === 0) return []
  const res = await git.run(['cat-file', '--batch'], {
    input: commits.map((c) => `${c}:${HISTORY_PATH}\n`).join(''),
  })
  const buf = res.stdout
  const files: (string | null)[] = []
  let pos = 0
  for (let i = 0; i < commits.length; i++) {
    const eol = buf.indexOf(0x0a, pos)
    if (eol < 0)
      throw new AppError('git', 'The queue history could not be read back (truncated cat-file output).')
    const header = buf.toString('utf8', pos, eol)
    pos = eol + 1
    const m = /^[0-9a-f]{40} blob (\d+)$/.exec(header)
    if (!m) {
      files.push(null) // "<name> missing" (a commit without the file)
      continue
    }
    const size = Number(m[1])
    files.push(buf.toString('utf8', pos, pos + size))
    pos += size + 1
  }
  return files
}
