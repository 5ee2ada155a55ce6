import type { LoopEvent } from '../../shared/loopEvents'
import type { VerifyEvent } from '../verify'
import type { BuildMode, NotificationEvent } from './decide'
import type { BudgetKind } from '../../shared/budget'
import type { UserEditsEvent } from '../../shared/queueBuild'

export type BuildStatus = 'complete' | 'paused' | 'escalated' | 'stopped' | 'failed' | 'budget'

/**
 * The build's own progress events (`ralph build --json` streams them as NDJSON among the lifecycle's LoopEvents
 * and verification's VerifyEvents). `taskId` is the queue task (t-…); `task` in LoopEvents is the lifecycle's
 * task number, which `build.attempt` links to it.
 */
export type BuildOwnEvent =
  | {
      type: 'build.started'
      mode: BuildMode
      /** Pending task ids in build order. */
      order: string[]
      budget: { maxCostUsd: number | null; maxMinutes: number | null }
    }
  /** plan.jsonl differed from its history and was recorded before building ("ralph: update plan"). */
  | { type: 'build.plan-committed'; commit: string | null }
  | { type: 'build.attempt'; taskId: string; name: string; attempt: number; task: number }
  | { type: 'build.accepted'; taskId: string; commit: string | null }
  | { type: 'build.rejected'; taskId: string; reason: string; failures: number; commit: string | null }
  | { type: 'build.retry'; taskId: string; failures: number; maxFailures: number }
  | { type: 'build.replan'; taskId: string; reason: string }
  /**
   * Lanes (`--parallel` > 1): the queue task's attempt `attempt` got lane `lane` (a fresh working copy of
   * `base`, the integration state) and the reserved task number `task`.
   */
  | { type: 'build.lane'; taskId: string; lane: number; task: number; attempt: number; base: string }
  /**
   * Lanes: the task's work was merged onto the integration state, verified again on the merged tree (unless
   * nothing had merged since its lane began: `verifiedAgain` false) and applied to the user's folder between
   * task-N-pre and task-N-post (`commit`).
   */
  | { type: 'build.merged'; taskId: string; task: number; commit: string; verifiedAgain: boolean }
  /**
   * Workers (issue #39): where the lane's attempt runs, `local`, `docker: <host>` or `k8s: <namespace>/<job>`;
   * `retryOf` is set when this placement retries one that failed (its `where` and the fault, in one sentence).
   */
  | {
      type: 'build.worker'
      taskId: string
      task: number
      lane: number
      attempt: number
      where: string
      retryOf?: { where: string; fault: string }
    }
  /** Lanes: the merge conflicted or the merged tree failed its verification: the task runs again on the new base. */
  | { type: 'build.rerun'; taskId: string; task: number; reason: string }
  /** Lanes: the task's work is being merged onto the integration state (then verified again there, and applied). */
  | { type: 'build.merging'; taskId: string; task: number }
  /** Lanes: the merged task is about to be applied to the user's folder as task N (`commit`: the merged commit). */
  | { type: 'build.applying'; taskId: string; task: number; commit: string }
  /**
   * Lanes: a stopped lane's work kept in the project's store as `ref` (the build ended before its task merged), or
   * at the next build resumed from (its lane starts from it) or discarded (its task is gone, or the kept work
   * conflicts with what merged since); `message` says which and why.
   */
  | {
      type: 'build.kept'
      taskId: string
      task: number
      action: 'kept' | 'resumed' | 'discarded'
      ref: string
      message: string
    }
  /**
   * A task the build did not start: escalated (it waits for a person), or depending on one that is. `reason` goes
   * on from the task's name: "is escalated since …", "depends on t-a, which waits for a person."
   */
  | { type: 'build.skipped'; taskId: string; name: string; reason: string }
  | { type: 'build.rollback'; taskId: string; to: string; safetyTag: string | null }
  | {
      type: 'build.notification'
      event: NotificationEvent
      taskId: string | null
      path: string
      message: string
    }
  | {
      type: 'build.budget'
      level: 'warn' | 'stop'
      kind: BudgetKind
      used: number
      limit: number
      message: string
    }
  | {
      type: 'build.finished'
      status: BuildStatus
      message: string
      accepted: string[]
      costUsd: number
      durationMs: number
    }

/** Lanes: the question before an apply that would overwrite the user's edits, and its answer (laneApply.ts). */
export type BuildEvent = LoopEvent | VerifyEvent | BuildOwnEvent | UserEditsEvent

/** A lanes build's events carry the lane they belong to (DESIGN.md §18): a number, or null for the build's own. */
export type LaneTaggedEvent = BuildEvent & { lane?: number | null }
