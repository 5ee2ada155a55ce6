import { create } from 'zustand'
import { noBudgetText, type BudgetText } from './budget'

const BUDGETS_KEY = 'ralph.queue.budgets'

function readBudgets(): Record<number, BudgetText> {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(BUDGETS_KEY) ?? '{}')
    if (typeof parsed !== 'object' || parsed === null) return {}
    const out: Record<number, BudgetText> = {}
    for (const [id, v] of Object.entries(parsed as Record<string, Partial<BudgetText>>))
      out[Number(id)] = {
        cost: typeof v?.cost === 'string' ? v.cost : '',
        minutes: typeof v?.minutes === 'string' ? v.minutes : '',
      }
    return out
  } catch {
    return {}
  }
}

interface QueueUi {
  /** The Build controls' budgets per project, as typed (so a half-typed value survives a tab switch). */
  budgets: Record<number, BudgetText>
  setBudget(projectId: number, patch: Partial<BudgetText>): void
}

/** UI state of the Queue panel; the budgets are remembered across reloads. */
export const useQueueUi = create<QueueUi>()((set, get) => ({
  budgets: readBudgets(),
  setBudget(projectId, patch) {
    const budgets = {
      ...get().budgets,
      [projectId]: { ...(get().budgets[projectId] ?? noBudgetText), ...patch },
    }
    try {
      localStorage.setItem(BUDGETS_KEY, JSON.stringify(budgets))
    } catch {
      // not remembered, still applied
    }
    set({ budgets })
  },
}))

export const useBudgetText = (projectId: number): BudgetText =>
  useQueueUi((s) => s.budgets[projectId] ?? noBudgetText)
