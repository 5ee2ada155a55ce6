import { z } from 'zod'
import { projectId, projectOnly } from './common'
import { defineCalls } from './define'

/** One rules file at a project's root (AGENTS.md, CLAUDE.md …) and whether the model reads it. */
export const rulesFileSchema = z.object({
  /** Project-relative, forward slashes. */
  path: z.string(),
  bytes: z.number().int().nonnegative(),
  /** Longer than its share of the prompt: the model sees the start and a note. */
  capped: z.boolean(),
  /** False when the user turned it off for this project. */
  enabled: z.boolean(),
})
export type RulesFileInfo = z.infer<typeof rulesFileSchema>

export const rulesListSchema = z.object({
  files: z.array(rulesFileSchema),
  /** One file's share of the prompt, and all files together, in characters. */
  fileCapChars: z.number().int(),
  totalCapChars: z.number().int(),
})
export type RulesList = z.infer<typeof rulesListSchema>

export const rulesCalls = defineCalls({
  'rules.list': { input: projectOnly, output: rulesListSchema },
  /** The user's own switch (`.ralph/config.json` "rules", which the model cannot change). */
  'rules.set': {
    mutates: true,
    input: z.object({ projectId, path: z.string().min(1).max(500), enabled: z.boolean() }).strict(),
    output: rulesListSchema,
  },
})
