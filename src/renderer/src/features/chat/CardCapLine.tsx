import type { TaskCardDto } from '../../../../shared/api/chat'
import { formatUsd } from '../../../../shared/formatLoopEvent'
import { useRuns } from '../../app/runStore'
import './capWarning.css'

/**
 * Where a $0 cost is not a missing price: a local server's models, and Claude Code (it reports its own cost, at the
 * session's end).
 */
const NOT_UNPRICED = new Set(['ollama', 'openai-compatible', 'claude-code'])

const tokens = (n: number) => n.toLocaleString('en-US')

/** The caps a running task announced (`iteration.started`) and its latest 75% warning, read from its live events. */
function useLiveCaps(
  projectId: number,
  task: number | null,
): { usd?: number; tokens?: number; warning?: string } {
  const key = useRuns((s) => {
    const run = s.runs[projectId]
    if (!run || task === null || run.task !== task) return ''
    let usd: number | undefined
    let cap: number | undefined
    let warning: string | undefined
    for (const e of run.events) {
      if (e.task !== task) continue
      if (e.type === 'iteration.started') {
        usd = e.costCapUsd ?? usd
        cap = e.tokenCap ?? cap
      } else if (e.type === 'budget.warning') warning = e.message
    }
    // One string, so only a new cap or warning re-renders the card.
    return JSON.stringify({ usd, tokens: cap, warning })
  })
  return key ? (JSON.parse(key) as { usd?: number; tokens?: number; warning?: string }) : {}
}

/**
 * A card's spend against its caps ("Cost cap: $0.0042 of $0.01 spent", "Token cap: 12,345 of 50,000 tokens used"),
 * from its recorded caps or, live, its events; the loop's 75% warning while it runs; and a hosted model the cost
 * cap cannot count because it has no price, with how to give it one.
 */
export function CardCapLine({ card, projectId }: { card: TaskCardDto; projectId: number }) {
  const live = useLiveCaps(projectId, card.task)
  const usdCap = card.caps?.usd ?? live.usd
  const tokenCap = card.caps?.tokens ?? live.tokens
  const running = card.status === 'running' || card.status === 'starting'
  const used = card.cost.inputTokens + card.cost.outputTokens
  const unpriced = (card.cost.models ?? []).filter(
    (m) =>
      m.calls > 0 &&
      m.usd === 0 &&
      m.provider !== 'claude-code' &&
      (usdCap !== undefined || !NOT_UNPRICED.has(m.provider)),
  )
  if (usdCap === undefined && tokenCap === undefined && unpriced.length === 0) return null
  return (
    <>
      {usdCap !== undefined || tokenCap !== undefined ? (
        <p className="task-card-cap-line" data-testid="cost-cap">
          {usdCap !== undefined ? (
            <span className={card.cost.usd >= usdCap ? 'cap-reached' : undefined}>
              Cost cap: {formatUsd(card.cost.usd)} of {formatUsd(usdCap)} spent
            </span>
          ) : null}
          {tokenCap !== undefined ? (
            <span className={used >= tokenCap ? 'cap-reached' : undefined}>
              Token cap: {tokens(used)} of {tokens(tokenCap)} tokens used
            </span>
          ) : null}
        </p>
      ) : null}
      {running && live.warning ? (
        <p className="task-card-limit" role="status">
          {live.warning}
        </p>
      ) : null}
      {unpriced.map((m) => (
        <p key={`${m.provider}/${m.model}`} className="task-card-unpriced" data-testid="task-unpriced">
          No price for {m.model}: its calls are not in this cost
          {usdCap !== undefined ? ' and the cost cap cannot count them' : ''}. Give it one with{' '}
          <code>ralph config set price {m.model} INPUT OUTPUT</code> (USD per 1M tokens)
          {usdCap !== undefined ? ', or from the composer when a cost cap is set' : ''}.
        </p>
      ))}
    </>
  )
}
