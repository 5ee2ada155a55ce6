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

/** Thrown from the usage callback of the call that reached the cap: no tool of its answer runs, no call follows. */
export class CostCapReached extends Error {
  constructor(
    readonly spentUsd: number,
    readonly capUsd: number,
  ) {
    super(costCapMessage(spentUsd, capUsd))
    this.name = 'CostCapReached'
  }
}
