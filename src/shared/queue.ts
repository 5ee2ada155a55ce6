import { z } from 'zod'
import { criterionKindSchema } from './verdicts'

/**
 * The work queue (DESIGN.md §16, seed 001): `.ralph/plan.jsonl` records, the views the queries return and the
 * inputs of the queue's commands. The file's record shapes are lenient on purpose (loose objects keep fields a
 * newer version or a person added); the views are what the CLI, the API and the Queue panel show.
 */

export const priorities = ['high', 'medium', 'low'] as const
export type Priority = (typeof priorities)[number]

export const stages = ['PLAN', 'BUILD', 'VERIFY', 'INVESTIGATE', 'COMPLETE'] as const
export type Stage = (typeof stages)[number]

/** Ids this version generates: a prefix and four random characters of [0-9a-z] (seed 001's `t-1a2b`, `i-7g8h`). */
export const TASK_ID_PATTERN = /^t-[0-9a-z]{4,}$/
export const ISSUE_ID_PATTERN = /^i-[0-9a-z]{4,}$/
// Loading accepts any reasonable id a person or an older tool wrote; only generation is strict.
export const ANY_TASK_ID = /^t-[A-Za-z0-9_.-]+$/
export const ANY_ISSUE_ID = /^i-[A-Za-z0-9_.-]+$/
const loadedTaskId = z.string().regex(ANY_TASK_ID, 'a task id is "t-" followed by letters or digits')
const loadedIssueId = z.string().regex(ANY_ISSUE_ID, 'an issue id is "i-" followed by letters or digits')

export const specRecordSchema = z.looseObject({
  t: z.literal('spec'),
  spec: z.string().min(1),
})

export const taskRecordSchema = z.looseObject({
  t: z.literal('task'),
  id: loadedTaskId,
  spec: z.string().min(1),
  name: z.string().min(1),
  notes: z.string().optional(),
  /** Seed 001 files hold one string (one criterion per line); this version writes an array. */
  accept: z.union([z.string(), z.array(z.string())]).optional(),
  deps: z.array(loadedTaskId).optional(),
  s: z.enum(['p', 'd']),
  done_at: z.string().optional(),
  priority: z.enum(priorities).optional(),
  reject: z.string().optional(),
  kill: z.enum(['timeout', 'context']).optional(),
  kill_log: z.string().optional(),
  parent: loadedTaskId.optional(),
  created_from: loadedIssueId.optional(),
  supersedes: loadedTaskId.optional(),
})

export const issueRecordSchema = z.looseObject({
  t: z.literal('issue'),
  id: loadedIssueId,
  spec: z.string().min(1),
  desc: z.string().min(1),
})

/** A tombstone: a done task that failed verification (seed 001 "Task Rejection"). */
export const rejectRecordSchema = z.looseObject({
  t: z.literal('reject'),
  id: loadedTaskId,
  done_at: z.string(),
  reason: z.string(),
})

export const planRecordSchema = z.discriminatedUnion('t', [
  specRecordSchema,
  taskRecordSchema,
  issueRecordSchema,
  rejectRecordSchema,
])

export type SpecRecord = z.infer<typeof specRecordSchema>
export type TaskRecord = z.infer<typeof taskRecordSchema>
export type IssueRecord = z.infer<typeof issueRecordSchema>
export type RejectRecord = z.infer<typeof rejectRecordSchema>
export type PlanRecord = z.infer<typeof planRecordSchema>

// ---- views ----

export const criterionSchema = z.object({
  /** AC1, AC2 … in the order the task lists them. */
  ref: z.string(),
  kind: criterionKindSchema,
  text: z.string(),
  /** False when the criterion had no DET:/LLM: tag and counts as LLM. */
  tagged: z.boolean(),
})
export type Criterion = z.infer<typeof criterionSchema>

export const taskViewSchema = z.object({
  id: z.string(),
  spec: z.string(),
  name: z.string(),
  notes: z.string().nullable(),
  accept: z.array(criterionSchema),
  deps: z.array(z.string()),
  status: z.enum(['pending', 'done']),
  priority: z.enum(priorities),
  doneAt: z.string().nullable(),
  reject: z.string().nullable(),
  kill: z.enum(['timeout', 'context']).nullable(),
  killLog: z.string().nullable(),
  parent: z.string().nullable(),
  createdFrom: z.string().nullable(),
  supersedes: z.string().nullable(),
  /** Pending tasks whose dependencies are not all done yet (a dependency no longer in the file was accepted). */
  blockedBy: z.array(z.string()),
  /** 1-based line in plan.jsonl; null for a task not written yet. */
  line: z.number().int().nullable(),
})
export type TaskView = z.infer<typeof taskViewSchema>

export const issueViewSchema = z.object({
  id: z.string(),
  spec: z.string(),
  desc: z.string(),
  line: z.number().int().nullable(),
})
export type IssueView = z.infer<typeof issueViewSchema>

export const tombstoneViewSchema = z.object({
  id: z.string(),
  doneAt: z.string(),
  reason: z.string(),
  line: z.number().int().nullable(),
})
export type TombstoneView = z.infer<typeof tombstoneViewSchema>

/** A line of plan.jsonl that is not a valid record: reported, never dropped, written back byte for byte. */
export const malformedLineSchema = z.object({ line: z.number().int(), text: z.string(), error: z.string() })
export type MalformedLine = z.infer<typeof malformedLineSchema>

export const queueWarningSchema = z.object({ line: z.number().int().nullable(), message: z.string() })
export type QueueWarning = z.infer<typeof queueWarningSchema>

export const queueViewSchema = z.object({
  /** False when `.ralph/plan.jsonl` does not exist (stage PLAN). */
  exists: z.boolean(),
  spec: z.string().nullable(),
  stage: z.enum(stages),
  tasks: z.array(taskViewSchema),
  /** Ids of the pending tasks in the order `ralph build` takes them (dependencies, then priority, then file order). */
  order: z.array(z.string()),
  issues: z.array(issueViewSchema),
  tombstones: z.array(tombstoneViewSchema),
  malformed: z.array(malformedLineSchema),
  warnings: z.array(queueWarningSchema),
})
export type QueueView = z.infer<typeof queueViewSchema>

export const nextActionSchema = z.discriminatedUnion('action', [
  z.object({ action: z.literal('plan'), stage: z.literal('PLAN'), reason: z.string() }),
  z.object({ action: z.literal('build'), stage: z.literal('BUILD'), task: taskViewSchema }),
  /** Pending tasks exist but none can start (a dependency cycle, or a dependency on a task with a duplicate id). */
  z.object({
    action: z.literal('blocked'),
    stage: z.literal('BUILD'),
    tasks: z.array(taskViewSchema),
    reason: z.string(),
  }),
  z.object({ action: z.literal('verify'), stage: z.literal('VERIFY'), task: taskViewSchema }),
  z.object({ action: z.literal('investigate'), stage: z.literal('INVESTIGATE'), issue: issueViewSchema }),
  z.object({ action: z.literal('none'), stage: z.literal('COMPLETE') }),
])
export type NextAction = z.infer<typeof nextActionSchema>

export const mutationResultSchema = z.object({
  /** What changed, in one line (also the first line of the history commit). */
  message: z.string(),
  /** The history commit on refs/ralph/queue; null when the file did not change. */
  commit: z.string().nullable(),
  /** Ids the mutation created or touched, in order. */
  ids: z.array(z.string()),
  /** About this change only (an untagged criterion …); the state's warnings cover the whole file. */
  warnings: z.array(z.string()),
  state: queueViewSchema,
})
export type MutationResult = z.infer<typeof mutationResultSchema>

// ---- pre-flight of a `ralph plan <spec>`-style start (seed 001 "Plan Command - Unfinished Tasks") ----

export const preflightChoiceSchema = z.object({
  key: z.enum(['c', 'a']),
  choice: z.enum(['cancel', 'abort']),
  label: z.string(),
})

export const preflightSchema = z.object({
  /** False when nothing is unfinished: the start goes ahead without asking. */
  needsChoice: z.boolean(),
  fromSpec: z.string().nullable(),
  unfinished: z.array(z.object({ status: z.enum(['pending', 'done']), id: z.string(), name: z.string() })),
  /** The prompt as seed 001 prints it; empty when no choice is needed. */
  prompt: z.string(),
  choices: z.array(preflightChoiceSchema),
})
export type Preflight = z.infer<typeof preflightSchema>

// ---- history (`ralph log`) ----

export const historyPointSchema = z.object({ commit: z.string(), date: z.string() })
export type HistoryPoint = z.infer<typeof historyPointSchema>

export const logEntrySchema = z.object({
  commit: z.string(),
  date: z.string(),
  /** The operation (task-add, task-done …); "unknown" for a commit this version did not write. */
  op: z.string(),
  message: z.string(),
  ids: z.array(z.string()),
  spec: z.string().nullable(),
})
export type LogEntry = z.infer<typeof logEntrySchema>

export const taskOutcomes = ['pending', 'done', 'accepted', 'rejected', 'cancelled'] as const
export type TaskOutcome = (typeof taskOutcomes)[number]

export const taskHistorySchema = z.object({
  id: z.string(),
  name: z.string(),
  /** Seed 001's history format calls the task's name `desc`. */
  desc: z.string(),
  spec: z.string(),
  status: z.enum(taskOutcomes),
  created: historyPointSchema,
  done: historyPointSchema.nullable(),
  accepted: historyPointSchema.nullable(),
  rejected: historyPointSchema.extend({ reason: z.string() }).nullable(),
  cancelled: historyPointSchema.nullable(),
  /** Every failed verification of this task, oldest first (a retried task can fail more than once). */
  rejections: z.array(historyPointSchema.extend({ reason: z.string(), doneAt: z.string() })),
})
export type TaskHistory = z.infer<typeof taskHistorySchema>

// ---- command inputs (the CLI and the API validate with these; the project comes from the caller) ----

const nonEmpty = z.string().trim().min(1)

export const taskAddInputSchema = z.object({
  name: nonEmpty,
  notes: z.string().optional(),
  accept: z.array(z.string()).optional(),
  deps: z.array(z.string()).optional(),
  priority: z.enum(priorities).optional(),
  spec: z.string().optional(),
  parent: z.string().optional(),
  createdFrom: z.string().optional(),
  supersedes: z.string().optional(),
})
export type TaskAddInput = z.infer<typeof taskAddInputSchema>

export const taskEditInputSchema = z.object({
  id: nonEmpty,
  name: nonEmpty.optional(),
  notes: z.string().optional(),
  accept: z.array(z.string()).optional(),
  deps: z.array(z.string()).optional(),
  priority: z.enum(priorities).optional(),
})
export type TaskEditInput = z.infer<typeof taskEditInputSchema>

export const taskDoneInputSchema = z.object({ id: z.string().optional(), doneAt: z.string().optional() })
export const taskAcceptInputSchema = z.object({ ids: z.array(z.string()).optional() })
export const taskRejectInputSchema = z.object({ reason: nonEmpty, id: z.string().optional() })
export const taskCancelInputSchema = z.object({ id: nonEmpty })
export const issueAddInputSchema = z.object({ desc: nonEmpty, spec: z.string().optional() })
export const issueDoneInputSchema = z.object({ id: z.string().optional() })
export const setSpecInputSchema = z.object({ spec: nonEmpty })
export const startSpecInputSchema = z.object({
  spec: nonEmpty,
  /** The answer to the pre-flight; without one, unfinished tasks make the start return `needs-choice`. */
  onUnfinished: z.enum(['cancel', 'abort']).optional(),
})
export const logInputSchema = z.object({
  all: z.boolean().optional(),
  spec: z.string().optional(),
  since: z.string().optional(),
  limit: z.number().int().positive().optional(),
})
export type LogInput = z.infer<typeof logInputSchema>

export const startSpecResultSchema = z.object({
  outcome: z.enum(['started', 'aborted', 'needs-choice']),
  preflight: preflightSchema,
  /** The mutation when the start went ahead. */
  result: mutationResultSchema.nullable(),
})
export type StartSpecResult = z.infer<typeof startSpecResultSchema>

export const logResultSchema = z.discriminatedUnion('kind', [
  /** `ralph log`: the recent changes, newest first. */
  z.object({ kind: z.literal('changes'), entries: z.array(logEntrySchema) }),
  /** `ralph log --all`: every task ever, reconstructed from the history ref, oldest first. */
  z.object({ kind: z.literal('tasks'), tasks: z.array(taskHistorySchema) }),
])
export type LogResult = z.infer<typeof logResultSchema>

// ---- spec files (the Queue panel's spec editor) ----

/** Where the Queue panel proposes new specs: markdown files in this project folder. */
export const SPEC_FOLDER = 'specs'
export const SPEC_MAX_CHARS = 200_000

/**
 * What is wrong with a spec path the user typed, in words for the field, or null when it will do: a markdown file,
 * relative to the project, inside it, and not in Ralph's own `.ralph/` or in `.git`.
 */
export function specPathProblem(input: string): string | null {
  const path = input.trim().replace(/\\/g, '/')
  if (path === '') return 'Name the spec file, for example specs/feature.md.'
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path) || path.startsWith('~'))
    return 'Use a path inside the project, relative to its folder (specs/feature.md).'
  const parts = path.split('/').filter((p) => p !== '' && p !== '.')
  let depth = 0
  for (const p of parts) {
    depth += p === '..' ? -1 : 1
    if (depth < 0) return 'That path leaves the project folder: keep the spec inside it.'
  }
  if (parts[0] === '.ralph' || parts[0] === '.git' || parts.includes('.git'))
    return 'That folder belongs to Ralph or to git: put the spec in the project’s own files (specs/…).'
  if (!/\.(md|markdown)$/i.test(path)) return 'A spec is a markdown file: end the name with .md.'
  return null
}

/** A spec path proposed from a title: `specs/<words-joined-by-dashes>.md`. */
export function specPathFor(title: string): string {
  const slug = title
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48)
    .replace(/-+$/, '')
  return `${SPEC_FOLDER}/${slug || 'tasks'}.md`
}
