import { z } from 'zod'
import { projectId, projectOnly } from './common'
import { defineCalls, defineEvents } from './define'

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

/** Where a line range sits in one version of the plan (1-based, inclusive). */
const lineRangeSchema = z.object({ line: z.number().int(), endLine: z.number().int() })

const diffMarkerSchema = markerSchema.extend({ line: z.number().int() })

export const diffStatusSchema = z.enum(['added', 'removed', 'renamed', 'moved', 'changed', 'unchanged'])
export type DiffStatus = z.infer<typeof diffStatusSchema>

/**
 * One element of the structural plan diff: the app (its props, Theme and Data), a screen, or a section.
 * `status` is about structure (props, children, position); marker changes are listed beside it, so a section
 * whose only change is a marker stays `unchanged` with `markersAdded`.
 */
export interface PlanDiffNodeDto {
  kind: 'app' | 'screen' | 'section'
  /** Screen name, section gumdrop, or the App's name. */
  name: string | null
  /** The earlier name of a renamed screen (or the earlier gumdrop of a section matched by position). */
  previousName: string | null
  label: string
  status: DiffStatus
  before: z.infer<typeof lineRangeSchema> | null
  after: z.infer<typeof lineRangeSchema> | null
  props: { name: string; before: string | null; after: string | null }[]
  markersAdded: z.infer<typeof diffMarkerSchema>[]
  markersRemoved: z.infer<typeof diffMarkerSchema>[]
  children: PlanDiffNodeDto[]
}

export const planDiffNodeSchema: z.ZodType<PlanDiffNodeDto> = z.lazy(() =>
  z.object({
    kind: z.enum(['app', 'screen', 'section']),
    name: z.string().nullable(),
    previousName: z.string().nullable(),
    label: z.string(),
    status: diffStatusSchema,
    before: lineRangeSchema.nullable(),
    after: lineRangeSchema.nullable(),
    props: z.array(
      z.object({ name: z.string(), before: z.string().nullable(), after: z.string().nullable() }),
    ),
    markersAdded: z.array(diffMarkerSchema),
    markersRemoved: z.array(diffMarkerSchema),
    children: z.array(planDiffNodeSchema),
  }),
)

export const structuralDiffSchema = z.object({
  nodes: z.array(planDiffNodeSchema),
  counts: z.object({
    added: z.number().int(),
    removed: z.number().int(),
    renamed: z.number().int(),
    moved: z.number().int(),
    changed: z.number().int(),
    markersAdded: z.number().int(),
    markersRemoved: z.number().int(),
  }),
  identical: z.boolean(),
})
export type StructuralDiff = z.infer<typeof structuralDiffSchema>

/** One side of a comparison: a snapshot tag, or the working copy (`working`). */
export const planVersionSchema = z.union([
  z.literal('working'),
  z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/, 'a snapshot tag such as task-2-pre, or working'),
])

/** Plan against implementation: one marked section, its files, and the gates' verdicts with their numbers. */
export const sectionVerdictSchema = z.object({
  section: z.string(),
  line: z.number().int(),
  markers: z.array(markerSchema),
  files: z.array(
    z.object({
      path: z.string(),
      changed: z.boolean(),
      existsBefore: z.boolean(),
      existsAfter: z.boolean(),
    }),
  ),
  verdicts: z.array(gateResultSchema),
})
export type SectionVerdict = z.infer<typeof sectionVerdictSchema>

export const planCompareSchema = z.object({
  from: z.string(),
  to: z.string(),
  /** The task the markers and gates are read for (from the tags, else the plan's markers), or null. */
  task: z.number().int().nullable(),
  fromText: z.string().nullable(),
  toText: z.string().nullable(),
  diff: structuralDiffSchema,
  implementation: z.array(sectionVerdictSchema),
  summary: z.string(),
})
export type PlanCompare = z.infer<typeof planCompareSchema>

export const planFileSchema = z.object({
  path: z.string(),
  exists: z.boolean(),
  text: z.string(),
  /** Content hash: a save names the version it edited, so an on-disk change in between is noticed. */
  version: z.string(),
  /** A task is running: the loop owns the plan, and the editor follows it read-only. */
  taskRunning: z.boolean(),
  taskNumber: z.number().int().nullable(),
})
export type PlanFile = z.infer<typeof planFileSchema>

export const markerHintSchema = z.object({
  line: z.number().int(),
  kind: markerSchema.shape.kind,
  /** What the gate will check, with the numbers where they are known. */
  message: z.string(),
})
export type MarkerHint = z.infer<typeof markerHintSchema>

export const outlineSectionSchema = z.object({
  gumdrop: z.string().nullable(),
  line: z.number().int(),
  files: z.array(z.string()),
  markers: z.array(markerSchema.shape.kind),
})
export const outlineScreenSchema = z.object({
  name: z.string().nullable(),
  line: z.number().int(),
  markers: z.array(markerSchema.shape.kind),
  sections: z.array(outlineSectionSchema),
})
export type OutlineScreen = z.infer<typeof outlineScreenSchema>

export const planAnalysisSchema = z.object({
  valid: z.boolean(),
  taskNumber: z.number().int().nullable(),
  findings: z.array(planFindingSchema),
  markers: z.array(markerHintSchema),
  outline: z.array(outlineScreenSchema),
})
export type PlanAnalysis = z.infer<typeof planAnalysisSchema>

export const planCalls = defineCalls({
  /** The plan file as the editor opens it. */
  'plan.read': {
    input: projectOnly,
    output: planFileSchema,
  },
  /**
   * Writes .ralph/plan.tsx atomically. Refused while a task runs (busy), and when the file changed on disk since
   * `baseVersion` (invalid-input, details `{ conflict: true }`) unless `force`.
   */
  'plan.save': {
    mutates: true,
    input: z
      .object({
        projectId,
        text: planText,
        baseVersion: z.string().optional(),
        force: z.boolean().optional(),
      })
      .strict(),
    output: z.object({ path: z.string(), version: z.string() }),
  },
  /**
   * What the editor shows as you type, in one round trip: the validation findings, every marker line with what
   * its gate will check (counts read from the section's files), and the outline.
   */
  'plan.analyze': {
    input: z.object({ projectId, text: planText }).strict(),
    output: planAnalysisSchema,
  },
  /**
   * Two versions of the plan (snapshot tags or the working copy): the structural diff, both texts, and the plan
   * against the implementation. Without from/to: the last task's pre against its post (or the working copy).
   */
  'plan.compare': {
    input: z
      .object({ projectId, from: planVersionSchema.optional(), to: planVersionSchema.optional() })
      .strict(),
    output: planCompareSchema,
  },
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

export const planEvents = defineEvents({
  /** .ralph/plan.tsx was written through plan.save. */
  'plan.changed': z.object({ projectId, version: z.string() }),
})
