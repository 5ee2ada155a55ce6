import { engineLabels } from '../../../../shared/api/engines'
import type { CardEngine } from './engineTask'
import './engineCard.css'

/** What each engine's cost is: the one Claude Code reports, or Codex's tokens at the catalog's price. */
const costSource: Record<CardEngine, string> = {
  'claude-code': 'the cost is the one Claude Code reported for its own model calls',
  codex: 'Codex reports tokens only: the cost is priced from the model catalog',
}

/**
 * "via Claude Code" next to a card's cost: the agent engine that ran the task's iterations, and — when the loop said
 * (`engine.session`) — which login its model calls used and the base URL they went to when it is not the provider's
 * default ("via Codex → https://gateway.example/v1").
 */
export function EngineNote({ engine, login }: { engine: CardEngine; login?: string | null }) {
  const label = engineLabels[engine]
  const target = login?.split(' → ')[1]?.replace(/ \(.*\)$/, '') ?? null
  const calls = login
    ? ` Its model calls used ${login}, through Ralph's proxy: the session never held the key or token.`
    : ''
  return (
    <span
      className="task-card-engine"
      data-testid="task-engine"
      title={`This task's iterations are ${label} sessions, run inside Ralph's sandbox; ${costSource[engine]}.${calls} The task's parse and checks use Ralph's own model.`}
    >
      via {label}
      {target ? ` → ${target}` : ''}
    </span>
  )
}

/** A message whose `backticked` parts are commands (an engine's install hint): shown as code. */
export function CommandText({ text }: { text: string }) {
  const parts = text.split('`')
  return <>{parts.map((part, i) => (i % 2 === 1 ? <code key={i}>{part}</code> : part))}</>
}
