import { AppError } from '../../shared/errors'
import type { Project } from '../../shared/project'
import { listAttachments, readAttachments, checkImage } from '../attachments'
import type { taskCalls } from '../../shared/api/tasks'
import { pendingQuestion } from '../loop'
import type { TaskRunner } from '../loop/taskRunner'
import type { RunsRepo } from '../store'
import type { ActivityRepo, LastRun } from '../store/activityRepo'
import { isMissing, noteFailure } from '../workspace/failures'
import type { Handlers } from './types'

export interface TaskHandlerDeps {
  runner: TaskRunner
  activity: ActivityRepo
  /** The runs, to find a task waiting for an answer. */
  runs: RunsRepo
  /** The recent projects, as the projects list shows them. */
  projects(): Project[]
}

/** Starting and stopping tasks from the app; progress flows back as `loop.event`. */
export function createTaskHandlers({
  runner,
  activity,
  runs,
  projects,
}: TaskHandlerDeps): Handlers<typeof taskCalls> {
  return {
    // Busy (here or in another process) and configuration errors answer this call, never a later event.
    'tasks.start': async ({ projectId, message, maxIterations, attachments, answering }, ctx) => {
      const project = ctx.resolveProject(projectId)
      // Checked by their bytes before anything starts: a bad image answers this call, naming it.
      const images = await Promise.all(
        (attachments ?? []).map((a) => checkImage(a.name, Buffer.from(a.base64, 'base64'))),
      )
      await checkAnswering(project.path, runs, answering)
      await runner.start(project, message, maxIterations, { images })
      return { started: true as const }
    },
    'tasks.modelSeesImages': async () => runner.modelSeesImages(),
    'tasks.attachments': async ({ projectId, task }, ctx) =>
      listAttachments(ctx.resolveProject(projectId).path, task, ctx.logger),
    'tasks.attachmentData': async ({ projectId, task, name }, ctx) => {
      const images = await readAttachments(ctx.resolveProject(projectId).path, task, ctx.logger)
      const image = images.find((i) => i.name === name)
      if (!image) throw new AppError('not-found', `Task ${task} has no image named ${name} (any more).`)
      return { name, mediaType: image.mediaType, base64: Buffer.from(image.data).toString('base64') }
    },
    'tasks.stop': async ({ projectId }) => ({ stopped: await runner.stop(projectId) }),
    'tasks.running': async ({ projectId }, ctx) => ({
      running: await runner.isRunningAnywhere(ctx.resolveProject(projectId)),
    }),
    'tasks.activity': async (_input, ctx) =>
      Promise.all(
        projects().map(async (project) => {
          // A folder that is gone or unreadable has no task running; the list still shows its last one.
          const running = await runner.isRunningAnywhere(project).catch((err: unknown) => {
            if (!isMissing(err))
              noteFailure(ctx.logger, `whether a task runs in ${project.path} is unknown`, err)
            return false
          })
          const last = activity.lastRun(project.path)
          return {
            projectId: project.id,
            status: running ? ('running' as const) : restingStatus(last),
            lastTask: last
              ? {
                  task: last.task,
                  title: last.title,
                  at: last.endedAt ?? last.startedAt,
                  status: last.status,
                }
              : null,
          }
        }),
      ),
  }
}

/** A project's state when nothing runs: what its newest run ended as. */
function restingStatus(last: LastRun | null): 'waiting' | 'failed' | 'interrupted' | 'idle' {
  if (last?.status === 'waiting') return 'waiting'
  if (last?.status === 'failed') return 'failed'
  // A run row still "running" here was recovered as interrupted by isRunningAnywhere, or dies with its host.
  if (last?.status === 'interrupted' || last?.status === 'running') return 'interrupted'
  return 'idle'
}

/**
 * A task waiting for an answer is continued only on purpose (#26): refused when one waits and the call does not say
 * it answers it, and when it says it answers a task that no longer waits. The runner continues the waiting task
 * with the message as its answer (runTask's continueWaiting) only after this.
 */
async function checkAnswering(
  projectDir: string,
  runs: RunsRepo,
  answering: number | undefined,
): Promise<void> {
  const pending = await pendingQuestion(projectDir, runs)
  if (pending && answering !== pending.task) {
    throw new AppError(
      'busy',
      `Task ${pending.task} waits for an answer to its question${pending.title ? ` about “${pending.title}”` : ''}. ` +
        `To answer it, call tasks.start with answering: ${pending.task}; or dismiss the question (chat.dismissQuestion) ` +
        `and start a new task. Nothing was started.`,
    )
  }
  if (!pending && answering !== undefined) {
    throw new AppError(
      'not-found',
      `Task ${answering} does not wait for an answer (it ended, or was dismissed or rolled back). Nothing was started.`,
    )
  }
}
