// The work of lanes a stopped build kept (lanes/laneKeep.ts), as the lanes build uses it: loaded when the build
// starts (kept for a task still pending, else discarded), resumed by the task's next lane, kept again when a build
// stops, and discarded once the job that resumed it is settled. Every step is said as a `build.kept` event.
import type { TaskView } from '../../shared/queue'
import {
  discardKept,
  keepLaneState,
  keptFate,
  listKept,
  moveLaneTo,
  resumeStart,
  type KeptState,
} from '../lanes'
import { queryState } from '../queue'
import { noteFailure, type Logger } from '../workspace'
import type { BuildEvent } from './events'
import type { LaneJob } from './laneJob'

/** What a lane's model is told when its lane starts from the work a stopped lane kept. */
export const RESUMED_FEEDBACK =
  '\n# Resumed\n\nAn earlier build was stopped while this task ran: the project holds its work so far. Go on from it.\n'

export interface KeptWorkContext {
  projectDir: string
  logger: Logger
  now: () => number
  emit(event: BuildEvent): void
}

export class KeptWork {
  /** Stopped lanes' kept work by queue task, for the task's next lane to resume. */
  private readonly kept = new Map<string, KeptState>()

  constructor(private readonly c: KeptWorkContext) {}

  /** Kept work of earlier stopped lanes: those of tasks still pending wait for their task's lane, the rest go. */
  async load(): Promise<void> {
    const kept = await listKept(this.c.projectDir)
    if (kept.length === 0) return
    const view = await queryState({ projectDir: this.c.projectDir })
    const pending = new Set(view.tasks.filter((t) => t.status === 'pending').map((t) => t.id))
    // Newest first: a task stopped twice without running in between keeps only its newest work.
    for (const k of [...kept].reverse()) {
      const fate = this.kept.has(k.taskId)
        ? {
            do: 'discard' as const,
            reason: `${k.taskId} has newer kept work: task ${k.task}'s is discarded.`,
          }
        : keptFate(k, pending)
      if (fate.do === 'resume') this.kept.set(k.taskId, k)
      else await this.drop(k, fate.reason)
    }
  }

  /** Where the task's new lane starts when an earlier stopped lane's work is kept for it (null: afresh). */
  async resume(task: TaskView, integration: string): Promise<{ kept: KeptState; commit: string } | null> {
    const kept = this.kept.get(task.id)
    if (!kept) return null
    this.kept.delete(task.id)
    const start = await resumeStart(this.c.projectDir, kept, integration, this.c.now)
    if (start.kind === 'discard') {
      await this.drop(kept, `${task.id}: ${start.reason}`)
      return null
    }
    this.c.emit({
      type: 'build.kept',
      taskId: task.id,
      task: kept.task,
      action: 'resumed',
      ref: kept.ref,
      message: start.merged
        ? `${task.id} resumes the work its stopped lane kept (task ${kept.task}), merged onto the tasks merged since.`
        : `${task.id} resumes the work its stopped lane kept (task ${kept.task}).`,
    })
    return { kept, commit: start.commit }
  }

  /** The lane's work as it is, kept for the next build (a failure to keep it is said, and the lane stays). */
  async keep(job: LaneJob): Promise<void> {
    try {
      // A lane whose loop ended may have been moved to a merged tree for its verification there: what is kept is
      // the task's own work, never the other tasks' merged with it.
      const post = job.run?.postCommit
      if (post) await moveLaneTo(job.handle!, post)
      const kept = await keepLaneState({
        lane: job.handle!,
        projectDir: this.c.projectDir,
        task: job.number,
        taskId: job.task.id,
        base: job.base,
        now: this.c.now,
      })
      this.c.emit({
        type: 'build.kept',
        taskId: job.task.id,
        task: job.number,
        action: 'kept',
        ref: kept.ref,
        message: `${job.task.id}: the work of lane ${job.lane} (task ${job.number}) is kept as ${kept.ref}; the next build resumes it (ralph lanes clean discards it).`,
      })
      await this.discardResumed(job)
    } catch (err) {
      noteFailure(this.c.logger, `The work of lane ${job.lane} (${job.task.id}) could not be kept`, err)
    }
  }

  /** The kept work a job resumed is no longer needed once the job merged, failed, or kept its own. */
  async discardResumed(job: LaneJob): Promise<void> {
    if (!job.resumes) return
    const kept = job.resumes
    job.resumes = null
    try {
      await discardKept(this.c.projectDir, kept)
    } catch (err) {
      noteFailure(this.c.logger, `${kept.ref} (${job.task.id}) could not be discarded`, err)
    }
  }

  private async drop(kept: KeptState, reason: string): Promise<void> {
    await discardKept(this.c.projectDir, kept)
    this.c.emit({
      type: 'build.kept',
      taskId: kept.taskId,
      task: kept.task,
      action: 'discarded',
      ref: kept.ref,
      message: reason,
    })
  }
}
