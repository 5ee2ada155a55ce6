import { formatSpend } from '../../../../shared/format'
/**
 * A build's budgets as typed in the panel (DESIGN.md §16: the build warns at 75% and stops at 100%). Empty means
 * no limit; anything else must be a number within what `queue.build` accepts, or it says what is wrong.
 */

export interface BudgetText {
  /** US dollars, e.g. "2.50" (a leading "$" is fine). */
  cost: string
  /** Minutes, e.g. "30". */
  minutes: string
}

export const noBudgetText: BudgetText = { cost: '', minutes: '' }

/** The same ceilings as the contract's `queue.build` input. */
export const MAX_COST_USD = 10_000
export const MAX_MINUTES = 7 * 24 * 60

export interface BudgetCheck {
  /** What `queue.build` gets: only the limits that were set. */
  limits: { maxCostUsd?: number; maxMinutes?: number }
  errors: { cost: string | null; minutes: string | null }
}

const NUMBER = /^-?(\d+(\.\d+)?|\.\d+)$/

function parse(
  text: string,
  what: { name: string; example: string; unit: (n: number) => string; max: number },
): { value?: number; error: string | null } {
  const raw = text.trim()
  if (raw === '') return { error: null }
  if (!NUMBER.test(raw))
    return {
      error: `Enter the ${what.name} as a number, e.g. ${what.example}, or leave it empty for no limit.`,
    }
  const value = Number(raw)
  if (value <= 0) return { error: `The ${what.name} must be more than 0; leave it empty for no limit.` }
  if (value > what.max) return { error: `The ${what.name} can be at most ${what.unit(what.max)}.` }
  return { value, error: null }
}

export function checkBudget(text: BudgetText): BudgetCheck {
  const cost = parse(text.cost.trim().replace(/^\$\s*/, ''), {
    name: 'cost budget',
    example: '2.50 (US dollars)',
    unit: (n) => `$${n.toLocaleString('en-US')}`,
    max: MAX_COST_USD,
  })
  const minutes = parse(text.minutes, {
    name: 'time budget',
    example: '30 (minutes)',
    unit: (n) => `${n.toLocaleString('en-US')} minutes (a week)`,
    max: MAX_MINUTES,
  })
  return {
    limits: {
      ...(cost.value !== undefined ? { maxCostUsd: cost.value } : {}),
      ...(minutes.value !== undefined ? { maxMinutes: minutes.value } : {}),
    },
    errors: { cost: cost.error, minutes: minutes.error },
  }
}

/** Dollars as the panel shows a spend (shared/format's formatSpend: never "$0.0000"). */
export const usd = (n: number): string => formatSpend(n)

/** A budget's limit as typed: cents, unless it is under one. */
export const usdLimit = (n: number): string => `$${n >= 0.01 ? n.toFixed(2) : n.toFixed(4)}`

/** A duration in whole minutes and seconds, e.g. "4 min 05 s". */
export function duration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000))
  const m = Math.floor(s / 60)
  return m === 0 ? `${s} s` : `${m} min ${String(s % 60).padStart(2, '0')} s`
}
