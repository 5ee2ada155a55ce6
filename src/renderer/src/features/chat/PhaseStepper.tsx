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

/** What each phase does, on hover: the words are the loop's, the card explains them. */
const hints: Record<Phase, string> = {
  parse: 'Ralph reads your message into a task: its type, its requirements and what must stay as it is.',
  plan: 'Ralph updates the plan (.ralph/plan.tsx) before changing any file.',
  build: 'Ralph changes the files, iteration by iteration, until it marks the task complete.',
  gates: 'Checks the result must pass before the task counts as done (scope, size, summary…).',
  snapshot: 'The post-task snapshot: what you compare with and can roll back to.',
}

/**
 * The phases a task of this type goes through: a bug fix skips the plan (the loop starts it in build), a question
 * back to the user ends after the parse. An unknown type (not read yet) may still have them all.
 */
export function phasesOf(type: string | null): readonly Phase[] {
  if (type === 'bugfix') return ['parse', 'build', 'gates', 'snapshot']
  if (type === 'needs-clarification') return ['parse']
  return phases
}

/** The phase itself when the task has it, else the next one it has (a bug fix's "plan" is its build). */
function within(list: readonly Phase[], phase: Phase): Phase {
  if (list.includes(phase)) return phase
  return list.find((p) => phases.indexOf(p) > phases.indexOf(phase)) ?? list[list.length - 1]!
}

/** Where a running task is, from the loop's latest events: the phase it is in now (null: no event seen yet). */
export function livePhase(events: readonly LoopEvent[]): Phase | null {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!
    if (e.type === 'snapshot.created' && e.kind === 'task-post') return 'snapshot'
    if (e.type === 'gate.result') return 'gates'
    if (e.type === 'iteration.started') return e.phase
    if (e.type === 'task.parsed') return 'plan'
  }
  return null
}

/** The phase of the newest iteration the run recorded (the same fact the loop's `.ralph/phase` held then). */
function storedPhase(card: TaskCardDto): Phase | null {
  const phase = card.lastIteration?.phase
  return phase === 'plan' || phase === 'build' ? phase : null
}

/**
 * Where a finished task stopped: every phase for a complete one, else the phase that ended it, read from the run's
 * newest iteration (so a task that failed while planning never shows "✓ Plan ✗ Build").
 */
export function finalPhase(card: TaskCardDto): { at: Phase; failed: boolean } {
  const list = phasesOf(card.type)
  const failed = card.status === 'failed'
  if (card.status === 'complete') return { at: list[list.length - 1]!, failed: false }
  if (card.reason === 'gates') return { at: within(list, 'gates'), failed: true }
  const stored = storedPhase(card)
  if (stored) return { at: within(list, stored), failed }
  // An older run without its iteration rows: an iteration cut short shows by its tool calls.
  if (card.iterations === 0 && card.toolCallCount === 0)
    return { at: card.title ? within(list, 'plan') : 'parse', failed }
  return { at: within(list, 'build'), failed }
}

/** Where a running task is: the loop's events while this page heard them, else (after a reload) its run's rows. */
function runningPhase(card: TaskCardDto, fromEvents: Phase | null): Phase {
  const list = phasesOf(card.type)
  const at = fromEvents ?? storedPhase(card) ?? (card.title ? 'plan' : 'parse')
  return within(list, at)
}

/** parse → plan → build → gates → snapshot (only those the task has), with the current (or last) step marked. */
export function PhaseStepper({ card, projectId }: { card: TaskCardDto; projectId: number }) {
  const live = card.status === 'running' || card.status === 'starting'
  const current = useRuns((s) => {
    const run = s.runs[projectId]
    return live && run && run.task === card.task ? livePhase(run.events) : null
  })
  const list = phasesOf(card.type)
  const { at, failed } = live ? { at: runningPhase(card, current), failed: false } : finalPhase(card)
  const done = card.status === 'complete'
  const index = list.indexOf(at)
  return (
    <ol className="chip-list phase-stepper" aria-label="Phases">
      {list.map((phase, i) => {
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
            title={hints[phase]}
          >
            {/* ✓ and ✕ come from the stylesheet: cheaper than an icon in each of many cards. */}
            {labels[phase]}
          </li>
        )
      })}
    </ol>
  )
}
