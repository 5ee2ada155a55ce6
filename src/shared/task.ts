import { z } from 'zod'

/** The task parser's output (DESIGN.md §8). The canonical schema: the parser validates against it. */
export const taskTypes = ['fresh', 'mutation', 'bugfix', 'needs-clarification'] as const
export type TaskType = (typeof taskTypes)[number]

export const requirementMarkers = ['ADD', 'MODIFY', 'FIX', 'REMOVE'] as const

export const structuredTaskSchema = z.object({
  type: z.enum(taskTypes),
  title: z.string().trim().min(1),
  requirements: z.array(
    z.object({
      marker: z.enum(requirementMarkers),
      description: z.string().trim().min(1),
      count: z.number().int().positive().nullable(),
    }),
  ),
  scope: z.object({ preserve: z.array(z.string()), affectedFiles: z.array(z.string()) }),
  clarification: z.string().nullable(),
  /**
   * With a clarification: up to 4 short answers the user can pick with one click (quick replies); they can still
   * write their own. Absent or empty: none.
   */
  clarificationOptions: z.array(z.string().trim().min(1).max(200)).max(4).optional(),
})
export type StructuredTask = z.infer<typeof structuredTaskSchema>

/**
 * What the parser model is asked for: the same fields, every one required (providers' strict structured output
 * wants each property listed as required), the options an empty array when there are none. A model that leaves
 * them out (no strict mode) still parses: missing reads as none.
 */
export const parserAnswerSchema = structuredTaskSchema.extend({
  clarificationOptions: z.preprocess((v) => v ?? [], z.array(z.string().trim().min(1).max(200)).max(4)),
})
