import type { TaskCardDto } from '../../../../shared/api/chat'
import type { LoopEvent } from '../../../../shared/loopEvents'
import { useRuns } from '../../app/runStore'

export const phases = ['parse', 'plan', 'build', 'gates', 'snapshot'] as const
export type Phase = (typeof phases)[number]

const labels: Record<Phase, string> = {
  parse: 'Parse',
  plan: 'Plan',
  build: 'Build',
  gates: 'Gates',
  snapshot: 'Snapshot',
}

/** Where a running task is, from the loop's latest events: the phase it is in now. */
export function livePhase(events: readonly LoopEvent[]): Phase {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!
    if (e.type === 'snapshot.created' && e.kind === 'task-post') return 'snapshot'
    if (e.type === 'gate.result') return 'gates'
    if (e.type === 'iteration.started') return e.phase
    if (e.type === 'task.parsed') return 'plan'
  }
  return 'parse'
}

/** Where a finished task stopped: every phase for a complete one, else the phase that ended it. */
export function finalPhase(card: TaskCardDto): { at: Phase; failed: boolean } {
  if (card.status === 'complete') return { at: 'snapshot', failed: false }
  if (card.reason === 'gates') return { at: 'gates', failed: true }
  // An iteration cut short is not counted by the run, but its tool calls show it had begun building.
  if (card.iterations === 0 && card.toolCallCount === 0)
    return { at: card.title ? 'plan' : 'parse', failed: card.status === 'failed' }
  return { at: 'build', failed: card.status === 'failed' }
}

/** parse → plan → build → gates → snapshot, with the current (or last) step marked. */
export function PhaseStepper({ card, projectId }: { card: TaskCardDto; projectId: number }) {
  const live = card.status === 'running' || card.status === 'starting'
  const current = useRuns((s) => {
    const run = s.runs[projectId]
    return live && run && run.task === card.task ? livePhase(run.events) : null
  })
  const { at, failed } = live ? { at: current ?? 'parse', failed: false } : finalPhase(card)
  const done = card.status === 'complete'
  const index = phases.indexOf(at)
  return (
    <ol className="chip-list phase-stepper" aria-label="Phases">
      {phases.map((phase, i) => {
        const state =
          done || i < index
            ? 'done'
            : i === index
              ? failed
                ? 'failed'
                : live
                  ? 'current'
                  : 'stopped'
              : 'todo'
        return (
          <li
            key={phase}
            className={`phase phase-${state}`}
            aria-current={state === 'current' ? 'step' : undefined}
          >
            {/* ✓ and ✕ come from the stylesheet: cheaper than an icon in each of many cards. */}
            {labels[phase]}
          </li>
        )
      })}
    </ol>
  )
}
