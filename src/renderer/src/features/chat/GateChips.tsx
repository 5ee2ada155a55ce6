import type { TaskCardDto } from '../../../../shared/api/chat'
import './taskCard.css'

const words: Record<string, string> = { pass: 'pass', warning: 'warn', failure: 'fail' }

/** What each gate checks, on hover: a gate's name is the loop's word, not the reader's. */
const gateHints: Record<string, string> = {
  'has-summary':
    'Checks that Ralph wrote a summary of what it changed and how it checked it, before the task can count as done.',
  'changes-made':
    "Checks that the task changed at least one of the project's files (Ralph's own .ralph/ files do not count).",
  'scope-validation':
    'Checks the changes against what the task asked for: what it had to add or fix, and what had to stay as it was.',
  scope: 'Checks that only the files in the task’s scope changed.',
  'plan-diff':
    'Compares the plan (.ralph/plan.tsx) with what changed. For information: it never blocks a task.',
  length: 'Checks that no file grew or shrank far more than the task needs.',
}

/** A gate's explanation: its own, or for a project command (test, lint, build…) what running it means. */
export function gateHint(gate: string): string {
  return (
    gateHints[gate] ??
    `Runs the project's "${gate}" command after the task's changes; the task is done only when it passes.`
  )
}

const severityHint: Record<string, string> = {
  pass: 'passed',
  warning: 'passed with a warning (it does not block the task)',
  failure: 'failed: Ralph must fix this before the task is done',
}

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
          <span
            className="gate-word has-hint"
            title={`${gateHint(g.gate)} This time it ${severityHint[g.severity] ?? g.severity}.`}
          >
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
