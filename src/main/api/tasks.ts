import type { Project } from '../../shared/project'
import { listAttachments, readAttachments, validateImage } from '../attachments'
import { AppError } from '../../shared/errors'
import type { taskCalls } from '../../shared/api/tasks'
import type { TaskRunner } from '../loop/taskRunner'
import type { ActivityRepo, LastRun } from '../store/activityRepo'
import { isMissing, noteFailure } from '../workspace/failures'
import type { Handlers } from './types'

export interface TaskHandlerDeps {
  runner: TaskRunner
  activity: ActivityRepo
  /** The recent projects, as the projects list shows them. */
  projects(): Project[]
}

/** Starting and stopping tasks from the app; progress flows back as `loop.event`. */
export function createTaskHandlers({
  runner,
  activity,
  projects,
}: TaskHandlerDeps): Handlers<typeof taskCalls> {
  return {
    // Busy (here or in another process) and configuration errors answer this call, never a later event.
    'tasks.start': async ({ projectId, message, maxIterations, attachments }, ctx) => {
      // Checked by their bytes before anything starts: a bad image answers this call, naming it.
      const images = (attachments ?? []).map((a) => validateImage(a.name, Buffer.from(a.base64, 'base64')))
      await runner.start(ctx.resolveProject(projectId), message, maxIterations, { images })
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
