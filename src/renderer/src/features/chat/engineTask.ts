import type { TaskCardDto } from '../../../../shared/api/chat'
import { engineLabels } from '../../../../shared/api/engines'
import { useMemo } from 'react'
import { useRuns } from '../../app/runStore'
import { useProjectEngine } from '../engines'

/** The agent engines a task's model calls can be recorded under (their usage rows' provider is the engine's id). */
export type CardEngine = 'claude-code' | 'codex'

const isEngine = (provider: string): provider is CardEngine =>
  provider === 'claude-code' || provider === 'codex'

/** The engine whose sessions a task's iterations ran in, read from its usage rows; null for the built-in loop. */
export function engineOfCard(card: Pick<TaskCardDto, 'cost'>): CardEngine | null {
  const found = (card.cost.models ?? []).find((m) => isEngine(m.provider))
  return found ? (found.provider as CardEngine) : null
}

/**
 * The engine a card's task ran with: from its usage rows, or — for a task that failed before any session (the
 * engine not installed, not logged in) — the project's engine when the failure names it.
 */
export function useCardEngine(card: TaskCardDto, projectId: number): CardEngine | null {
  const recorded = engineOfCard(card)
  const failed = card.status === 'failed' && recorded === null
  const setting = useProjectEngine(projectId, failed).data?.engine
  if (recorded) return recorded
  if (!failed || !setting || setting === 'built-in') return null
  const words = `${card.outcome ?? ''} ${card.detail ?? ''}`
  return words.includes(engineLabels[setting]) ? setting : null
}

/** The login the task's latest engine session reported (`engine.session`, live while this page listened). */
export function useEngineLogin(projectId: number, task: number | null): string | null {
  const events = useRuns((s) => s.runs[projectId]?.events)
  return useMemo(() => {
    if (task === null || !events) return null
    const last = events.filter((e) => e.type === 'engine.session' && e.task === task).at(-1)
    return last?.type === 'engine.session' ? last.login : null
  }, [events, task])
}
