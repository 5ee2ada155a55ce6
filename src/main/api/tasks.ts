import type { taskCalls } from '../../shared/api/tasks'
import type { TaskRunner } from '../loop/taskRunner'
import type { Handlers } from './types'

/** Starting and stopping tasks from the app; progress flows back as `loop.event`. */
export function createTaskHandlers(runner: TaskRunner): Handlers<typeof taskCalls> {
  return {
    // Busy (here or in another process) and configuration errors answer this call, never a later event.
    'tasks.start': async ({ projectId, message, maxIterations }, ctx) => {
      await runner.start(ctx.resolveProject(projectId), message, maxIterations)
      return { started: true as const }
    },
    'tasks.stop': async ({ projectId }) => ({ stopped: await runner.stop(projectId) }),
    'tasks.running': async ({ projectId }, ctx) => ({
      running: await runner.isRunningAnywhere(ctx.resolveProject(projectId)),
    }),
  }
}
