import { useId } from 'react'
import type { BudgetCheck } from './budget'
import { useBudgetText, useQueueUi } from './queueUi'

/**
 * The next build's cost and time budgets (optional; remembered per project). A value that is not a budget says
 * what is wrong beside it, and Build says why it waits (QueuePanel).
 */
export function BudgetFields({
  projectId,
  check,
  running,
}: {
  projectId: number
  check: BudgetCheck
  running: boolean
}) {
  const id = useId()
  const text = useBudgetText(projectId)
  const setBudget = useQueueUi((s) => s.setBudget)
  const hint = running ? 'For the next build: the running one keeps the budget it started with.' : null
  return (
    <fieldset className="queue-budget" aria-describedby={hint ? `${id}-hint` : undefined}>
      <legend className="queue-budget-legend">
        Budget <span className="optional">(optional: empty is no limit; warns at 75%, stops at 100%)</span>
      </legend>
      <div className="queue-budget-fields">
        <div className="queue-budget-field">
          <label htmlFor={`${id}-cost`}>Cost budget (USD)</label>
          <span className="queue-budget-input">
            <span className="queue-budget-unit" aria-hidden>
              $
            </span>
            <input
              id={`${id}-cost`}
              inputMode="decimal"
              autoComplete="off"
              placeholder="no limit"
              value={text.cost}
              onChange={(e) => setBudget(projectId, { cost: e.target.value })}
              aria-invalid={check.errors.cost ? true : undefined}
              aria-describedby={check.errors.cost ? `${id}-cost-error` : undefined}
            />
          </span>
        </div>
        <div className="queue-budget-field">
          <label htmlFor={`${id}-minutes`}>Time budget (minutes)</label>
          <span className="queue-budget-input">
            <input
              id={`${id}-minutes`}
              inputMode="decimal"
              autoComplete="off"
              placeholder="no limit"
              value={text.minutes}
              onChange={(e) => setBudget(projectId, { minutes: e.target.value })}
              aria-invalid={check.errors.minutes ? true : undefined}
              aria-describedby={check.errors.minutes ? `${id}-minutes-error` : undefined}
            />
            <span className="queue-budget-unit" aria-hidden>
              min
            </span>
          </span>
        </div>
      </div>
      {check.errors.cost ? (
        <p id={`${id}-cost-error`} className="field-error" role="alert">
          {check.errors.cost}
        </p>
      ) : null}
      {check.errors.minutes ? (
        <p id={`${id}-minutes-error`} className="field-error" role="alert">
          {check.errors.minutes}
        </p>
      ) : null}
      {hint ? (
        <p id={`${id}-hint`} className="hint">
          {hint}
        </p>
      ) : null}
    </fieldset>
  )
}
