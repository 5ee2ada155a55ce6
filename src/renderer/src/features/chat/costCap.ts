import { create } from 'zustand'
import { readStoredByProject, writeStoredByProject } from '../../app/localStore'
import { checkBudget } from '../queue'

const CAPS_KEY = 'ralph.chat.costCaps'

const readCaps = (): Record<number, string> =>
  readStoredByProject(CAPS_KEY, (v) => (typeof v === 'string' ? v : undefined))

interface CostCaps {
  /** The composer's cost cap per project, as typed (empty: no cap); remembered across reloads. */
  text: Record<number, string>
  set(projectId: number, text: string): void
}

export const useCostCaps = create<CostCaps>()((set, get) => ({
  text: readCaps(),
  set(projectId, text) {
    const caps = { ...get().text, [projectId]: text }
    writeStoredByProject(CAPS_KEY, caps) // when not remembered, still applied to the next task
    set({ text: caps })
  },
}))

/**
 * The cap as typed, read with the queue build's cost-budget rules (a number of dollars, a leading "$" is fine,
 * more than 0, at most $10,000): the dollars to send with the next task, or what is wrong with the text.
 */
export function parseCostCap(text: string): { usd?: number; error: string | null } {
  const check = checkBudget({ cost: text, minutes: '' })
  const error = check.errors.cost?.replace('cost budget', 'cost cap') ?? null
  return error ? { error } : { usd: check.limits.maxCostUsd, error: null }
}

/** The dollars the project's next task is capped at, or undefined (no cap, or a cap that is not valid yet). */
export const nextTaskCap = (projectId: number): number | undefined =>
  parseCostCap(useCostCaps.getState().text[projectId] ?? '').usd
