import { join } from 'node:path'
import { AppError } from '../../shared/errors'
import type { Logger } from '../workspace'
import { applyChanges, changedOnDisk, parseRawDiff } from './applyChanges'
import type { ShadowGit } from './git'
import type { ModeManifest } from './modes'
import { conflictCheck, lstatOrNull } from './rollbackConflicts'
import { clearRollbackJournal, writeRollbackJournal, type RollbackJournal } from './rollbackJournal'
import { damagedError, neverSnapshottedOf, planChanges, tornFiles, type RollbackPlan } from './rollbackPlan'
import type { StageResult } from './stage'
import { BRANCH_REF, type StorePaths } from './store'
import { skippedInCommit } from './tags'
import { runningTask } from './taskLock'
import type { ChangeCounts, RollbackReport, SaveOptions, SaveResult } from './types'
import { clearUndoJournal } from './undoJournal'

// The machinery that moves the project's files from one snapshot tree to another, safely: the plan (only paths
// that differ), the check that the target's data is intact, the journalled apply, and the recovery of an apply a
// kill -9 interrupted. A rollback (engine.ts) and applying a lane's merged task (applyTask.ts) both move through it.

export type FaultPoint = 'rollback-safety-saved' | 'rollback-applied'

/** The work tree staged for a snapshot: its tree, and its changes since `head` (the branch when it was staged). */
export interface Staged {
  head: string | null
  tree: string
  stage: StageResult
  changes: ChangeCounts
}

/** The parts of a snapshot engine a move needs; every call runs under the project lock the engine holds. */
export interface MoveParts {
  readonly git: ShadowGit
  readonly paths: StorePaths
  readonly log: Logger
  readonly now: () => number
  /** The task lock the engine's owner holds, if any (a recovery waits while someone else's task runs). */
  readonly taskToken: string | undefined
  readonly faultHook?: (point: FaultPoint) => void
  /** A snapshot; `staged` (stageForSave's, the work tree staged moments ago) spares it staging again. */
  save(options: SaveOptions, rollbackTarget: string | null, staged?: Staged): Promise<SaveResult>
  /** Stages the work tree and writes its tree. */
  stageTree(git?: ShadowGit): Promise<{ tree: string; stage: StageResult }>
  /** Stages the work tree, writes its tree and counts its changes since the branch, for a save to use. */
  stageForSave(): Promise<Staged>
  resolveTag(tag: string): Promise<string>
  commitText(commit: string): Promise<string>
  modesOf(commit: string): Promise<ModeManifest>
}

/** What moving from `from` (the current state's tree) to `target` changes, and what it must leave alone. */
export async function planMove(
  parts: MoveParts,
  from: string,
  target: string,
  stage: StageResult,
  label: string,
  git = parts.git,
): Promise<RollbackPlan> {
  const raw = await git
    .fields(['diff-tree', '-r', '-z', '--no-renames', '--raw', from, target])
    .catch((err: unknown) => {
      // A tree of the target is gone: the snapshot cannot be read at all.
      if (err instanceof AppError && /unable to read|bad tree|could not read|missing/i.test(err.message))
        throw damagedError(label, 1)
      throw err
    })
  const changes = parseRawDiff(raw)
  const projectDir = parts.paths.projectDir
  const { written, deleted, leftAlone } = planChanges(changes, conflictCheck(projectDir, parts.log))
  const onDisk = (path: string): boolean => lstatOrNull(join(projectDir, path), parts.log) !== null
  const neverSnapshotted = neverSnapshottedOf(skippedInCommit(await parts.commitText(target)), onDisk)
  return { written, deleted, leftAlone, skipped: stage.skipped, neverSnapshotted, changes }
}

/**
 * Refuses, before a file is touched, to restore a snapshot whose data is incomplete, and says the way out.
 * Only the blobs this move writes are checked (a whole-snapshot walk costs a second at 50,000 files).
 */
export async function assertIntact(git: ShadowGit, label: string, plan: RollbackPlan): Promise<void> {
  const shas = plan.changes.filter((c) => c.status !== 'D').map((c) => c.newSha)
  if (shas.length === 0) return
  const check = await git.text(['cat-file', '--batch-check=%(objectname)'], {
    input: shas.join('\n') + '\n',
  })
  const missing = check.split('\n').filter((l) => l.endsWith(' missing')).length
  if (missing > 0) throw damagedError(label, missing)
}

/**
 * Moves the tree from the plan's starting point to the journal's target, journalled: the journal is written
 * before the first file is touched and removed once the branch points at the target (and `settle`, the apply's
 * post snapshot, is taken: a kill before then is finished by the next open).
 */
export async function applyMove(
  parts: MoveParts,
  plan: RollbackPlan,
  journal: RollbackJournal,
  settle?: () => Promise<void>,
): Promise<void> {
  const { git, paths } = parts
  const target = journal.targetCommit
  const byPath = new Map(plan.changes.map((c) => [c.path, c]))
  const writes = plan.written.map((w) => byPath.get(w.path)!)
  const deletes = plan.deleted.map((p) => byPath.get(p)!)
  // The safety snapshot hashed these files moments ago; one edited since then would be lost for good.
  const edited = changedOnDisk(paths.projectDir, [...writes, ...deletes])
  if (edited.length > 0) {
    const which = `${edited.slice(0, 3).join(', ')}${edited.length > 3 ? ` and ${edited.length - 3} more` : ''}`
    const what = journal.apply
      ? `changed while applying task ${journal.apply.task} was starting, so nothing was written. ` +
        'Stop whatever is editing the project and build again.'
      : 'changed while the rollback was starting, so nothing was rolled back. ' +
        'Stop whatever is editing the project and roll back again.'
    throw new AppError('busy', `${which} ${what}`, { edited })
  }
  const touches = writes.length + deletes.length > 0
  // An apply is journalled even when no file differs: its post snapshot is part of it.
  if (touches || settle) await writeRollbackJournal(paths.gitDir, journal)
  if (touches) {
    const { blocked } = await applyChanges(
      git,
      paths.projectDir,
      writes,
      deletes,
      await parts.modesOf(target),
    )
    if (blocked.length > 0) {
      const set = new Set(blocked)
      plan.written = plan.written.filter((w) => !set.has(w.path))
      for (const path of blocked) plan.leftAlone.push({ path, reason: 'in-the-way' })
    }
    // Record the new content's stat info, so the next save does not re-read what was just written.
    // Deletions first: a file may take the place of a folder it replaces (and the other way round).
    await git.run(['update-index', '-z', '--add', '--remove', '--replace', '--stdin'], {
      input: [...plan.deleted, ...plan.written.map((w) => w.path)].join('\0'),
    })
  }
  parts.faultHook?.('rollback-applied')
  await git.run(['update-ref', BRANCH_REF, target])
  await settle?.()
  // Any finished rollback ends an undo in progress, and an interrupted rollback: it was this one, or it is
  // stale now (the tree is exactly at a snapshot again).
  await clearUndoJournal(paths.gitDir)
  await clearRollbackJournal(paths.gitDir)
}

/**
 * The rest of an interrupted move, or why finishing it on its own is not safe: every file that differs from the
 * safety snapshot must be one the move changes, and all but at most one (the file being written when it died)
 * already at the target. That one is kept in a snapshot of its own first, so finishing loses nothing.
 */
export async function unfinishedPlan(
  parts: MoveParts,
  journal: RollbackJournal,
): Promise<RollbackPlan | string> {
  const { git } = parts
  await parts.resolveTag(journal.safetyTag)
  const { tree, stage } = await parts.stageTree()
  const diff = async (from: string, to: string) =>
    parseRawDiff(await git.fields(['diff-tree', '-r', '-z', '--no-renames', '--raw', from, to]))
  const [done, planned] = await Promise.all([
    diff(journal.safetyCommit, tree),
    diff(journal.safetyCommit, journal.targetCommit),
  ])
  const torn = tornFiles(done, planned)
  if (typeof torn === 'string') return torn
  if (torn.length === 1) {
    // Most likely the file being written when the move died, but it could be an edit made since.
    await parts.save(
      { kind: 'manual', message: `Files as the interrupted ${movedWords(journal)} left them` },
      null,
    )
  }
  const plan = await planMove(parts, tree, journal.targetCommit, stage, journal.target)
  await assertIntact(git, journal.target, plan)
  return plan
}

export type Recovery =
  | { kind: 'finished'; plan: RollbackPlan; start: number }
  | { kind: 'interrupted'; reason: string }

/**
 * Finishes a move that was killed midway (by any host) when that is safe (see unfinishedPlan); otherwise says why
 * it was left for the user. `settle` is the apply's post snapshot (applyTask.ts).
 */
export async function finishInterrupted(
  parts: MoveParts,
  journal: RollbackJournal,
  settle?: () => Promise<void>,
): Promise<Recovery> {
  const interrupted = (reason: string): Recovery => ({ kind: 'interrupted', reason })
  try {
    const task = await runningTask(parts.paths.projectDir)
    if (task && task.raw !== parts.taskToken)
      return interrupted('a task is running, so it was left for later.')
    const start = performance.now()
    const plan = await unfinishedPlan(parts, journal)
    if (typeof plan === 'string') return interrupted(plan)
    await applyMove(parts, plan, journal, settle)
    return { kind: 'finished', plan, start }
  } catch (err) {
    return interrupted(`finishing it failed (${(err as Error).message}).`)
  }
}

/** "rollback to task-2-pre", "apply of task 3": what an interrupted move was, in a snapshot's message. */
const movedWords = (j: RollbackJournal): string =>
  j.apply ? `apply of task ${j.apply.task}` : `rollback to ${j.target}`

export function moveReport(
  plan: RollbackPlan,
  tag: string,
  target: string,
  safetyTag: string | null,
  preview: boolean,
  start: number,
): RollbackReport {
  return {
    preview,
    target: tag,
    targetCommit: target,
    safetyTag,
    written: plan.written,
    deleted: plan.deleted,
    leftAlone: plan.leftAlone,
    skipped: plan.skipped,
    neverSnapshotted: plan.neverSnapshotted,
    durationMs: Math.round(performance.now() - start),
  }
}
