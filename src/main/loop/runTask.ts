// The task lifecycle's orchestration (DESIGN.md §6): the project opened for one task (the task lock, crash
// recovery), then the run — its start, set-up, iterations and end — each step in its own module.
import { watchUserRepo } from '../userGit'
import { checkProjectFolder, initRalphDir } from '../workspace'
import { acquireTaskLock } from '../snapshots'
import { engineBinary } from '../engines'
import { recoverInterruptedTask } from './crashRecovery'
import { iterationRunner } from './engineIteration'
import { runIterations } from './iterationLoop'
import { RalphState } from './ralphState'
import { findInterruptedTask } from './resume'
import { fail, failureOf } from './taskEnd'
import { withMcp } from './taskMcp'
import { TaskRun, type RunTaskInput, type RunTaskResult } from './taskRun'
import { preparePlan, readyTask } from './taskSetup'
import { startTask } from './taskStart'

export type { RunTaskInput, RunTaskResult, RunTaskStatus } from './taskRun'

/**
 * The whole task lifecycle (DESIGN.md §6, seeds 000/002/003): pre-task snapshot, parse, phase-gated fresh-context
 * iterations with tools, quality gates, stall recovery, and the post-task snapshot only when every gate passes.
 */
export async function runTask(input: RunTaskInput): Promise<RunTaskResult> {
  let lock = input.taskLock
  try {
    const projectDir = checkProjectFolder(input.projectDir)
    // A resume with nothing interrupted is refused before anything is written (not even the lock file). A live
    // task elsewhere is left to the lock, which says so.
    if (input.resume && !(await recoverInterruptedTask(projectDir, input.runs, undefined, input.logger))) {
      await findInterruptedTask(new RalphState(projectDir), input.runs, projectDir)
    }
    // One loop per project at a time, across processes (the CLI and the app may both be open). A lane is a
    // project of its own, so each lane has its own lock.
    lock ??= await acquireTaskLock(projectDir, 'ralph run')
    await initRalphDir(projectDir, { openedFrom: 'the command line (ralph run)' })
    // Holding the lock, a task still marked running was left by a process that died.
    await recoverInterruptedTask(projectDir, input.runs, lock, input.logger)
    return await runInProject(new TaskRun({ ...input, projectDir }, lock))
  } finally {
    // Only a lock the caller passed in can outlive the task; one taken here is always released.
    if (!(input.keepTaskLock && input.taskLock)) await lock?.release()
  }
}

/** One task, holding the project's lock: started, set up, iterated; any error thrown ends it with its reason. */
async function runInProject(run: TaskRun): Promise<RunTaskResult> {
  const { input } = run
  await run.engine.init()
  const config = await run.state.config()
  const maxIterations = input.maxIterations ?? config.maxIterations
  const start = await startTask(run, maxIterations)
  // The user's repository before the model acts, compared when the task ends: a repository this task created, or
  // whose config or hooks it changed, is not trusted to run anything until the user confirms (userGit/trust.ts).
  const userRepo = await watchUserRepo(input.runs.db, input.projectDir, run.task, input.logger)
  try {
    const engineId = input.engine ?? config.engine
    // A missing engine fails the task before the parse spends a model call.
    if (engineId !== 'built-in') await engineBinary(engineId, input.env ?? process.env)
    const ended = await readyTask(run, start)
    if (ended) return ended
    const runner = iterationRunner(engineId, config.engineModel, input.model)
    const plan = await preparePlan(run, start)
    const loop = () =>
      runIterations(run, { runner, config, maxIterations, plan, firstIteration: start.firstIteration })
    // An engine has its own MCP configuration; Ralph's tools reach it through the engine session.
    return await (runner.kind === 'built-in' ? withMcp(run, loop) : loop())
  } catch (err) {
    const failure = failureOf(err, input.signal, run.task)
    return fail(run, failure.reason, failure.message, null)
  } finally {
    await userRepo.end()
  }
}
