import { formatUsd } from '../../../../shared/formatLoopEvent'
import { useRuns } from '../../app/runStore'
import { parseCostCap, useCostCaps } from './costCap'

export const useCostCapCheck = (projectId: number) =>
  parseCostCap(useCostCaps((s) => s.text[projectId] ?? ''))

/** The composer's cost cap for the next task, in dollars; empty means no cap. Remembered per project. */
export function CostCapField({ projectId }: { projectId: number }) {
  const text = useCostCaps((s) => s.text[projectId] ?? '')
  const invalid = parseCostCap(text).error !== null
  return (
    <label
      className="composer-cap"
      title="The task warns at 75% of this and stops when its model calls reach it. Empty: no cap."
    >
      <span>Cost cap $</span>
      <input
        aria-label="Cost cap in dollars"
        inputMode="decimal"
        placeholder="none"
        size={6}
        value={text}
        aria-invalid={invalid || undefined}
        aria-describedby={invalid ? `cost-cap-error-${projectId}` : undefined}
        onChange={(e) => useCostCaps.getState().set(projectId, e.target.value)}
      />
    </label>
  )
}

/**
 * The task's cost cap and the loop's 75% warning, from its live events; the stop is the card's outcome. Selected
 * as one string, so only a new cap or warning re-renders the card.
 */
export function CostCapNote({ projectId, task }: { projectId: number; task: number }) {
  const line = useRuns((s) => {
    const run = s.runs[projectId]
    if (!run || run.task !== task) return null
    let capUsd: number | null = null
    for (let i = run.events.length - 1; i >= 0; i--) {
      const e = run.events[i]!
      if (e.type === 'budget.warning')
        return `75% of the cost cap used: ${formatUsd(e.spentUsd)} of ${formatUsd(e.capUsd)}. The task stops when it reaches the cap.`
      if (capUsd === null && e.type === 'iteration.started' && e.costCapUsd) capUsd = e.costCapUsd
    }
    return capUsd === null ? null : `Cost cap: ${formatUsd(capUsd)}`
  })
  if (!line) return null
  const warning = line.startsWith('75%')
  return (
    <p
      className={warning ? 'task-card-limit' : 'task-card-cap'}
      role={warning ? 'status' : undefined}
      data-testid="cost-cap"
    >
      {line}
    </p>
  )
}
