import { create } from 'zustand'
import { MAX_TOKEN_CAP, type TaskCaps } from '../../../../shared/budget'
import { readStoredByProject, writeStoredByProject } from '../../app/localStore'
import { checkBudget } from '../queue'

const CAPS_KEY = 'ralph.chat.costCaps'
const TOKEN_CAPS_KEY = 'ralph.chat.tokenCaps'

const readText = (key: string): Record<number, string> =>
  readStoredByProject(key, (v) => (typeof v === 'string' ? v : undefined))

interface CostCaps {
  /** The composer's cost cap per project, as typed (empty: no cap); remembered across reloads. */
  text: Record<number, string>
  /** The composer's token cap per project, as typed (empty: none): for a model with no price. */
  tokens: Record<number, string>
  set(projectId: number, text: string): void
  setTokens(projectId: number, text: string): void
}

export const useCostCaps = create<CostCaps>()((set, get) => ({
  text: readText(CAPS_KEY),
  tokens: readText(TOKEN_CAPS_KEY),
  set(projectId, text) {
    const caps = { ...get().text, [projectId]: text }
    writeStoredByProject(CAPS_KEY, caps) // when not remembered, still applied to the next task
    set({ text: caps })
  },
  setTokens(projectId, text) {
    const tokens = { ...get().tokens, [projectId]: text }
    writeStoredByProject(TOKEN_CAPS_KEY, tokens)
    set({ tokens })
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

const SUFFIX: Record<string, number> = { '': 1, k: 1_000, m: 1_000_000 }

/**
 * A token cap as typed: a whole number of tokens, "50k" or "1.5m" (commas and spaces are fine); empty is no cap.
 * The tokens to send with the next task, or what is wrong with the text.
 */
export function parseTokenCap(text: string): { tokens?: number; error: string | null } {
  const t = text
    .trim()
    .toLowerCase()
    .replace(/[,\s_]/g, '')
  if (!t) return { error: null }
  const m = /^(\d+(?:\.\d+)?)(k|m)?$/.exec(t)
  const tokens = m ? Math.round(Number(m[1]) * SUFFIX[m[2] ?? '']!) : Number.NaN
  if (!Number.isFinite(tokens))
    return { error: `A token cap is a number of tokens, like 50000 or 50k, not "${text.trim()}".` }
  if (tokens < 1) return { error: 'A token cap must be more than 0 tokens; leave it empty for no cap.' }
  if (tokens > MAX_TOKEN_CAP) return { error: 'A token cap can be at most 10,000,000,000 tokens.' }
  return { tokens, error: null }
}

/** The caps the project's next task is sent with: none for an empty cap or one that is not valid yet. */
export function nextTaskCaps(projectId: number): TaskCaps {
  const { text, tokens } = useCostCaps.getState()
  const usd = parseCostCap(text[projectId] ?? '').usd
  const maxTokens = parseTokenCap(tokens[projectId] ?? '').tokens
  return {
    ...(usd !== undefined ? { maxCostUsd: usd } : {}),
    ...(maxTokens !== undefined ? { maxTokens } : {}),
  }
}

/** The dollars the project's next task is capped at, or undefined (no cap, or a cap that is not valid yet). */
export const nextTaskCap = (projectId: number): number | undefined => nextTaskCaps(projectId).maxCostUsd
