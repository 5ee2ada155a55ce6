import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { snapshotTags } from '../../shared/snapshotTags'
import { AppError } from '../../shared/errors'
import { parseRawDiff, type TreeChange } from './applyChanges'
import { modesTrailer, type ModeManifest } from './modes'
import { treeOfCommit } from './commitObject'
import { applyMove, assertIntact, moveReport, planMove, type MoveParts, type Staged } from './rollbackApply'
import { readRollbackJournal, type RollbackJournal } from './rollbackJournal'
import { interruptedNotice } from './rollbackPlan'
import { BRANCH_REF, readRef } from './store'
import type { RollbackReport } from './types'

// Applying a lane's merged task to the user's folder (issue #38, DESIGN.md §18): between the task's own
// `task-N-pre` and `task-N-post` snapshots of the project's store, through the rollback's journalled move (only
// paths that differ are written, modes kept, a kill -9 is finished by the next open). It is no rollback: no
// safety snapshot naming a target is taken (task-N-pre holds the folder from before it), so the timeline, the
// "rolled back" badges and Undo read it as a serial task.

/** What the build decided about user edits in the apply's way (after an answer of kind 'user-edits'). */
export type UserEditsChoice = 'ask' | 'take-task' | 'keep-theirs'

export interface ApplyTaskOptions {
  /** The task number the build reserved: the snapshots are `task-N-pre` and `task-N-post`. */
  task: number
  /** The merged commit to apply: a commit id or a ref of the project's store (`refs/lanes/3/merged`). */
  commit: string
  /** The integration commit the build last applied (or started from): what the folder is expected to hold. */
  expectedBase: string
  preMessage: string
  postMessage: string
  /**
   * 'ask' (the default): a path the user changed since `expectedBase` that the apply would write or delete stops
   * it before anything is written. 'take-task': the task's version is written (the user's stays in task-N-pre).
   * 'keep-theirs': every other path is applied; those keep the user's version, and task-N-post holds it.
   */
  userEdits?: UserEditsChoice
  /**
   * Paths whose folder version always stays, written by the build itself between applies (`.ralph/plan.jsonl`,
   * which the build's accept writes in the folder): never reported as user edits, and task-N-post holds them.
   */
  keepFolder?: readonly string[]
}

export type ApplyTaskResult =
  | { kind: 'user-edits'; paths: string[] }
  | {
      kind: 'applied'
      /** The snapshot of the folder before the apply (the user's versions of `overwritten` are in it). */
      preTag: string
      postTag: string
      report: RollbackReport
      /** Paths the user had changed that now hold the task's version ('take-task'). */
      overwritten: string[]
      /** Paths the user had changed that keep the user's version, in task-N-post too ('keep-theirs'). */
      kept: string[]
    }

/** Applies `commit` as task N (see ApplyTaskOptions). Call under the project lock (SnapshotEngine.applyCommitAsTask). */
export async function applyCommitAsTask(parts: MoveParts, opts: ApplyTaskOptions): Promise<ApplyTaskResult> {
  const start = performance.now()
  const { git, paths } = parts
  const postTag = snapshotTags.taskPost(opts.task)
  if ((await readRef(paths.gitDir, `refs/tags/${postTag}`)) !== null) {
    throw new AppError('invalid-input', `Task ${opts.task} is in the timeline already (${postTag} exists).`)
  }
  const waiting = await readRollbackJournal(paths.gitDir)
  if (waiting) throw new AppError('busy', interruptedNotice(waiting, 'it was not finished.').message)
  const [merged, base] = await Promise.all([commitOf(parts, opts.commit), commitOf(parts, opts.expectedBase)])
  const choice = opts.userEdits ?? 'ask'
  const own = new Set(opts.keepFolder ?? [])
  // A look before any snapshot is taken: a stop at the user's edits leaves no task-N-pre behind. The snapshot then
  // holds what was looked at (a file edited since is refused by the move, which checks every file it writes).
  const staged = await parts.stageForSave()
  const { inTheWay, byApply } = await userEditsInTheWay(parts, base, staged.tree, merged, own)
  if (choice === 'ask' && inTheWay.length > 0) return { kind: 'user-edits', paths: inTheWay }
  const pre = await preSnapshot(parts, opts, staged)
  const kept = choice === 'keep-theirs' ? inTheWay : []
  const ownDiffering = byApply.filter((c) => own.has(c.path))
  const targetTree = await treeWithUsersVersions(parts, merged, byApply, [
    ...kept,
    ...ownDiffering.map((c) => c.path),
  ])
  const target = await targetCommit(parts, opts.task, targetTree, pre.commit, merged)
  const plan = await planMove(parts, pre.tree, target, staged.stage, postTag)
  await assertIntact(git, postTag, plan)
  const apply = { task: opts.task, postMessage: opts.postMessage }
  const journal: RollbackJournal = {
    ...{ target: postTag, targetCommit: target, safetyTag: pre.tag, safetyCommit: pre.commit },
    ...{ startedAt: parts.now(), undo: false, apply },
  }
  await applyMove(parts, plan, journal, () => settleApply(parts, journal))
  return {
    kind: 'applied',
    preTag: pre.tag,
    postTag,
    report: moveReport(plan, postTag, target, pre.tag, false, start),
    overwritten: choice === 'take-task' ? inTheWay : [],
    kept,
  }
}

/**
 * The end of an apply, also when the next open finishes one a kill interrupted: the folder is at the target, and
 * task-N-post records it (once: a kill after the snapshot but before the journal was cleared finds it there).
 */
export async function settleApply(parts: MoveParts, journal: RollbackJournal): Promise<void> {
  const apply = journal.apply!
  const postTag = snapshotTags.taskPost(apply.task)
  if ((await readRef(parts.paths.gitDir, `refs/tags/${postTag}`)) !== null) return
  // Counted from task-N-pre, as a serial task's post is: the timeline shows what the task changed.
  await parts.git.run(['update-ref', BRANCH_REF, journal.safetyCommit])
  await parts.save({ kind: 'task-post', task: apply.task, message: apply.postMessage }, null)
}

/** What a recovery that finished an interrupted apply says (among the repairs of opening the store). */
export const finishedApplyMessage = (journal: RollbackJournal): string =>
  `Applying task ${journal.apply?.task}'s merged work was interrupted and has been finished: the project is at ` +
  `${journal.target} (${journal.safetyTag} holds the files from before it).`

/**
 * The paths the user changed since `base` (the folder's tree differs there) that the apply would write or
 * delete (the folder's tree differs from the merged one there), but for the build's own: sorted; and every
 * change from the folder to the merged tree.
 */
async function userEditsInTheWay(
  parts: MoveParts,
  base: string,
  folder: string,
  merged: string,
  own: ReadonlySet<string>,
): Promise<{ inTheWay: string[]; byApply: TreeChange[] }> {
  const [byUser, byApply] = await Promise.all([rawDiff(parts, base, folder), rawDiff(parts, folder, merged)])
  const changed = new Set(byUser.map((c) => c.path))
  const inTheWay = byApply
    .filter((c) => changed.has(c.path) && !own.has(c.path))
    .map((c) => c.path)
    .sort()
  return { inTheWay, byApply }
}

async function rawDiff(parts: MoveParts, from: string, to: string): Promise<TreeChange[]> {
  return parseRawDiff(await parts.git.fields(['diff-tree', '-r', '-z', '--no-renames', '--raw', from, to]))
}

async function commitOf(parts: MoveParts, rev: string): Promise<string> {
  if (rev.startsWith('-') || /\s|\.\./.test(rev)) {
    throw new AppError('invalid-input', `"${rev}" is not a commit id or ref of the snapshot store.`)
  }
  // A commit named in full and stored loose (what the build passes) is read in-process.
  if (SHA.test(rev) && treeOfCommit(await parts.commitText(rev)) !== null) return rev
  const res = await parts.git.run(['rev-parse', '--verify', '-q', `${rev}^{commit}`], {
    okCodes: [0, 1, 128],
  })
  const sha = res.stdout.toString('utf8').trim()
  if (res.code !== 0 || !/^[0-9a-f]{40}$/.test(sha)) {
    throw new AppError('not-found', `The snapshot store has no commit "${rev}", so nothing was applied.`)
  }
  return sha
}

async function treeOf(parts: MoveParts, commit: string): Promise<string> {
  return (
    treeOfCommit(await parts.commitText(commit)) ??
    (await parts.git.text(['rev-parse', `${commit}^{tree}`])).trim()
  )
}

const SHA = /^[0-9a-f]{40}$/

/**
 * task-N-pre of the folder as it is. One a killed apply (or a stop at user edits after its snapshot) left is
 * used again when the folder is still exactly what it holds: tags are never moved, and a second one would read
 * as a task started twice.
 */
async function preSnapshot(
  parts: MoveParts,
  opts: ApplyTaskOptions,
  staged: Staged,
): Promise<{ tag: string; commit: string; tree: string }> {
  const tag = snapshotTags.taskPre(opts.task)
  const folder = staged.tree
  const existing = await readRef(parts.paths.gitDir, `refs/tags/${tag}`)
  if (existing !== null && (await treeOf(parts, existing)) === folder) {
    await parts.git.run(['update-ref', BRANCH_REF, existing])
    return { tag, commit: existing, tree: folder }
  }
  const saved = await parts.save(
    { kind: 'task-pre', task: opts.task, message: opts.preMessage },
    null,
    staged,
  )
  return { tag: saved.tag, commit: saved.commit, tree: await treeOf(parts, saved.commit) }
}

/** The merged tree, with the folder's own entries (or their absence) at `kept` (`byApply`: folder → merged). */
async function treeWithUsersVersions(
  parts: MoveParts,
  merged: string,
  byApply: readonly TreeChange[],
  kept: readonly string[],
): Promise<string> {
  if (kept.length === 0) return treeOf(parts, merged)
  const ours = new Map(byApply.map((c) => [c.path, c]))
  // A scratch index in the store: the project's own index keeps describing the folder.
  const index = join(parts.paths.gitDir, 'ralph-apply-index')
  const env = { GIT_INDEX_FILE: index }
  try {
    await parts.git.run(['read-tree', merged], { env })
    const lines = kept.map((path) => {
      const c = ours.get(path)!
      return c.oldMode === '000000' ? `0 ${'0'.repeat(40)}\t${path}` : `${c.oldMode} ${c.oldSha}\t${path}`
    })
    await parts.git.run(['update-index', '-z', '--index-info'], { env, input: lines.join('\0') + '\0' })
    return (await parts.git.text(['write-tree'], { env })).trim()
  } finally {
    await rm(index, { force: true })
  }
}

/**
 * The commit the journal points at: the target tree, with the modes the apply writes files with (the merged
 * commit's recorded modes, else the folder's: a key file the task rewrites stays 0600).
 */
async function targetCommit(
  parts: MoveParts,
  task: number,
  tree: string,
  pre: string,
  merged: string,
): Promise<string> {
  const [preModes, mergedModes] = await Promise.all([parts.modesOf(pre), parts.modesOf(merged)])
  const modes: ModeManifest = { ...preModes, ...mergedModes }
  const trailer = modesTrailer(modes)
  const seconds = Math.floor(parts.now() / 1000)
  const message = `Applying task ${task}'s merged work\n${trailer ? `\n${trailer}\n` : ''}`
  return (
    await parts.git.text(['commit-tree', tree, '-p', pre], {
      input: message,
      env: { GIT_AUTHOR_DATE: `@${seconds} +0000`, GIT_COMMITTER_DATE: `@${seconds} +0000` },
    })
  ).trim()
}
