import type { TaskCardDto } from '../../../../shared/api/chat'
import { checkWords, gateResultHint, gateResultWord } from '../../../../shared/checkWords'
import './taskCard.css'

/** A gate's explanation on hover: what it checks (shared/checkWords), and its own name for the logs. */
export function gateHint(gate: string): string {
  return `${checkWords(gate).hint} (${gate})`
}

/**
 * Gate results as chips: what the gate checks in plain words, passed / warning / failed, and the gate's own
 * message, exactly as it said it; the gate's name and what it checks on hover.
 */
export function GateChips({
  gates,
  label = 'Gate results',
}: {
  gates: TaskCardDto['gates']
  label?: string
}) {
  return (
    <ul className="chip-list task-card-gates" aria-label={label}>
      {gates.map((g, i) => (
        <li key={i} className={`gate gate-${g.severity}`}>
          <span className="gate-word has-hint" title={`${gateHint(g.gate)} ${gateResultHint(g.severity)}`}>
            {checkWords(g.gate).label}: {gateResultWord(g.severity)}
          </span>
          {g.message ? <span className="gate-message"> {g.message}</span> : null}
        </li>
      ))}
    </ul>
  )
}

/** The gates of the last check a task ran (its latest iteration and attempt): where it stands now. */
export function latestGates(gates: TaskCardDto['gates']): TaskCardDto['gates'] {
  const last = gates[gates.length - 1]
  return last ? gates.filter((g) => g.iteration === last.iteration && g.attempt === last.attempt) : []
}
