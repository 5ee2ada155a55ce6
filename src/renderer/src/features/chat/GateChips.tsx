import type { TaskCardDto } from '../../../../shared/api/chat'

const words: Record<string, string> = { pass: 'pass', warning: 'warn', failure: 'fail' }

/** Gate results as chips: the gate, pass / warn / fail, and the gate's own message, exactly as it said it. */
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
          <span className="gate-word">
            {g.gate}: {words[g.severity] ?? g.severity}
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
