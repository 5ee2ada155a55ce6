import type { BuildBudgetStatus } from '../../../../shared/api/queue'
import { Banner } from '../../ui'
import { useNow } from '../../ui/useNow'
import { duration, usd, usdLimit } from './budget'

/** A share of a budget as a bar, named for what it measures (a `meter` for assistive technology). */
function Meter({ label, used, limit }: { label: string; used: number; limit: number }) {
  const share = Math.min(1, used / limit)
  const level = share >= 1 ? 'stop' : share >= 0.75 ? 'warn' : 'ok'
  return (
    <span
      role="meter"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={Math.round(share * 100)}
      className={`queue-meter queue-meter-${level}`}
    >
      <span className="queue-meter-fill" style={{ width: `${share * 100}%` }} />
    </span>
  )
}

/**
 * What a panel build has spent against its budgets: the cost so far and the time since it started, each with its
 * limit when there is one, and the build's own budget warnings (75%) and stop (100%) as they arrived.
 */
export function BudgetLine({
  budget,
  startedAt,
  running,
  durationMs,
}: {
  budget: BuildBudgetStatus
  startedAt: number | null
  running: boolean
  /** The finished build's duration; null while it runs. */
  durationMs: number | null
}) {
  const now = useNow(running)
  const elapsedMs = durationMs ?? (startedAt === null ? 0 : now - startedAt)
  const { maxCostUsd, maxMinutes, spentUsd } = budget
  // A warning until its budget stops the build; the stop only while the build winds down (its result says it then).
  const alerts = budget.alerts.filter((a) =>
    a.level === 'warn' ? !budget.alerts.some((b) => b.kind === a.kind && b.level === 'stop') : running,
  )
  return (
    <div className="queue-budget-use" role="group" aria-label="Budget use">
      <div className="queue-budget-row">
        <span className="queue-budget-what">Cost</span>
        <span className="mono">
          {usd(spentUsd)}
          {maxCostUsd !== null ? ` of ${usdLimit(maxCostUsd)}` : null}
        </span>
        {maxCostUsd !== null ? (
          <Meter label="Cost budget used" used={spentUsd} limit={maxCostUsd} />
        ) : (
          <span className="muted">no limit</span>
        )}
      </div>
      <div className="queue-budget-row">
        <span className="queue-budget-what">Time</span>
        <span className="mono">
          {duration(elapsedMs)}
          {maxMinutes !== null ? ` of ${duration(maxMinutes * 60_000)}` : null}
        </span>
        {maxMinutes !== null ? (
          <Meter label="Time budget used" used={elapsedMs / 60_000} limit={maxMinutes} />
        ) : (
          <span className="muted">no limit</span>
        )}
      </div>
      {alerts.map((a) => (
        <Banner key={`${a.kind}-${a.level}`} tone={a.level === 'stop' ? 'error' : 'warn'}>
          <strong>
            {a.level === 'stop'
              ? `Stopped at the ${a.kind} budget.`
              : `${a.kind === 'cost' ? 'Cost' : 'Time'} budget 75% used.`}
          </strong>{' '}
          {a.message}
        </Banner>
      ))}
    </div>
  )
}
