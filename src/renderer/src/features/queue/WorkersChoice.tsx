import { workerBackends, type WorkerBackend } from '../../../../shared/workersConfig'
import { useBuildDefaults } from './queries'
import { useQueueUi } from './queueUi'

/** Each backend in the choice's words, and what it means (the option's hint). */
export const workerWords: Record<WorkerBackend, { label: string; hint: string }> = {
  local: { label: 'On this machine', hint: 'Each lane runs here, in its own copy of the project.' },
  docker: {
    label: 'On Docker',
    hint: 'Each lane runs as a container on the Docker engine of Settings → Workers; its result comes back and is merged and verified here.',
  },
  kubernetes: {
    label: 'On Kubernetes (experimental)',
    hint: 'Each lane runs as a Kubernetes Job in the cluster of Settings → Workers. Experimental: it has not yet run on a real cluster.',
  },
}

const HINT = 'Where each lane’s task runs (Settings → Workers sets the project’s own). '

export interface WorkersChoiceState {
  /** What the select shows: the user's choice, else the project's "workers.backend", else local. */
  value: WorkerBackend
  /** What `queue.build` gets: the user's choice, or nothing (the core reads the project's own). */
  input: { workers?: WorkerBackend }
}

/** The Workers the next build runs on: the choice made here (remembered per project while the app runs). */
export function useWorkersChoice(projectId: number): WorkersChoiceState {
  const defaults = useBuildDefaults(projectId).data
  const chosen = useQueueUi((s) => s.workers[projectId])
  return {
    value: chosen ?? defaults?.workers ?? 'local',
    input: chosen === undefined ? {} : { workers: chosen },
  }
}

/** The Build controls' "Workers" (DESIGN.md §18), beside Lanes: this machine, a Docker engine or a cluster. */
export function WorkersChoice({
  projectId,
  choice,
  running,
}: {
  projectId: number
  choice: WorkersChoiceState
  running: boolean
}) {
  const setWorkers = useQueueUi((s) => s.setWorkers)
  return (
    <select
      className="queue-mode queue-workers"
      aria-label="Workers"
      title={HINT + workerWords[choice.value].hint}
      value={choice.value}
      disabled={running}
      onChange={(e) => setWorkers(projectId, e.target.value as WorkerBackend)}
    >
      {workerBackends.map((b) => (
        <option key={b} value={b} title={workerWords[b].hint}>
          {workerWords[b].label}
        </option>
      ))}
    </select>
  )
}
