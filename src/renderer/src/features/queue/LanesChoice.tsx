import { MAX_BUILD_LANES } from '../../../../shared/buildLanes'
import { plural } from '../../../../shared/format'
import { useBuildDefaults } from './queries'
import { useQueueUi } from './queueUi'

const HINT =
  'Tasks built at once, each in its own copy of the project; finished tasks merge back one at a time, verified again on the merged result.'

export interface LanesChoiceState {
  /** What the select shows: the user's choice, else the project's "lanes.parallel", else 1. */
  value: number
  max: number
  /** What `queue.build` gets: the user's choice, or nothing (the core reads the project's own). */
  input: { parallel?: number }
  /** Why the project's setting could not be read (its config.json), or null. */
  problem: string | null
}

/** The Lanes the next build runs with: the choice made here (remembered per project while the app runs). */
export function useLanesChoice(projectId: number): LanesChoiceState {
  const defaults = useBuildDefaults(projectId).data
  const chosen = useQueueUi((s) => s.lanes[projectId])
  const max = defaults?.maxParallel ?? MAX_BUILD_LANES
  return {
    value: chosen ?? defaults?.parallel ?? 1,
    max,
    input: chosen === undefined ? {} : { parallel: chosen },
    problem: defaults?.problem ?? null,
  }
}

/** The Build controls' "Lanes" (DESIGN.md §18): 1 builds one task at a time; more build independent tasks at once. */
export function LanesChoice({
  projectId,
  choice,
  running,
}: {
  projectId: number
  choice: LanesChoiceState
  running: boolean
}) {
  const setLanes = useQueueUi((s) => s.setLanes)
  const hint = choice.problem ? `${HINT} ${choice.problem}` : HINT
  return (
    <select
      className="queue-mode queue-lanes"
      aria-label="Lanes"
      title={hint}
      value={choice.value}
      disabled={running}
      aria-invalid={choice.problem ? true : undefined}
      onChange={(e) => setLanes(projectId, Number(e.target.value))}
    >
      {Array.from({ length: choice.max }, (_, i) => i + 1).map((n) => (
        <option key={n} value={n}>
          {n === 1 ? '1 lane (one at a time)' : plural(n, 'lane')}
        </option>
      ))}
    </select>
  )
}
