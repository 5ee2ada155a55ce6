import { z } from 'zod'

/** Brainstorm sessions (DESIGN.md §17, seed 004 P2): phases, the model's JSON answers, the documents, events. */

export const brainstormPhases = [
  'setup',
  'technique',
  'ideate',
  'organize',
  'crystallize',
  'quick',
  'output',
  'review',
  'done',
] as const
export type BrainstormPhase = (typeof brainstormPhases)[number]

/** Seed 004's twelve domains: the ledger tag and what it covers. Order is the tie-break for pivots. */
export const brainstormDomains = [
  { tag: 'Core', name: 'Core functionality / features' },
  { tag: 'UX', name: 'User experience / workflows / onboarding' },
  { tag: 'DX', name: 'Developer experience / API design' },
  { tag: 'Ops', name: 'Operations / deployment / monitoring' },
  { tag: 'Biz', name: 'Business model / pricing / growth / distribution' },
  { tag: 'Edge', name: 'Edge cases / error handling / failure modes' },
  { tag: 'Eco', name: 'Ecosystem / plugins / integrations / partnerships' },
  { tag: 'A11y', name: 'Accessibility / i18n / localization' },
  { tag: 'Perf', name: 'Performance / scalability / reliability' },
  { tag: 'Sec', name: 'Security / privacy / compliance' },
  { tag: 'Comm', name: 'Community / governance / contribution model' },
  { tag: 'Docs', name: 'Documentation / learning curve' },
] as const
export const domainTags = brainstormDomains.map((d) => d.tag) as [DomainTag, ...DomainTag[]]
export type DomainTag = (typeof brainstormDomains)[number]['tag']

export const techniqueModes = ['user-selected', 'ai-recommended', 'random', 'progressive'] as const
export type TechniqueMode = (typeof techniqueModes)[number]

export const interruptKinds = ['reverse', 'analogy', 'constraint', 'black-swan'] as const
export type InterruptKind = (typeof interruptKinds)[number]

// ---- what ORGANIZE and CRYSTALLIZE agree on (the wizard shows them as cards) ----

export const moscow = ['must', 'should', 'could', 'wont'] as const
export type Moscow = (typeof moscow)[number]
export const themeSchema = z.object({
  name: z.string().trim().min(1),
  /** Idea ids (I001 …); the harness keeps only ids that exist in the ledger. */
  ideas: z.array(z.string()).default([]),
  priority: z.enum(moscow).nullable().default(null),
  risk: z.string().nullable().default(null),
})
export type BrainstormTheme = z.infer<typeof themeSchema>

/** Seed 004's CRYSTALLIZE statements: the six cards the user approves or edits. */
export const statementsSchema = z.object({
  vision: z.string().default(''),
  successTruths: z.array(z.string()).default([]),
  nonGoals: z.array(z.string()).default([]),
  constraints: z.array(z.string()).default([]),
  risks: z.array(z.string()).default([]),
  openQuestions: z.array(z.string()).default([]),
})
export type BrainstormStatements = z.infer<typeof statementsSchema>

/** The session's model calls: how many, their tokens and the estimated cost (0 for unpriced models). */
export const brainstormUsageSchema = z.object({
  calls: z.number().int(),
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
  usd: z.number(),
})
export type BrainstormUsage = z.infer<typeof brainstormUsageSchema>

// ---- the model's answers (JSON-only calls) ----

/**
 * Phases 1–5. `domain` is a plain string on the wire (models write "UX", "[UX]" or the long name); the harness
 * maps it to a tag. `description` and `pitch` are optional extras: the ledger line wants a sentence, SETUP a pitch.
 */
export const facilitationSchema = z.object({
  say: z.string(),
  captured: z
    .array(
      z.object({
        quote: z.string(),
        title: z.string(),
        domain: z.string(),
        novelty: z.string().nullable().optional(),
        description: z.string().nullable().optional(),
      }),
    )
    .default([]),
  phaseDone: z.boolean().default(false),
  pitch: z.string().nullable().optional(),
  /** ORGANIZE: the themes as they stand (the wizard's theme cards and MoSCoW board); the harness normalizes them. */
  themes: z
    .array(
      z.object({
        name: z.string(),
        ideas: z.array(z.string()).default([]),
        priority: z.string().nullable().optional(),
        risk: z.string().nullable().optional(),
      }),
    )
    .nullable()
    .optional(),
  /** CRYSTALLIZE: the statements as they stand (the wizard's cards, approved or edited one by one). */
  statements: statementsSchema.nullable().optional(),
})
export type Facilitation = z.infer<typeof facilitationSchema>

export const documentsSchema = z.object({ vision: z.string(), roadmap: z.string() })
export type BrainstormDocuments = z.infer<typeof documentsSchema>

export const severities = ['HIGH', 'MED', 'LOW'] as const
export const findingSchema = z.object({
  severity: z.enum(severities),
  what: z.string().trim().min(1),
  why: z.string().trim().min(1),
  fix: z.string().trim().min(1),
})
export type Finding = z.infer<typeof findingSchema>
export const reviewSchema = z.object({ findings: z.array(findingSchema) })

// ---- the documents' YAML (seed 004 P2 §6) ----

const text = z.string().trim().min(1)
const texts = z.array(text)

export const VISION_MAX_LINES = 80
export const ROADMAP_MAX_LINES = 120

export const visionYamlSchema = z
  .object({
    'vision_yaml<=300t': z.object({
      problem: z.object({ why: text, pain: texts.min(1) }),
      solution: z.object({ what: text, boundaries: text }),
      users: z.object({ primary: text, environments: texts }),
      key_differentiators: texts.min(1),
      mvp_scope: z.object({ in: texts.min(1), out: texts }),
      success_metrics: texts.min(1),
      non_goals: texts.min(1),
      assumptions: texts,
      open_questions: texts,
    }),
  })
  .strict()

export const roadmapTrackSchema = z.object({
  id: z.union([z.number(), text]),
  name: text,
  goal: text,
  deliverables: texts.min(1),
  done_when: texts.min(1),
  dependencies: z.array(z.union([z.number(), z.string()])).nullish(),
  risks: texts.nullish(),
})
export const roadmapYamlSchema = z
  .object({
    version: z.union([text, z.number()]),
    project: text,
    goal: text,
    tracks: z.array(roadmapTrackSchema).min(1),
    milestones: texts,
    risks: texts,
    definition_of_done: texts.min(1),
  })
  .strict()
export type RoadmapYaml = z.infer<typeof roadmapYamlSchema>

// ---- what the session waits for ----

export const choiceOptionSchema = z.object({ value: z.string(), label: z.string() })
export const pendingSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('open'), id: z.string(), text: z.string() }),
  z.object({
    kind: z.literal('choice'),
    id: z.string(),
    text: z.string(),
    options: z.array(choiceOptionSchema).min(1),
    default: z.string(),
  }),
])
export type BrainstormPending = z.infer<typeof pendingSchema>

// ---- NDJSON / API events (DESIGN.md §17) ----

export type BrainstormEvent =
  | { type: 'brainstorm.phase'; from: BrainstormPhase | null; to: BrainstormPhase }
  /** `choice` is set when the text asks a closed question: answer with an option's label or number. */
  | {
      type: 'brainstorm.say'
      text: string
      choice?: { id: string; options: { n: number; value: string; label: string }[]; default: string }
    }
  | { type: 'brainstorm.idea'; id: string; title: string; domain: DomainTag }
  | { type: 'brainstorm.interrupt'; kind: InterruptKind; at: number }
  | { type: 'brainstorm.pivot'; to: DomainTag; at: number }
  | { type: 'brainstorm.findings'; findings: Finding[] }
  | { type: 'brainstorm.written'; files: string[] }
  | { type: 'brainstorm.error'; message: string; problems?: string[] }

// ---- the persisted session (SQLite, one JSON column; ideas and messages have their own tables) ----

export const sessionStateSchema = z.object({
  mode: z.enum(['full', 'quick']),
  phase: z.enum(brainstormPhases),
  pending: pendingSchema.nullable(),
  /** Model work that must run before the user is asked anything (survives a crash between answer and reply). */
  due: z.enum(['facilitate', 'output', 'revise', 'review']).nullable(),
  /** The user's answer the next facilitation turn reads captures from ('' on a turn the harness started). */
  lastAnswer: z.string(),
  /** What the README, manifest and an existing VISION.md already say (SETUP asks only the rest). */
  projectContext: z.string().nullable(),
  pitch: z.string().nullable(),
  technique: z.object({
    mode: z.enum(techniqueModes).nullable(),
    plan: z.array(z.string()),
    index: z.number().int(),
    exchangesOnLens: z.number().int(),
    used: z.array(z.string()),
  }),
  ideaCount: z.number().int(),
  domains: z.record(z.string(), z.number().int()),
  focusDomain: z.string().nullable(),
  /** Every pivot target so far: a tie-break, so pivots rotate even when the model files ideas under one tag. */
  pivotHistory: z.array(z.string()).default([]),
  nextPivotAt: z.number().int(),
  interruptsDone: z.array(z.number().int()),
  impossibleDone: z.boolean(),
  ideateExchanges: z.number().int(),
  sinceEnergyCheck: z.number().int(),
  /** The harness's instruction for the next facilitation turn (a pivot, an interrupt, "not yet"). */
  directive: z.string().nullable(),
  quickAnswers: z.array(z.string()),
  drafts: documentsSchema.nullable(),
  /** Set when the output or the review could not be obtained: the session stops until the user retries. */
  failure: z
    .object({ step: z.enum(['output', 'revise', 'review']), problems: z.array(z.string()) })
    .nullable(),
  changeRequest: z.string().nullable(),
  findings: z.array(findingSchema.extend({ decision: z.enum(['apply', 'dismiss']).nullable() })),
  targets: z.object({ vision: z.string().nullable(), roadmap: z.string().nullable() }),
  written: z.array(z.string()),
  // Added for the wizard; the defaults read sessions saved before them.
  themes: z.array(themeSchema).default([]),
  statements: statementsSchema.nullable().default(null),
  usage: brainstormUsageSchema.default({ calls: 0, inputTokens: 0, outputTokens: 0, usd: 0 }),
})
export type BrainstormState = z.infer<typeof sessionStateSchema>

/** What a host shows of a session (the wizard's screens, `ralph brainstorm` counters): no raw ledger. */
export const brainstormViewSchema = z.object({
  id: z.number().int(),
  mode: z.enum(['full', 'quick']),
  phase: z.enum(brainstormPhases),
  pending: pendingSchema.nullable(),
  pitch: z.string().nullable(),
  ideaCount: z.number().int(),
  domainsCovered: z.array(z.string()),
  lens: z.string().nullable(),
  nextPivotAt: z.number().int(),
  nextInterruptAt: z.number().int().nullable(),
  /** The last five ideas (the deltas a long session shows). */
  recentIdeas: z.array(z.object({ id: z.string(), title: z.string(), domain: z.string() })),
  drafts: documentsSchema
    .extend({ visionLines: z.number().int(), roadmapLines: z.number().int() })
    .nullable(),
  problems: z.array(z.string()),
  findings: sessionStateSchema.shape.findings,
  written: z.array(z.string()),
})
export type BrainstormView = z.infer<typeof brainstormViewSchema>
