// Which runner a build's lane runs with (issue #39): this machine (`runInLane`), a container on a Docker engine, or
// — once it is built — a Kubernetes Job. Every runner takes a ready local lane and gives the same result, so the
// lanes build's merge, verification and apply do not know where the task ran.
import { AppError } from '../../shared/errors'
import { runInLane, type LaneRunInput, type LaneRunResult } from '../lanes'
import type { WorkersConfig } from './config'

export type LaneRunner = (input: LaneRunInput) => Promise<LaneRunResult>

/** The runner of the configured backend (absent: this machine). */
export function laneRunnerFor(workers: WorkersConfig | undefined): LaneRunner {
  if (!workers) return runInLane
  switch (workers.backend) {
    case 'local':
      return runInLane
    case 'docker':
      // Loaded when used: the Docker client stays out of every other command (`ralph worker` in its image above all).
      return async (input) => (await import('./dockerLane')).runInDockerLane(input, { config: workers })
    case 'kubernetes':
      throw new AppError(
        'config',
        'The kubernetes workers backend is not in this build of Ralph yet: use --workers local or --workers docker.',
      )
  }
}
