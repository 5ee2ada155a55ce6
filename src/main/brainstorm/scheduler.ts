import {
  brainstormDomains,
  type BrainstormState,
  type DomainTag,
  type InterruptKind,
} from '../../shared/brainstorm'

/** The harness's clock for IDEATE: everything here is decided by counts, never by the model. */
export const PIVOT_EVERY = 10
export const INTERRUPTS: { at: number; kind: InterruptKind; ask: string }[] = [
  {
    at: 20,
    kind: 'reverse',
    ask: 'Reverse brainstorm: ask how the project could fail, or what its worst possible version looks like.',
  },
  {
    at: 40,
    kind: 'analogy',
    ask: 'Analogies: ask how a very different business, product or natural system would solve this problem.',
  },
  {
    at: 60,
    kind: 'constraint',
    ask: 'Constraint injection: ask what changes with ten times fewer resources, or if it had to work on a phone only.',
  },
  {
    at: 80,
    kind: 'black-swan',
    ask: 'Black swans: ask how it could be abused, what regulation could kill it, what if a competitor copied it tomorrow.',
  },
]
export const IMPOSSIBLE_AT = 30
export const ENERGY_EVERY = 5
export const ORGANIZE_MIN_IDEAS = 50
export const DELTAS_AFTER = 30

export type ScheduledEvent =
  | { type: 'pivot'; to: DomainTag; at: number }
  | { type: 'interrupt'; kind: InterruptKind; at: number }
  | { type: 'impossible'; at: number }

/** The least-explored domain: fewest ideas, then fewest pivots to it so far, then seed 004's order. */
export function leastExplored(domains: Record<string, number>, history: readonly string[]): DomainTag {
  const pivots = (tag: string) => history.filter((h) => h === tag).length
  const ranked = brainstormDomains
    .map((d, order) => ({ tag: d.tag, count: domains[d.tag] ?? 0, pivots: pivots(d.tag), order }))
    .sort((a, b) => a.count - b.count || a.pivots - b.pivots || a.order - b.order)
  return ranked[0]!.tag
}

/**
 * What the new idea count triggers: a domain pivot each time it reaches the next multiple of ten, each interrupt
 * once when its threshold is crossed, the "impossible" round once. Mutates the counters in `state`.
 */
export function scheduleAfterIdeas(state: BrainstormState): ScheduledEvent[] {
  const events: ScheduledEvent[] = []
  const count = state.ideaCount
  for (const i of INTERRUPTS) {
    if (count >= i.at && !state.interruptsDone.includes(i.at)) {
      state.interruptsDone.push(i.at)
      events.push({ type: 'interrupt', kind: i.kind, at: count })
    }
  }
  if (count >= IMPOSSIBLE_AT && !state.impossibleDone) {
    state.impossibleDone = true
    events.push({ type: 'impossible', at: count })
  }
  if (count >= state.nextPivotAt) {
    const to = leastExplored(state.domains, state.pivotHistory)
    state.focusDomain = to
    state.pivotHistory.push(to)
    state.nextPivotAt = (Math.floor(count / PIVOT_EVERY) + 1) * PIVOT_EVERY
    events.push({ type: 'pivot', to, at: count })
  }
  return events
}

/** Counts one IDEATE exchange; true when it is time to ask about the user's energy. */
export function energyCheckDue(state: BrainstormState): boolean {
  state.ideateExchanges += 1
  state.sinceEnergyCheck += 1
  if (state.sinceEnergyCheck < ENERGY_EVERY) return false
  state.sinceEnergyCheck = 0
  return true
}

/** ORGANIZE opens only when the user asks or the ledger holds enough ideas (seed 004: stay divergent). */
export function organizeAllowed(state: BrainstormState, userAsked: boolean): boolean {
  return userAsked || state.ideaCount >= ORGANIZE_MIN_IDEAS
}

/** The directive the next facilitation turn receives for scheduled events (one instruction per event). */
export function directiveFor(events: ScheduledEvent[]): string | null {
  const lines = events.map((e) => {
    if (e.type === 'pivot') {
      const name = brainstormDomains.find((d) => d.tag === e.to)!.name
      return `Domain pivot: move the conversation to [${e.to}] ${name}, the least explored domain. Ask one or two open questions about it.`
    }
    if (e.type === 'impossible')
      return 'Impossible round: ask for ideas that would be impossible today, then help the user back-solve one of them.'
    return INTERRUPTS.find((i) => i.kind === e.kind)!.ask
  })
  return lines.length ? lines.join('\n') : null
}
