// Which runner a build's lane runs with (issue #39): this machine (`runInLane`), a container on a Docker engine, or a
// Kubernetes Job. Every runner takes a ready local lane and gives the same result, so the lanes build's merge,
// verification and apply do not know where the task ran. Each attempt's place is told (`build.worker`); a worker
// fault (workerFault.ts) is told too and the lane runs once more — on the same backend or on this machine, as the
// config's `retry` says — and a second fault fails the lane's attempt saying both.
import { AppError } from '../../shared/errors'
import { runInLane, type LaneRunInput, type LaneRunResult } from '../lanes'
import { noteFailure } from '../workspace'
import type { WorkersConfig } from './config'
import { isWorkerFault, secondFaultMessage, type WorkerFault } from './workerFault'
import type { LaneTask } from './workerLane'
import type { BuildEvent } from '../build'

export type LaneRunner = (input: LaneRunInput) => Promise<LaneRunResult>

/** Where a lane's attempt runs (the build's `build.worker` event). */
export type WorkerPlacedEvent = Extract<BuildEvent, { type: 'build.worker' }>

/** The build's side of a lane's attempt: its queue task, and where the placement events go. */
export interface LanePlacement extends LaneTask {
  emit(event: WorkerPlacedEvent): void
}

/** A backend's runner: it calls `placed` with where the attempt runs before it runs it. */
export type PlacedRunner = (input: LaneRunInput, placed: (where: string) => void) => Promise<LaneRunResult>

const local: PlacedRunner = (input, placed) => {
  placed('local')
  return runInLane(input)
}

function backendRunner(workers: WorkersConfig, placement: LanePlacement | undefined): PlacedRunner {
  const task = placement
    ? { taskId: placement.taskId, attempt: placement.attempt, criteria: placement.criteria }
    : undefined
  switch (workers.backend) {
    case 'local':
      return local
    case 'docker':
      // Loaded when used: the Docker client stays out of every other command (`ralph worker` in its image above all).
      return async (input, placed) =>
        (await import('./dockerLane')).runInDockerLane(input, {
          config: workers,
          placed,
          ...(task ? { task } : {}),
          ...(await remoteSecretEnv(input, workers)),
        })
    case 'kubernetes':
      // Loaded when used: @kubernetes/client-node takes over a second to load.
      return async (input, placed) =>
        (await import('./kubernetesLane')).runInKubernetesLane(input, {
          config: workers,
          placed,
          ...(task ? { task } : {}),
          ...(await remoteSecretEnv(input, workers)),
        })
  }
}

/** The vault secrets the user ticked for remote workers (`remoteSecrets`), by name; none other is read. */
async function remoteSecretEnv(
  input: LaneRunInput,
  workers: WorkersConfig,
): Promise<{ secretEnv?: Record<string, string> }> {
  if (workers.remoteSecrets.length === 0) return {}
  const { tickedSecrets } = await import('./remoteSecrets')
  return { secretEnv: tickedSecrets(input.mcpServers ?? null, workers.remoteSecrets) }
}

/** The runner of the configured backend (absent: this machine), telling each placement to `placement.emit`. */
export function laneRunnerFor(workers: WorkersConfig | undefined, placement?: LanePlacement): LaneRunner {
  const first = workers ? backendRunner(workers, placement) : local
  return withRetry(first, workers?.retry === 'local' ? local : first, placement)
}

/**
 * Runs `first`; after a worker fault (and no Stop) runs `retry` once, each placement told with the fault it retries.
 * A second fault fails the attempt saying both; anything else (the task's own failure, a Stop) passes through.
 */
export function withRetry(first: PlacedRunner, retry: PlacedRunner, placement?: LanePlacement): LaneRunner {
  return async (input) => {
    const lane = input.lane.marker.lane
    const placed =
      (retryOf?: WorkerFault) =>
      (where: string): void =>
        placement?.emit({
          type: 'build.worker',
          taskId: placement.taskId,
          task: input.task,
          lane,
          attempt: placement.attempt,
          where,
          ...(retryOf ? { retryOf: { where: retryOf.where, fault: retryOf.message } } : {}),
        })
    let fault: WorkerFault
    try {
      return await first(input, placed())
    } catch (err) {
      if (!isWorkerFault(err) || input.signal?.aborted) throw err
      fault = err
    }
    noteFailure(input.logger, `Lane ${lane}'s worker failed on ${fault.where}; it runs once more`, fault)
    try {
      return await retry(input, placed(fault))
    } catch (err) {
      if (!isWorkerFault(err) || input.signal?.aborted) throw err
      throw new AppError('task-failed', secondFaultMessage(lane, fault, err), {
        faults: [fault.details, err.details],
      })
    }
  }
}
