import { create } from 'zustand'
import { readStoredByProject, writeStoredByProject } from '../../app/localStore'
import { noBudgetText, type BudgetText } from './budget'

const BUDGETS_KEY = 'ralph.queue.budgets'

const readBudgets = (): Record<number, BudgetText> =>
  readStoredByProject(BUDGETS_KEY, (value) => {
    const v = value as Partial<BudgetText> | null
    return {
      cost: typeof v?.cost === 'string' ? v.cost : '',
      minutes: typeof v?.minutes === 'string' ? v.minutes : '',
    }
  })

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
    writeStoredByProject(BUDGETS_KEY, budgets) // when not remembered, still applied
    set({ budgets })
  },
}))

export const useBudgetText = (projectId: number): BudgetText =>
  useQueueUi((s) => s.budgets[projectId] ?? noBudgetText)
