import { z } from 'zod'
import { projectId, projectOnly } from './common'
import {
  brainstormPhases,
  brainstormUsageSchema,
  brainstormViewSchema,
  documentsSchema,
  findingSchema,
  interruptKinds,
  statementsSchema,
  techniqueModes,
  themeSchema,
} from '../brainstorm'
import { defineCalls, defineEvents } from './define'

const docText = z.string().max(200_000)

/** What the wizard shows of a session: the engine's view plus the agreements, the exchange and the usage. */
export const brainstormDetailSchema = brainstormViewSchema.extend({
  technique: z.object({
    mode: z.enum(techniqueModes).nullable(),
    plan: z.array(z.string()),
    used: z.array(z.string()),
  }),
  themes: z.array(themeSchema),
  statements: statementsSchema.nullable(),
  quickAnswers: z.array(z.string()),
  usage: brainstormUsageSchema,
  /** Model work is due but nothing runs it (stopped, or the host closed mid-step): "Continue" runs it. */
  due: z.boolean(),
  /** Set when the documents failed validation twice: the draft the user may fix by hand. */
  handDraft: documentsSchema.nullable(),
  /** The documents' YAML, parsed, for the rendered view (null: no fence or it does not parse). */
  rendered: z.object({ vision: z.unknown(), roadmap: z.unknown() }).nullable(),
  /** The exchange, oldest first (the latest 400 messages). */
  messages: z.array(z.object({ role: z.enum(['user', 'facilitator']), phase: z.string(), text: z.string() })),
  /** Whether VISION.md / ROADMAP.md exist at the project root now. */
  existing: z.object({ vision: z.boolean(), roadmap: z.boolean() }),
})
export type BrainstormDetail = z.infer<typeof brainstormDetailSchema>

export const brainstormIdeaSchema = z.object({
  id: z.string(),
  domain: z.string(),
  title: z.string(),
  description: z.string(),
  novelty: z.string().nullable(),
})
export type BrainstormIdeaDto = z.infer<typeof brainstormIdeaSchema>

/** DESIGN.md §17's events, as the contract carries them (the same objects `ralph brainstorm --json` prints). */
export const brainstormEventSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('brainstorm.phase'),
    from: z.enum(brainstormPhases).nullable(),
    to: z.enum(brainstormPhases),
  }),
  z.object({
    type: z.literal('brainstorm.say'),
    text: z.string(),
    choice: z
      .object({
        id: z.string(),
        options: z.array(z.object({ n: z.number(), value: z.string(), label: z.string() })),
        default: z.string(),
      })
      .optional(),
  }),
  z.object({ type: z.literal('brainstorm.idea'), id: z.string(), title: z.string(), domain: z.string() }),
  z.object({ type: z.literal('brainstorm.interrupt'), kind: z.enum(interruptKinds), at: z.number() }),
  z.object({ type: z.literal('brainstorm.pivot'), to: z.string(), at: z.number() }),
  z.object({ type: z.literal('brainstorm.findings'), findings: z.array(findingSchema) }),
  z.object({ type: z.literal('brainstorm.written'), files: z.array(z.string()) }),
  z.object({
    type: z.literal('brainstorm.error'),
    message: z.string(),
    problems: z.array(z.string()).optional(),
  }),
])

const quickFormSchema = z
  .object({
    description: z.string().trim().min(1, 'Describe the project first.'),
    mustHaves: z.string().trim().min(1, 'Name the must-haves.'),
    nonGoals: z.string().trim().min(1, 'Name what it will not do.'),
    constraints: z.string().trim().min(1, 'Say what constrains it (or "none").'),
    success: z.string().trim().min(1, 'Say what success looks like.'),
  })
  .strict()
export type QuickForm = z.infer<typeof quickFormSchema>
/** The quick form's fields in the engine's question order. */
export const quickFormFields = ['description', 'mustHaves', 'nonGoals', 'constraints', 'success'] as const

const accepted = z.object({ accepted: z.literal(true) })

export const brainstormCalls = defineCalls({
  /** The project's latest session (null before the first), whether model work runs now, and the last error. */
  'brainstorm.get': {
    input: projectOnly,
    output: z.object({
      session: brainstormDetailSchema.nullable(),
      running: z.boolean(),
      /** What the last step said went wrong (a provider error, "Stopped …"), until the next step starts. */
      error: z.string().nullable(),
      /** What the last step reported outside the exchange (the work queue it created). */
      notice: z.string().nullable(),
    }),
  },
  /** Every idea of the latest session, in order (the wizard's "Ideas" list). */
  'brainstorm.ideas': {
    input: projectOnly,
    output: z.object({ ideas: z.array(brainstormIdeaSchema) }),
  },
  /** Seed 004's technique library by category (names only). */
  'brainstorm.techniques': {
    input: z.object({}).strict(),
    output: z.object({
      categories: z.array(z.object({ name: z.string(), techniques: z.array(z.string()) })),
    }),
  },
  /**
   * Starts a session, or continues the unfinished one (running any model work that is due). With `quick`, a new
   * quick-mode session takes the form's five answers and goes on to the documents. Work runs in the background:
   * progress arrives as `brainstorm.event` and `brainstorm.changed`. Refused while a step runs.
   */
  'brainstorm.start': {
    mutates: true,
    input: z.object({ projectId, quick: quickFormSchema.optional() }).strict(),
    output: accepted,
  },
  /**
   * Answers the pending question: an option's value for a closed choice, text for an open one. `themes` and
   * `statements` are the user's edits of the ORGANIZE board and the CRYSTALLIZE cards, saved before the answer.
   */
  'brainstorm.answer': {
    mutates: true,
    input: z
      .object({
        projectId,
        text: z.string().trim().min(1, 'Write an answer first.').max(50_000),
        themes: z.array(themeSchema).max(30).optional(),
        statements: statementsSchema.optional(),
      })
      .strict(),
    output: accepted,
  },
  /** After the documents failed validation twice: saves the user's hand-edited draft and uses it (validated). */
  'brainstorm.useDraft': {
    mutates: true,
    input: z.object({ projectId, vision: docText, roadmap: docText }).strict(),
    output: accepted,
  },
  /** Validates documents as OUTPUT does (schema, YAML, line limits) without saving anything. */
  'brainstorm.check': {
    input: z.object({ vision: docText, roadmap: docText }).strict(),
    output: z.object({
      problems: z.array(z.string()),
      visionLines: z.number().int(),
      roadmapLines: z.number().int(),
    }),
  },
  /** Stops the running model call; the session keeps its last saved step and "Continue" runs it again. */
  'brainstorm.stop': {
    input: projectOnly,
    output: z.object({ stopped: z.boolean() }),
  },
})

export const brainstormEvents = defineEvents({
  /** Something the engine reported while working (DESIGN.md §17's events). */
  'brainstorm.event': z.object({ projectId, event: brainstormEventSchema }),
  /** The session, its ideas or whether it runs changed: re-read them. */
  'brainstorm.changed': z.object({ projectId }),
})
