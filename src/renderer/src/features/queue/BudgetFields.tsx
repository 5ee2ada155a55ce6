import { useId, type ReactNode } from 'react'
import type { BudgetCheck, BudgetText } from './budget'
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
  const unit = (sign: string) => (
    <span className="queue-budget-unit" aria-hidden>
      {sign}
    </span>
  )
  // One budget's input, its unit before or after it; an error is said below the fields (`${id}-<which>-error`).
  const field = (which: keyof BudgetText, label: string, before: ReactNode, after: ReactNode) => (
    <div className="queue-budget-field">
      <label htmlFor={`${id}-${which}`}>{label}</label>
      <span className="queue-budget-input">
        {before}
        <input
          id={`${id}-${which}`}
          inputMode="decimal"
          autoComplete="off"
          placeholder="no limit"
          value={text[which]}
          onChange={(e) => setBudget(projectId, { [which]: e.target.value })}
          aria-invalid={check.errors[which] ? true : undefined}
          aria-describedby={check.errors[which] ? `${id}-${which}-error` : undefined}
        />
        {after}
      </span>
    </div>
  )
  return (
    <fieldset className="queue-budget" aria-describedby={hint ? `${id}-hint` : undefined}>
      <legend className="queue-budget-legend">
        Budget <span className="optional">(optional: empty is no limit; warns at 75%, stops at 100%)</span>
      </legend>
      <div className="queue-budget-fields">
        {field('cost', 'Cost budget (USD)', unit('$'), null)}
        {field('minutes', 'Time budget (minutes)', null, unit('min'))}
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
