import { parseCostCap, parseTokenCap, useCostCaps } from './costCap'

/** What is wrong with the composer's caps as typed (the cost cap first), or null: Send waits for a fix. */
export const useCostCapCheck = (projectId: number): { error: string | null } => {
  const cost = parseCostCap(useCostCaps((s) => s.text[projectId] ?? '')).error
  const tokens = parseTokenCap(useCostCaps((s) => s.tokens[projectId] ?? '')).error
  return { error: cost ?? tokens }
}

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
