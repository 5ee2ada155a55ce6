// A lanes build applies each merged task to the user's folder (issue #38, DESIGN.md §18): between the task's own
// task-N-pre and task-N-post, through the snapshot engine's journalled apply. The user's edits in its way are never
// overwritten silently: edits to files the task does not change stay; an edit to a file it changes asks the user
// (BuildInput.answerUserEdits) to keep theirs, take the task's, or stop. The decisions are laneSteps.ts's.
import { AppError } from '../../shared/errors'
import type { TaskView } from '../../shared/queue'
import type { UserEditsAnswer, UserEditsQuestion } from '../../shared/queueBuild'
import { postTag, snapshotEvent } from '../loop'
import {
  ShadowGit,
  storePaths,
  withSnapshotLock,
  type ApplyTaskResult,
  type SnapshotEngine,
} from '../snapshots'
import { noteFailure, type Logger } from '../workspace'
import type { BuildInput } from './buildInput'
import type { BuildEvent } from './events'
import { planUserEdits, userEditsQuestion, userEditsStep, type UserEditsAnswered } from './laneSteps'
import { taskMessage } from './taskPrompt'

export interface MergedApply {
  /** The build's engine (it holds the build's task lock). */
  engine: SnapshotEngine
  projectDir: string
  task: TaskView
  /** The task number it is applied as. */
  number: number
  lane: number
  /** The merged commit of the project's store. */
  commit: string
  /** The integration commit the folder is expected to hold (the last apply's task-N-post, or the start). */
  base: string
  /** The folder's own files the apply keeps (laneSteps' keptInFolder). */
  keepFolder: readonly string[]
  signal: AbortSignal
  logger: Logger
  emit(event: BuildEvent): void
  answerUserEdits?: BuildInput['answerUserEdits']
}

export type MergedApplyResult =
  /** Applied: `post` is task-N-post's commit, the next apply's base. */
  | { kind: 'applied'; post: string }
  /** The user chose stop (or nobody could answer): nothing was written. */
  | { kind: 'paused'; message: string }
  /** The build was stopped while it asked: nothing was written. */
  | { kind: 'stopped' }

/** Applies the merged task to the user's folder as task N, asking first when the user's edits are in its way. */
export async function applyMergedTask(a: MergedApply): Promise<MergedApplyResult> {
  const { projectDir, number } = a
  const git = new ShadowGit(storePaths(projectDir).gitDir, projectDir)
  // The merged work stays reachable whatever happens next (a pause at the user's edits, a kill mid-apply).
  await withSnapshotLock(projectDir, 'lane merged ref', () =>
    git.run(['update-ref', `refs/lanes/${number}/merged`, a.commit]),
  )
  a.emit({ type: 'build.applying', taskId: a.task.id, task: number, commit: a.commit })
  const line = taskMessage(a.task).split('\n')[0]!.slice(0, 72)
  const applyAs = (userEdits: 'ask' | 'keep-theirs' | 'take-task', keep: readonly string[], note = '') =>
    a.engine.applyCommitAsTask({
      task: number,
      commit: a.commit,
      expectedBase: a.base,
      preMessage: `pre-task ${number}: ${line}`,
      postMessage: `task ${number}: ${line} (merged from lane ${a.lane}${note})`,
      keepFolder: [...new Set([...a.keepFolder, ...keep])],
      userEdits,
    })
  // What the task changes, read once the user's edits are in its way.
  let changes: Set<string> | null = null
  let answered: UserEditsAnswered | null = null
  let applied: ApplyTaskResult
  for (;;) {
    // A look first, writing nothing while the user's edits are in the way (also after an answer: they may have
    // changed more files while the question was open).
    applied = await applyAs('ask', [])
    if (applied.kind === 'applied') break
    changes ??= await changedPaths(git, a.base, a.commit)
    const step = userEditsStep(applied.paths, changes, answered)
    if (step.do === 'apply') {
      // The post snapshot says whose version the files the user was asked about hold (none left: nothing to say).
      const note =
        answered && step.clash.length > 0
          ? planUserEdits(answered.answer, a.task.id, number, step.clash).postNote
          : ''
      applied = await applyAs(step.userEdits, step.keep, note)
      break
    }
    const answer = await ask(a, step.paths)
    if (answer === 'aborted') return { kind: 'stopped' }
    const plan = planUserEdits(answer, a.task.id, number, step.paths)
    a.emit({
      type: 'build.user-edits-answered',
      ...{ taskId: a.task.id, task: number, lane: a.lane, paths: step.paths },
      ...{ answer, snapshot: plan.snapshot, message: plan.message },
    })
    if (answer === 'stop') return { kind: 'paused', message: plan.message }
    answered = { answer, paths: step.paths }
  }
  if (applied.kind !== 'applied') throw new AppError('internal', `The apply of task ${number} did not apply.`)
  // Each tag looked up by itself: applying costs the same however long the timeline is.
  const [pre, post] = await Promise.all([a.engine.get(applied.preTag), a.engine.get(applied.postTag)])
  if (pre) a.emit(snapshotEvent(number, pre))
  if (!post) throw new AppError('git', `${postTag(number)} is missing after the apply of ${a.task.id}.`)
  a.emit(snapshotEvent(number, post))
  return { kind: 'applied', post: post.commit }
}

/**
 * Asks the user (`build.user-edits` on the stream first). No way to ask, or an asker that fails: stop, the answer
 * that overwrites nothing. The build stopped meanwhile: 'aborted'.
 */
async function ask(a: MergedApply, paths: string[]): Promise<UserEditsAnswer | 'aborted'> {
  const question: UserEditsQuestion = {
    type: 'build.user-edits',
    ...{ taskId: a.task.id, name: a.task.name, task: a.number, lane: a.lane, paths },
    question: userEditsQuestion(a.task, a.number, a.lane, paths),
  }
  a.emit(question)
  const { signal } = a
  if (signal.aborted) return 'aborted'
  if (!a.answerUserEdits) return 'stop'
  let onAbort = () => {}
  const aborted = new Promise<'aborted'>((resolve) => {
    onAbort = () => resolve('aborted')
    signal.addEventListener('abort', onAbort, { once: true })
  })
  try {
    return await Promise.race([
      a.answerUserEdits(question, signal).catch((err: unknown) => {
        noteFailure(a.logger, `the question about your edits to ${paths.join(', ')} got no answer`, err)
        return 'stop' as const
      }),
      aborted,
    ])
  } finally {
    signal.removeEventListener('abort', onAbort)
  }
}

/** The paths that differ between two commits of the project's store (what a merged task changes). */
async function changedPaths(git: ShadowGit, from: string, to: string): Promise<Set<string>> {
  const out = await git.fields(['diff-tree', '-r', '-z', '--no-renames', '--name-only', from, to])
  return new Set(out.filter((p) => p !== ''))
}
