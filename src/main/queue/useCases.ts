import { stat } from 'node:fs/promises'
import { join } from 'node:path'
import { AppError } from '../../shared/errors'
import type {
  IssueView,
  LogEntry,
  LogInput,
  LogResult,
  MutationResult,
  NextAction,
  Preflight,
  QueueView,
  Stage,
  StartSpecResult,
  TaskAddInput,
  TaskEditInput,
  TaskView,
} from '../../shared/queue'
import { normaliseSpec } from './edits'
import { parseCommitMessage, readHistoryCommits, readHistoryFiles, type HistoryCommit } from './history'
import { planPreflight } from './preflight'
import {
  defaultDoneAt,
  historyExists,
  historyGit,
  loadQueue,
  mutateQueue,
  projectDirOf,
  type MutateOptions,
} from './queueStore'
import { reconstructTasks } from './reconstruct'
import { nextAction, queueView, stageOf } from './view'
import { ifUnreadable } from '../workspace'

/**
 * One function per queue command of the CLI (`ralph query|task|issue|set-spec|log`) and the API. Each takes
 * `{ projectDir, … }` and returns plain JSON; every mutation returns the updated state.
 */
export interface ProjectInput {
  projectDir: string
}

// ---- queries (no lock: the file is only ever replaced by rename, so a read sees one whole version) ----

export async function queryState({ projectDir }: ProjectInput): Promise<QueueView> {
  return queueView(await loadQueue(await projectDirOf(projectDir)))
}

export async function queryTasks(input: ProjectInput): Promise<TaskView[]> {
  return (await queryState(input)).tasks
}

export async function queryIssues(input: ProjectInput): Promise<IssueView[]> {
  return (await queryState(input)).issues
}

export async function queryStage({ projectDir }: ProjectInput): Promise<Stage> {
  return stageOf(await loadQueue(await projectDirOf(projectDir)))
}

export async function queryNext({ projectDir }: ProjectInput): Promise<NextAction> {
  return nextAction(await loadQueue(await projectDirOf(projectDir)))
}

// ---- mutations ----

type Opts = { options: MutateOptions }

export function addTask({
  projectDir,
  options,
  ...input
}: ProjectInput & TaskAddInput & Opts): Promise<MutationResult> {
  return mutateQueue(projectDir, { op: 'task-add', input }, options)
}

export function editTask({
  projectDir,
  options,
  ...input
}: ProjectInput & TaskEditInput & Opts): Promise<MutationResult> {
  return mutateQueue(projectDir, { op: 'task-edit', input }, options)
}

/** Marks the named task (default: the next one in build order) done; done_at defaults to the latest snapshot. */
export function markTaskDone({
  projectDir,
  id,
  doneAt,
  options,
}: ProjectInput & { id?: string; doneAt?: string } & Opts): Promise<MutationResult> {
  return mutateQueue(
    projectDir,
    async (dir) => ({ op: 'task-done', id, doneAt: doneAt ?? (await defaultDoneAt(dir)) }),
    options,
  )
}

/** Accepts the named done tasks (default: every done task), removing them from the file. */
export function acceptTasks({
  projectDir,
  ids,
  options,
}: ProjectInput & { ids?: string[] } & Opts): Promise<MutationResult> {
  return mutateQueue(projectDir, { op: 'task-accept', ids }, options)
}

/** Rejects the named done task (default: the first done one): tombstone, back to pending with the reason. */
export function rejectTask({
  projectDir,
  reason,
  id,
  options,
}: ProjectInput & { reason: string; id?: string } & Opts): Promise<MutationResult> {
  return mutateQueue(projectDir, { op: 'task-reject', id, reason }, options)
}

/** Removes one task without doing it (the panel's "remove"); history shows it as cancelled. */
export function cancelTask({
  projectDir,
  id,
  options,
}: ProjectInput & { id: string } & Opts): Promise<MutationResult> {
  return mutateQueue(projectDir, { op: 'task-cancel', id }, options)
}

export function addIssue({
  projectDir,
  desc,
  spec,
  options,
}: ProjectInput & { desc: string; spec?: string } & Opts): Promise<MutationResult> {
  return mutateQueue(projectDir, { op: 'issue-add', desc, spec }, options)
}

/** Closes the named issue (default: the first one). */
export function closeIssue({
  projectDir,
  id,
  options,
}: ProjectInput & { id?: string } & Opts): Promise<MutationResult> {
  return mutateQueue(projectDir, { op: 'issue-done', id }, options)
}

export async function setSpec({
  projectDir,
  spec,
  options,
}: ProjectInput & { spec: string } & Opts): Promise<MutationResult> {
  const dir = await projectDirOf(projectDir)
  await assertSpecFile(dir, spec)
  return mutateQueue(dir, { op: 'set-spec', spec }, options)
}

// ---- `ralph plan <spec>`-style starts ----

export async function preflightStart({ projectDir }: ProjectInput): Promise<Preflight> {
  return planPreflight(await loadQueue(await projectDirOf(projectDir)))
}

/**
 * Starts work on a spec as `ralph plan <spec>` does before it generates tasks: unfinished tasks make it ask
 * (`needs-choice`, with the pre-flight) unless the caller already chose; cancel drops them and every tombstone,
 * abort changes nothing. The pre-flight is checked again under the lock, so tasks added meanwhile are never
 * dropped unasked.
 */
export async function startSpec({
  projectDir,
  spec,
  onUnfinished,
  options,
}: ProjectInput & { spec: string; onUnfinished?: 'cancel' | 'abort' } & Opts): Promise<StartSpecResult> {
  const dir = await projectDirOf(projectDir)
  await assertSpecFile(dir, spec)
  const preflight = planPreflight(await loadQueue(dir))
  if (preflight.needsChoice && onUnfinished === 'abort')
    return { outcome: 'aborted', preflight, result: null }
  if (preflight.needsChoice && onUnfinished === undefined)
    return { outcome: 'needs-choice', preflight, result: null }
  const allowed = new Set(preflight.unfinished.map((u) => u.id))
  const result = await mutateQueue(
    dir,
    async () => {
      const now = planPreflight(await loadQueue(dir))
      const added = now.unfinished.filter((u) => !allowed.has(u.id))
      if (added.length > 0) {
        throw new AppError(
          'busy',
          `Tasks were added while starting (${added.map((u) => u.id).join(', ')}); run the start again to decide about them.`,
        )
      }
      return { op: 'plan-start', spec }
    },
    options,
  )
  return { outcome: 'started', preflight, result }
}

async function assertSpecFile(projectDir: string, spec: string): Promise<void> {
  const rel = normaliseSpec(spec)
  const st = await stat(join(projectDir, rel)).catch(ifUnreadable(null))
  if (!st?.isFile()) {
    throw new AppError(
      'not-found',
      `The spec file ${rel} does not exist in ${projectDir}. Write the spec first, or check the path (it is relative to the project folder).`,
    )
  }
}

// ---- history ----

/**
 * `ralph log`: the recent changes, newest first (default 50); `all`: every task ever, rebuilt from the history
 * ref. `spec` keeps one spec's changes or tasks; `since` a date or a history commit (changes after it).
 */
export async function queueLog({
  projectDir,
  all,
  spec,
  since,
  limit,
}: ProjectInput & LogInput): Promise<LogResult> {
  const dir = await projectDirOf(projectDir)
  const git = historyGit(dir)
  const commits = historyExists(dir) ? await readHistoryCommits(git) : []
  const from = sinceIndex(commits, since)
  const specFilter = spec === undefined ? null : normaliseSpec(spec)
  if (all) {
    const files = await readHistoryFiles(
      git,
      commits.map((c) => c.commit),
    )
    const tasks = reconstructTasks(
      commits.map((c, i) => ({ ...c, op: parseCommitMessage(c.message).op, content: files[i] ?? null })),
    )
    return {
      kind: 'tasks',
      tasks: tasks
        .filter((t) => (specFilter === null || t.spec === specFilter) && t.touched.some((i) => i >= from))
        .map(({ touched: _touched, ...t }) => t),
    }
  }
  const entries: LogEntry[] = []
  for (let i = commits.length - 1; i >= from && entries.length < (limit ?? 50); i--) {
    const c = commits[i]!
    const m = parseCommitMessage(c.message)
    if (specFilter !== null && m.spec !== specFilter) continue
    entries.push({ commit: c.commit, date: c.date, op: m.op, message: m.summary, ids: m.ids, spec: m.spec })
  }
  return { kind: 'changes', entries }
}

/** The first history index `since` keeps: after a named commit, or at/after a date. */
function sinceIndex(commits: readonly HistoryCommit[], since: string | undefined): number {
  if (since === undefined || since.trim() === '') return 0
  const s = since.trim()
  if (/^[0-9a-f]{4,40}$/i.test(s)) {
    const hits = commits.flatMap((c, i) => (c.commit.startsWith(s.toLowerCase()) ? [i] : []))
    if (hits.length === 1) return hits[0]! + 1
  }
  const t = Date.parse(s)
  if (Number.isNaN(t)) {
    throw new AppError(
      'invalid-input',
      `--since takes a date (2026-01-18 or 2026-01-18T10:00:00Z) or a commit of the queue history (\`ralph log\` lists them); "${s}" is neither.`,
    )
  }
  const i = commits.findIndex((c) => Date.parse(c.date) >= t)
  return i < 0 ? commits.length : i
}
