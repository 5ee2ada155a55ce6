/**
 * Budgets against what was used: warn once at 75%, stop at 100%. Pure and free of imports, so both a queue build
 * (`ralph build --max-cost/--max-minutes`) and one chat task's cost cap (loop/costCap.ts) use the same rule.
 */

export interface BuildBudget {
  /** Dollars the whole build may spend (model calls of every task and verification). */
  maxCostUsd?: number | null
  /** Minutes the whole build may take. */
  maxMinutes?: number | null
}

export interface BudgetUse {
  costUsd: number
  elapsedMs: number
}

export type BudgetKind = 'cost' | 'time'

export interface BudgetCheck {
  /** Budgets that crossed 75% for the first time now (each warns once). */
  warn: { kind: BudgetKind; used: number; limit: number }[]
  /** The first budget at or over 100%, if any. */
  stop: { kind: BudgetKind; used: number; limit: number } | null
}

export const BUDGET_WARN_AT = 0.75

/** Where the build stands against its budgets; `warned` holds the kinds that warned already. */
export function checkBudget(
  budget: BuildBudget,
  use: BudgetUse,
  warned: ReadonlySet<BudgetKind>,
): BudgetCheck {
  const lines: { kind: BudgetKind; used: number; limit: number }[] = []
  if (budget.maxCostUsd != null) lines.push({ kind: 'cost', used: use.costUsd, limit: budget.maxCostUsd })
  if (budget.maxMinutes != null)
    lines.push({ kind: 'time', used: use.elapsedMs / 60_000, limit: budget.maxMinutes })
  return {
    warn: lines.filter((l) => !warned.has(l.kind) && l.used >= l.limit * BUDGET_WARN_AT && l.used < l.limit),
    stop: lines.find((l) => l.used >= l.limit) ?? null,
  }
}

export function describeBudget(line: { kind: BudgetKind; used: number; limit: number }): string {
  return line.kind === 'cost'
    ? `$${line.used.toFixed(4)} of the $${line.limit} cost budget`
    : `${line.used.toFixed(1)} of the ${line.limit} minute time budget`
}

/** One task's caps (the composer's, `ralph run --max-cost`): dollars, tokens (a model with no price), or both. */
export interface TaskCaps {
  maxCostUsd?: number
  maxTokens?: number
}

/** The most a token cap may be: ten billion tokens, far past any task, so a typo is caught. */
export const MAX_TOKEN_CAP = 10_000_000_000
