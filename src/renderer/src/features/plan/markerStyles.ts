import type { PlanMarker } from '../../../../shared/api/plan'

type Kind = PlanMarker['kind']

/** The class each marker line carries (DESIGN.md §15; tests look for exactly these). */
export const markerClass: Record<Kind, string> = {
  ADD: 'plan-marker-add',
  MODIFY: 'plan-marker-modify',
  FIX: 'plan-marker-fix',
  REMOVE: 'plan-marker-remove',
  NO_CHANGES: 'plan-marker-no-changes',
  PRESERVED: 'plan-marker-preserved',
}

/** Words and badge tones for a marker kind. */
export const markerLabel: Record<Kind, string> = {
  ADD: 'ADD',
  MODIFY: 'MODIFY',
  FIX: 'FIX',
  REMOVE: 'REMOVE',
  NO_CHANGES: 'NO CHANGES',
  PRESERVED: 'PRESERVED',
}

export const markerTone = {
  ADD: 'ok',
  MODIFY: 'info',
  FIX: 'warn',
  REMOVE: 'bad',
  NO_CHANGES: 'neutral',
  PRESERVED: 'accent',
} as const satisfies Record<Kind, string>

/** The token of each kind's colour, for the overview ruler (Monaco takes colours as strings, not classes). */
export const markerToken: Record<Kind, string> = {
  ADD: '--ok',
  MODIFY: '--info',
  FIX: '--warn',
  REMOVE: '--bad',
  NO_CHANGES: '--text-faint',
  PRESERVED: '--accent',
}
