import { z } from 'zod'
import { defineCalls } from './define'

const projectId = z.number().int().positive()
const taskNumber = z.number().int().positive()
/** Plan text from an editor buffer; the calls read `.ralph/plan.tsx` when it is absent. */
const planText = z.string().max(5_000_000)

export const positionSchema = z.object({
  line: z.number().int(),
  column: z.number().int(),
  offset: z.number().int(),
})

export type PlanPropValue =
  | { kind: 'string'; value: string }
  | { kind: 'number'; value: number }
  | { kind: 'boolean'; value: boolean }
  | { kind: 'null' }
  | { kind: 'array'; items: PlanPropValue[] }
  | { kind: 'object'; entries: Record<string, PlanPropValue> }
  | { kind: 'expression'; text: string }

export const propValueSchema: z.ZodType<PlanPropValue> = z.lazy(() =>
  z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('string'), value: z.string() }),
    z.object({ kind: z.literal('number'), value: z.number() }),
    z.object({ kind: z.literal('boolean'), value: z.boolean() }),
    z.object({ kind: z.literal('null') }),
    z.object({ kind: z.literal('array'), items: z.array(propValueSchema) }),
    z.object({ kind: z.literal('object'), entries: z.record(z.string(), propValueSchema) }),
    z.object({ kind: z.literal('expression'), text: z.string() }),
  ]),
)

export const markerSchema = z.object({
  kind: z.enum(['ADD', 'MODIFY', 'FIX', 'REMOVE', 'NO_CHANGES', 'PRESERVED']),
  task: z.number().int().nullable(),
  description: z.string(),
  count: z.number().int().nullable(),
  noun: z.string().nullable(),
})
export type PlanMarker = z.infer<typeof markerSchema>

export const planCommentSchema = z.object({
  text: z.string(),
  pos: positionSchema,
  end: positionSchema,
  marker: markerSchema.nullable(),
  problem: z.string().nullable(),
})

export interface PlanElementDto {
  tag: string
  props: {
    name: string
    value: PlanPropValue
    pos: z.infer<typeof positionSchema>
    end: z.infer<typeof positionSchema>
  }[]
  children: PlanElementDto[]
  comments: z.infer<typeof planCommentSchema>[]
  text: string
  pos: z.infer<typeof positionSchema>
  end: z.infer<typeof positionSchema>
  tagPos: z.infer<typeof positionSchema>
  tagEnd: z.infer<typeof positionSchema>
}

export const planElementSchema: z.ZodType<PlanElementDto> = z.lazy(() =>
  z.object({
    tag: z.string(),
    props: z.array(
      z.object({ name: z.string(), value: propValueSchema, pos: positionSchema, end: positionSchema }),
    ),
    children: z.array(planElementSchema),
    comments: z.array(planCommentSchema),
    text: z.string(),
    pos: positionSchema,
    end: positionSchema,
    tagPos: positionSchema,
    tagEnd: positionSchema,
  }),
)

/** A validation finding (PLAN_LANGUAGE.md "Validation"); rule ids are stable. */
export const planFindingSchema = z.object({
  rule: z.string(),
  severity: z.enum(['failure', 'warning']),
  message: z.string(),
  line: z.number().int(),
  column: z.number().int(),
  endLine: z.number().int().optional(),
  endColumn: z.number().int().optional(),
})
export type PlanFinding = z.infer<typeof planFindingSchema>

/** One scope-gate or plan-diff-gate result. */
export const gateResultSchema = z.object({
  gate: z.string(),
  severity: z.enum(['failure', 'warning', 'pass']),
  message: z.string(),
  file: z.string().nullable(),
  section: z.string(),
})
export type GateResultDto = z.infer<typeof gateResultSchema>

export const planSectionSummarySchema = z.object({
  screen: z.string().nullable(),
  gumdrop: z.string().nullable(),
  files: z.array(z.string()),
  label: z.string(),
  line: z.number().int(),
  markers: z.array(markerSchema),
})

export const planShowSchema = z.object({
  path: z.string(),
  /** False when there is no plan file (and no text was given). */
  exists: z.boolean(),
  root: planElementSchema.nullable(),
  errors: z.array(z.object({ message: z.string(), line: z.number().int(), column: z.number().int() })),
  imports: z.array(z.string()),
  lineCount: z.number().int(),
  sections: z.array(planSectionSummarySchema),
})
export type PlanShow = z.infer<typeof planShowSchema>

export const planValidationSchema = z.object({
  path: z.string(),
  exists: z.boolean(),
  valid: z.boolean(),
  taskNumber: z.number().int().nullable(),
  findings: z.array(planFindingSchema),
})
export type PlanValidation = z.infer<typeof planValidationSchema>

const sectionRefSchema = z.object({
  screen: z.string().nullable(),
  gumdrop: z.string().nullable(),
  label: z.string(),
  line: z.number().int(),
})
const markerChangeSchema = z.object({ element: z.string(), marker: markerSchema, line: z.number().int() })

export const planDiffSchema = z.object({
  screensAdded: z.array(z.string()),
  screensRemoved: z.array(z.string()),
  sectionsAdded: z.array(sectionRefSchema),
  sectionsRemoved: z.array(sectionRefSchema),
  sectionsChanged: z.array(
    z.object({
      section: sectionRefSchema,
      changes: z.array(
        z.object({ name: z.string(), before: z.string().nullable(), after: z.string().nullable() }),
      ),
    }),
  ),
  markersAdded: z.array(markerChangeSchema),
  markersRemoved: z.array(markerChangeSchema),
  identical: z.boolean(),
})
export type PlanDiffDto = z.infer<typeof planDiffSchema>

export const planDiffResultSchema = z.object({
  path: z.string(),
  /** What the current plan was compared with: a given earlier text, the task-N-pre snapshot, or nothing. */
  against: z.enum(['text', 'snapshot', 'none']),
  diff: planDiffSchema.nullable(),
  /** Human-readable summary (the CLI's output). */
  summary: z.string(),
})

export const planCalls = defineCalls({
  'plan.show': {
    input: z.object({ projectId, text: planText.optional() }).strict(),
    output: planShowSchema,
  },
  'plan.validate': {
    input: z.object({ projectId, text: planText.optional(), taskNumber: taskNumber.optional() }).strict(),
    output: planValidationSchema,
  },
  'plan.diff': {
    input: z
      .object({
        projectId,
        /** The earlier plan; without it, the plan at task-N-pre of the current task. */
        beforeText: planText.optional(),
        text: planText.optional(),
      })
      .strict(),
    output: planDiffResultSchema,
  },
})
