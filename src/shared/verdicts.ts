import { z } from 'zod'

/**
 * Verification's vocabulary (DESIGN.md §16), in one place: a criterion's answer, whether a criterion is checked
 * deterministically or by a model, a verification's outcome, and the rule that combines verdicts into it.
 */

export const verdictAnswerSchema = z.enum(['YES', 'NO', 'NEEDS_HUMAN'])
export type VerdictAnswer = z.infer<typeof verdictAnswerSchema>

export const criterionKindSchema = z.enum(['DET', 'LLM'])
export type CriterionKind = z.infer<typeof criterionKindSchema>

export const verifyOutcomeSchema = z.enum(['PASS', 'FAIL', 'NEEDS_HUMAN'])
export type VerifyOutcome = z.infer<typeof verifyOutcomeSchema>

/** A NO (a deterministic failure included) is FAIL; otherwise any NEEDS_HUMAN is NEEDS_HUMAN; otherwise PASS. */
export function combineOutcome(verdicts: readonly { answer: VerdictAnswer }[]): VerifyOutcome {
  if (verdicts.some((v) => v.answer === 'NO')) return 'FAIL'
  if (verdicts.some((v) => v.answer === 'NEEDS_HUMAN')) return 'NEEDS_HUMAN'
  return 'PASS'
}
