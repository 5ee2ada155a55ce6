import { engineLabels } from '../../../../shared/api/engines'
import type { CardEngine } from './engineTask'
import './engineCard.css'

/** What each engine's cost is: the one Claude Code reports, or Codex's tokens at the catalog's price. */
const costSource: Record<CardEngine, string> = {
  'claude-code': 'the cost is the one Claude Code reported for its own model calls',
  codex: 'Codex reports tokens only: the cost is priced from the model catalog',
}

/** "via Claude Code" next to a card's cost: the agent engine that ran the task's iterations. */
export function EngineNote({ engine }: { engine: CardEngine }) {
  const label = engineLabels[engine]
  return (
    <span
      className="task-card-engine"
      data-testid="task-engine"
      title={`This task's iterations are ${label} sessions, run inside Ralph's sandbox; ${costSource[engine]}. The task's parse and checks use Ralph's own model.`}
    >
      via {label}
    </span>
  )
}

/** A message whose `backticked` parts are commands (an engine's install hint): shown as code. */
export function CommandText({ text }: { text: string }) {
  const parts = text.split('`')
  return <>{parts.map((part, i) => (i % 2 === 1 ? <code key={i}>{part}</code> : part))}</>
}
