import type { BrainstormPhase } from '../../../../shared/brainstorm'

/** The stepper's seven phases (DESIGN.md §15: the list "Brainstorm phases" holds exactly these names). */
export const steps = [
  { phase: 'setup', name: 'Setup' },
  { phase: 'technique', name: 'Technique' },
  { phase: 'ideate', name: 'Ideate' },
  { phase: 'organize', name: 'Organize' },
  { phase: 'crystallize', name: 'Crystallize' },
  { phase: 'output', name: 'Output' },
  { phase: 'review', name: 'Review' },
] as const

/** Quick mode's form stands where SETUP is; it skips the four phases between SETUP and OUTPUT. */
export const quickSkips: readonly string[] = ['technique', 'ideate', 'organize', 'crystallize']

/** The step index a phase shows as current; null when the session is done (every step complete). */
export function currentStep(phase: BrainstormPhase): number | null {
  if (phase === 'done') return null
  if (phase === 'quick') return 0
  return steps.findIndex((s) => s.phase === phase)
}
