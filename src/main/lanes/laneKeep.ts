// A stopped lane's work, kept (issue #38): when a build with lanes ends before a lane's task merged (Stop, a budget
// stop, a pause), the lane's working copy as it is is committed and kept in the PROJECT's store as
// `refs/lanes/<task N>/stopped` before the lane is removed. The commit's parent is the integration state the lane
// started from, and its message names the queue task, so the next build can resume the task from it:
//   - same base as the new build's integration state: the new lane starts from the kept work as it is;
//   - another base (tasks merged since): the kept work is merged onto it (the lanes' 3-way merge with the `.ralph/`
//     rules); a clean merge is where the new lane starts, a conflict discards the kept work (said in the event) and
//     the task starts afresh on the new base;
//   - a task no longer pending (done, removed) discards it.
// `ralph lanes` lists kept work and `ralph lanes clean` discards it. The copied files (`.env` …) are never kept.
import { AppError } from '../../shared/errors'
import { ShadowGit, storeLooksComplete, storePaths, withSnapshotLock } from '../snapshots'
import type { Lane } from './laneCopy'
import { commitLaneResult, mergeLaneResult } from './mergeLane'

const SHA = /^[0-9a-f]{40}$/
const KEPT_REFS = 'refs/lanes/'
/** Where the lane store holds the commit while it is fetched (the lane is removed right after). */
const LANE_SIDE_REF = 'refs/ralph/kept'

/** Where the stopped work of lane task N is kept in the project's store. */
export const keptRef = (task: number): string => {
  if (!Number.isSafeInteger(task) || task < 1) throw new RangeError(`"${task}" is not a task number.`)
  return `refs/lanes/${task}/stopped`
}

export interface KeptState {
  ref: string
  /** The lane task number it ran as (its refs/lanes/N/pre is its start). */
  task: number
  /** The queue task (t-…) it belongs to. */
  taskId: string
  lane: number
  /** The integration state the lane started from (the commit's parent). */
  base: string
  commit: string
  keptAt: number
}

/** The message of a kept commit: the fields `listKept` reads back, as git trailers. */
export function keptMessage(k: Omit<KeptState, 'ref' | 'commit' | 'keptAt'>): string {
  return (
    `lane ${k.lane} stopped: task ${k.task} (${k.taskId})\n\n` +
    `Ralph-Task-Id: ${k.taskId}\nRalph-Task: ${k.task}\nRalph-Lane: ${k.lane}\nRalph-Base: ${k.base}\n`
  )
}

/** The fields of a kept commit's message, or null when it is not one Ralph wrote. */
export function parseKeptMessage(message: string): Omit<KeptState, 'ref' | 'commit' | 'keptAt'> | null {
  const field = (name: string) => new RegExp(`^Ralph-${name}: (.+)$`, 'm').exec(message)?.[1]?.trim()
  const taskId = field('Task-Id')
  const task = Number(field('Task'))
  const lane = Number(field('Lane'))
  const base = field('Base')
  if (!taskId || !Number.isSafeInteger(task) || task < 1 || !Number.isSafeInteger(lane) || lane < 1)
    return null
  if (!base || !SHA.test(base)) return null
  return { taskId, task, lane, base }
}

/**
 * Commits the lane's working copy as it is now (its own index; the copied files left out) and keeps it in the
 * project's store as `refs/lanes/<task>/stopped`, parent `base`. Call it after the lane's loop has ended.
 */
export async function keepLaneState(opts: {
  lane: Lane
  projectDir: string
  task: number
  taskId: string
  /** The integration state the lane's task started from. */
  base: string
  now?: () => number
}): Promise<KeptState> {
  const now = opts.now ?? Date.now
  const fields = { task: opts.task, taskId: opts.taskId, lane: opts.lane.marker.lane, base: opts.base }
  const message = keptMessage(fields)
  const inLane = await commitLaneResult(opts.lane, message, now)
  await opts.lane.git.run(['update-ref', LANE_SIDE_REF, inLane])
  const ref = keptRef(opts.task)
  const git = projectGit(opts.projectDir)
  const seconds = Math.floor(now() / 1000)
  const commit = await withSnapshotLock(opts.projectDir, 'keep a stopped lane', async () => {
    // Only the objects the project's store lacks move (the lane borrows the rest from it already).
    const fetch = [
      '-c',
      'protocol.file.allow=always',
      'fetch',
      '--quiet',
      '--no-tags',
      '--no-write-fetch-head',
    ]
    await git.run([...fetch, '--', opts.lane.storeDir, `+${LANE_SIDE_REF}:${ref}`])
    // Re-parented on the build's integration state: a lane that itself resumed kept work started elsewhere.
    const kept = (
      await git.text(['commit-tree', `${ref}^{tree}`, '-p', opts.base], {
        input: message,
        env: { GIT_AUTHOR_DATE: `@${seconds} +0000`, GIT_COMMITTER_DATE: `@${seconds} +0000` },
      })
    ).trim()
    if (!SHA.test(kept)) throw new AppError('git', `git commit-tree gave "${kept}", not a commit id.`)
    await git.run(['update-ref', ref, kept])
    return kept
  })
  return { ref, ...fields, commit, keptAt: seconds * 1000 }
}

/** The kept work in the project's store, oldest task first. */
export async function listKept(projectDir: string): Promise<KeptState[]> {
  const { gitDir } = storePaths(projectDir)
  if (!storeLooksComplete(gitDir)) return []
  const out = await projectGit(projectDir).fields([
    'for-each-ref',
    '--format=%(refname)%00%(objectname)%00%(committerdate:unix)%00%(contents)%00',
    `${KEPT_REFS}*/stopped`,
  ])
  const kept: KeptState[] = []
  for (let i = 0; i + 3 < out.length; i += 4) {
    const ref = out[i]!.replace(/^\n/, '')
    const m = /^refs\/lanes\/([1-9][0-9]*)\/stopped$/.exec(ref)
    const fields = parseKeptMessage(out[i + 3]!)
    if (!m || !fields || fields.task !== Number(m[1])) continue
    kept.push({ ref, ...fields, commit: out[i + 1]!, keptAt: Number(out[i + 2]) * 1000 })
  }
  return kept.sort((a, b) => a.task - b.task)
}

/** Removes one kept state's ref (only while it still points at `commit`: a newer keep is never lost). */
export async function discardKept(
  projectDir: string,
  kept: Pick<KeptState, 'ref' | 'commit'>,
): Promise<void> {
  if (!/^refs\/lanes\/[1-9][0-9]*\/stopped$/.test(kept.ref))
    throw new AppError('invalid-input', `${kept.ref} is not a kept lane's ref.`)
  await withSnapshotLock(projectDir, 'discard a stopped lane', () =>
    projectGit(projectDir).run(['update-ref', '-d', kept.ref, kept.commit]),
  )
}

/** What happens to a kept state at the start of a build (pure). */
export type KeptFate = { do: 'resume' } | { do: 'discard'; reason: string }

export function keptFate(kept: KeptState, pendingTaskIds: ReadonlySet<string>): KeptFate {
  if (pendingTaskIds.has(kept.taskId)) return { do: 'resume' }
  return {
    do: 'discard',
    reason: `${kept.taskId} is no longer pending in the queue: the work its stopped lane kept (task ${kept.task}) is discarded.`,
  }
}

/**
 * The fate of every kept state at the start of a build (pure): per queue task the newest is resumed while the task
 * is pending; an older one of the same task, and any whose task is gone, are discarded with the reason.
 */
export function settleKept(
  kept: readonly KeptState[],
  pendingTaskIds: ReadonlySet<string>,
): { resume: KeptState[]; discard: { kept: KeptState; reason: string }[] } {
  const resume = new Map<string, KeptState>()
  const discard: { kept: KeptState; reason: string }[] = []
  // Newest first: a task stopped twice without running in between keeps only its newest work.
  for (const k of [...kept].sort((a, b) => b.task - a.task)) {
    const fate = resume.has(k.taskId)
      ? { do: 'discard' as const, reason: `${k.taskId} has newer kept work: task ${k.task}'s is discarded.` }
      : keptFate(k, pendingTaskIds)
    if (fate.do === 'resume') resume.set(k.taskId, k)
    else discard.push({ kept: k, reason: fate.reason })
  }
  return { resume: [...resume.values()].reverse(), discard }
}

export type ResumeStart =
  /** The lane starts from this commit (the kept work, or the kept work merged onto the new base). */
  | { kind: 'resume'; commit: string; merged: boolean; notes: string[] }
  /** The kept work cannot be carried onto the new base: the task starts afresh. */
  | { kind: 'discard'; reason: string }

/**
 * Where a new lane for a kept task starts: the kept work itself when the integration state is still its base,
 * else the kept work merged onto the integration state (a conflict discards it, saying where).
 */
export async function resumeStart(
  projectDir: string,
  kept: KeptState,
  integration: string,
  now: () => number = Date.now,
): Promise<ResumeStart> {
  if (kept.base === integration) return { kind: 'resume', commit: kept.commit, merged: false, notes: [] }
  const merge = await mergeLaneResult(projectGit(projectDir), {
    ours: integration,
    theirs: kept.commit,
    task: kept.task,
    base: kept.base,
    message: `${kept.taskId}: the work of stopped task ${kept.task} carried onto the new base\n`,
    now,
  })
  if (merge.kind === 'clean')
    return { kind: 'resume', commit: merge.commit!, merged: true, notes: merge.notes ?? [] }
  const paths = merge.conflicts.map((c) => c.path)
  return {
    kind: 'discard',
    reason:
      `the work its stopped lane kept (task ${kept.task}) conflicts with tasks merged since in ` +
      `${paths.slice(0, 5).join(', ')}${paths.length > 5 ? ` and ${paths.length - 5} more` : ''}: it starts afresh on the new base.`,
  }
}

const projectGit = (projectDir: string): ShadowGit => new ShadowGit(storePaths(projectDir).gitDir, projectDir)
