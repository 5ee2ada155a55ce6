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

/** "12,345": token counts as the cap's words say them. */
const tokens = (n: number) => Math.round(n).toLocaleString('en-US')

/**
 * One task's token cap (the composer's, when its model has no price the cost cap could count): the same rule as
 * the cost cap, over the tokens its model calls used (every prompt token, cache reads included, plus the answers).
 */
export class TokenCap {
  private warned = false

  constructor(readonly capTokens: number) {
    if (!Number.isInteger(capTokens) || capTokens < 1)
      throw new Error(`A token cap must be a whole number of tokens above 0, not ${capTokens}.`)
  }

  check(usedTokens: number): { warn: string | null; stop: string | null } {
    const result = checkBudget(
      { maxCostUsd: this.capTokens },
      { costUsd: usedTokens, elapsedMs: 0 },
      new Set(),
    )
    const warn = !this.warned && result.warn.length > 0
    if (warn) this.warned = true
    return {
      warn: warn ? tokenCapWarning(usedTokens, this.capTokens) : null,
      stop: result.stop ? tokenCapMessage(usedTokens, this.capTokens) : null,
    }
  }
}

export function tokenCapWarning(usedTokens: number, capTokens: number): string {
  return `Token cap: ${tokens(usedTokens)} of ${tokens(capTokens)} tokens used (${Math.round(BUDGET_WARN_AT * 100)}% reached); the task stops at the cap.`
}

/** The words a task stopped by its token cap ends with. */
export function tokenCapMessage(usedTokens: number, capTokens: number): string {
  return `Stopped: token cap of ${tokens(capTokens)} tokens reached (${tokens(usedTokens)} used).`
}

/** Thrown like CostCapReached when the task's tokens reach its token cap (or the next prompt alone would). */
export class TokenCapReached extends Error {
  constructor(
    readonly usedTokens: number,
    readonly capTokens: number,
    why?: string,
  ) {
    const said = tokenCapMessage(usedTokens, capTokens)
    super(why ? `${said} ${why}` : said)
    this.name = 'TokenCapReached'
  }
}

/**
 * What the next call may use under a token cap: its prompt counts in full, the rest of the cap bounds its answer.
 * A prompt that alone would reach the cap, or leave no token of answer, is refused.
 */
export function nextCallTokenBound(f: {
  capTokens: number
  usedTokens: number
  promptTokens: number
}): { maxOutputTokens: number } | { refused: string } {
  const left = f.capTokens - f.usedTokens - f.promptTokens
  if (left < 1)
    return {
      refused: `The next call's prompt (about ${tokens(f.promptTokens)} tokens) would use what is left of the cap, so it was not sent.`,
    }
  return { maxOutputTokens: left }
}
