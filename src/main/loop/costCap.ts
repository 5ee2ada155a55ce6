import { formatUsd } from '../../shared/formatLoopEvent'
import { BUDGET_WARN_AT, checkBudget, type BudgetKind } from '../../shared/budget'

/**
 * One task's cost cap (`ralph run --max-cost`, the composer's cap): the queue build's budget rule (build/budget.ts)
 * applied to what the task's model calls have cost so far. It warns once at 75% and says "stop" at 100%; the loop
 * checks it after every model call, so a call that crosses the cap is the task's last.
 */
export class CostCap {
  private readonly warned = new Set<BudgetKind>()

  constructor(readonly capUsd: number) {
    if (!(capUsd > 0) || !Number.isFinite(capUsd))
      throw new Error(`A cost cap must be a positive number of dollars, not ${capUsd}.`)
  }

  /** What the spend so far means: a warning the first time it reaches 75%, a stop once it reaches the cap. */
  check(spentUsd: number): { warn: string | null; stop: string | null } {
    const result = checkBudget({ maxCostUsd: this.capUsd }, { costUsd: spentUsd, elapsedMs: 0 }, this.warned)
    const warned = result.warn.find((l) => l.kind === 'cost')
    if (warned) this.warned.add('cost')
    return {
      warn: warned ? costCapWarning(spentUsd, this.capUsd) : null,
      stop: result.stop ? costCapMessage(spentUsd, this.capUsd) : null,
    }
  }
}

export function costCapWarning(spentUsd: number, capUsd: number): string {
  return `Cost cap: ${formatUsd(spentUsd)} of ${formatUsd(capUsd)} spent (${Math.round(BUDGET_WARN_AT * 100)}% reached); the task stops at the cap.`
}

/** The words a capped task ends with; the card and `ralph run` show them as they are. */
export function costCapMessage(spentUsd: number, capUsd: number): string {
  return `Stopped: cost cap of ${formatUsd(capUsd)} reached (${formatUsd(spentUsd)} spent).`
}

/**
 * Thrown from the usage callback of the call that reached the cap (no tool of its answer runs, no call follows),
 * or before a call the remaining budget cannot pay for (`why` says so).
 */
export class CostCapReached extends Error {
  constructor(
    readonly spentUsd: number,
    readonly capUsd: number,
    why?: string,
  ) {
    super(why ? `${costCapMessage(spentUsd, capUsd)} ${why}` : costCapMessage(spentUsd, capUsd))
    this.name = 'CostCapReached'
  }
}

/** Dollars per million tokens. */
export interface TokenPrice {
  input: number
  output: number
}

/**
 * What the next call may cost (issue 34: checked only after a call, one call took a $0.01 cap to $2.50). Its
 * prompt (`promptTokens`, priced as uncached input: the most it can cost) is paid first; the rest of the budget
 * buys at most `maxOutputTokens` of answer at the model's output price. A prompt that alone would reach the cap,
 * or leave no room for a single token of answer, is refused. An unknown price (a local model) sets no bound: its
 * calls cost nothing the cap can count.
 */
export function nextCallBound(f: {
  capUsd: number
  spentUsd: number
  promptTokens: number
  price: TokenPrice | null
}): { maxOutputTokens: number | null } | { refused: string } {
  if (f.price === null) return { maxOutputTokens: null }
  const remaining = f.capUsd - f.spentUsd
  const promptUsd = (f.promptTokens * f.price.input) / 1_000_000
  if (promptUsd >= remaining) {
    return {
      refused: `The next call's prompt alone (about ${f.promptTokens} tokens, ${formatUsd(promptUsd)}) would pass the cap, so it was not sent.`,
    }
  }
  if (!(f.price.output > 0)) return { maxOutputTokens: null }
  const tokens = Math.floor(((remaining - promptUsd) * 1_000_000) / f.price.output)
  if (tokens < 1) {
    return {
      refused:
        'What is left of the cap would not buy the next call a single token of answer, so it was not sent.',
    }
  }
  return { maxOutputTokens: tokens }
}
