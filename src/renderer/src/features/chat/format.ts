import type { TaskCardDto, TaskCardStatus } from '../../../../shared/api/chat'
import { cachedPercent } from '../../../../shared/formatLoopEvent'
import { formatSpend } from '../../../../shared/format'
import type { Tone } from '../../ui'

/** The status words of DESIGN.md §15, which tests look for. */
export const statusWord: Record<TaskCardStatus, { label: string; tone: Tone }> = {
  queued: { label: 'Queued', tone: 'neutral' },
  starting: { label: 'Starting', tone: 'neutral' },
  running: { label: 'Running', tone: 'accent' },
  complete: { label: 'Complete', tone: 'ok' },
  failed: { label: 'Failed', tone: 'bad' },
  waiting: { label: 'Waiting for your answer', tone: 'warn' },
  interrupted: { label: 'Interrupted', tone: 'warn' },
  stopped: { label: 'Stopped', tone: 'neutral' },
}

/**
 * A card's badge: its status word, or "Rolled back" for a completed task whose work a rollback took off disk (its
 * status is still `complete`, and comes back as Complete when the rollback is undone).
 */
export function cardBadge(card: Pick<TaskCardDto, 'status' | 'rolledBack'>): { label: string; tone: Tone } {
  return card.rolledBack ? { label: 'Rolled back', tone: 'neutral' } : statusWord[card.status]
}

/** Providers that run the model on this machine: no price is due. */
const LOCAL_PROVIDERS = new Set(['ollama'])

/**
 * "$0.0123", "under $0.01" (never "$0.0000"), "free (local model)" for a model run on this machine, or "price
 * unknown" when the model answered but the price table has no entry for it.
 */
export function formatCost(cost: TaskCardDto['cost']): string {
  if (cost.calls > 0 && cost.usd === 0) {
    const models = cost.models ?? []
    return models.length > 0 && models.every((m) => LOCAL_PROVIDERS.has(m.provider))
      ? 'free (local model)'
      : 'price unknown'
  }
  return formatSpend(cost.usd)
}

/**
 * The spend per model when a task used more than one (a fast model for side jobs): "fast-model $0.0004 · main-model
 * $0.0210"; null for a task that used one model.
 */
export function modelSpend(cost: TaskCardDto['cost']): string | null {
  const models = cost.models ?? []
  if (models.length < 2) return null
  return models.map((m) => `${m.model} ${formatCost({ ...cost, usd: m.usd, calls: m.calls })}`).join(' · ')
}

/** "cached 84%": the share of input tokens the provider's prompt cache served; null when it served none. */
export function formatCached(cost: { inputTokens: number; cacheReadTokens?: number }): string | null {
  const percent = cachedPercent(cost)
  return percent === null ? null : `cached ${percent}%`
}

export function formatTokens(n: number): string {
  return n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n)
}
