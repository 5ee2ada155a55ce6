// The task parser's evaluation (`npm run eval`): runs the real parser (prompt, provider call, normalisation) over
// the labelled messages of resources/eval/ and scores it against seed 000's targets. The entry is scripts/eval.ts;
// this module holds what tests drive directly.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { z } from 'zod'
import { describeIssues } from '../src/shared/describeIssues'
import { requirementMarkers, taskTypes, type StructuredTask } from '../src/shared/task'
import type { ModelConfig } from '../src/main/llm/createModel'
import { parseTask } from '../src/main/tasks'
import { memoryLogger } from '../src/main/workspace/logFile'

/** Seed 000's success metrics: classification > 90 %, multi-concern scope markers > 80 %. */
export const TARGETS = { classification: 0.9, markers: 0.8 } as const

const expectedMarkerSchema = z.object({
  marker: z.enum(requirementMarkers),
  /** Checked only when given: the number of items the message names ("add 2 drinks" → 2). */
  count: z.number().int().positive().optional(),
})

const projectContextSchema = z.object({
  planExists: z.boolean(),
  lastSummary: z.string(),
  fileList: z.array(z.string()),
})

export const evalSetSchema = z
  .object({
    description: z.string().optional(),
    projects: z.record(z.string(), projectContextSchema),
    cases: z
      .array(
        z.object({
          id: z.string().min(1),
          project: z.string().min(1),
          message: z.string().min(1),
          expected: z.object({ type: z.enum(taskTypes), markers: z.array(expectedMarkerSchema) }),
        }),
      )
      .min(1),
  })
  .superRefine((set, ctx) => {
    const seen = new Set<string>()
    set.cases.forEach((c, i) => {
      if (seen.has(c.id))
        ctx.addIssue({ code: 'custom', path: ['cases', i, 'id'], message: `duplicate id "${c.id}"` })
      seen.add(c.id)
      if (!Object.hasOwn(set.projects, c.project)) {
        ctx.addIssue({
          code: 'custom',
          path: ['cases', i, 'project'],
          message: `unknown project "${c.project}"`,
        })
      }
    })
  })
export type EvalSet = z.infer<typeof evalSetSchema>
export type EvalCase = EvalSet['cases'][number]
type ExpectedMarker = z.infer<typeof expectedMarkerSchema>

export function loadEvalSet(path: string): EvalSet {
  let raw: unknown
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'))
  } catch (err) {
    throw new Error(`Cannot read the evaluation set ${path}: ${(err as Error).message}`)
  }
  const parsed = evalSetSchema.safeParse(raw)
  if (!parsed.success)
    throw new Error(`${path} is not a valid evaluation set: ${describeIssues(parsed.error.issues)}`)
  return parsed.data
}

export interface MarkerScore {
  /** Primary: the same kinds of markers, and every expected item count on a requirement of its marker. */
  right: boolean
  /** Stricter: also one requirement per expected concern (the same number of each marker). */
  exact: boolean
}

const tally = (markers: string[]) =>
  markers.reduce((m, k) => m.set(k, (m.get(k) ?? 0) + 1), new Map<string, number>())

export function scoreMarkers(
  expected: ExpectedMarker[],
  actual: StructuredTask['requirements'],
): MarkerScore {
  const want = tally(expected.map((m) => m.marker))
  const got = tally(actual.map((r) => r.marker))
  const sameKinds = want.size === got.size && [...want.keys()].every((k) => got.has(k))
  const counts = expected
    .filter((m) => m.count !== undefined)
    .every((m) => actual.some((r) => r.marker === m.marker && r.count === m.count))
  const sameTally = sameKinds && [...want].every(([k, n]) => got.get(k) === n)
  return { right: sameKinds && counts, exact: sameTally && counts }
}

export interface CaseResult {
  id: string
  expectedType: string
  /** What the parser returned; "(fallback)" when it failed and fell back to the template. */
  actualType: string
  typeRight: boolean
  /** Null for cases that expect a clarification question: they have no markers to score. */
  markers: MarkerScore | null
  expectedMarkers: string[]
  actualMarkers: string[]
  fallbackReason: string | null
  durationMs: number
}

export interface Ratio {
  right: number
  total: number
  accuracy: number
}

export interface ModelReport {
  provider: string
  model: string
  cases: number
  classification: Ratio
  markers: Ratio
  exactMarkers: Ratio
  fallbacks: number
  targets: typeof TARGETS
  meetsTargets: boolean
  durationMs: number
  results: CaseResult[]
}

const ratio = (right: number, total: number): Ratio => ({
  right,
  total,
  accuracy: total ? right / total : 0,
})

const describeMarkers = (markers: { marker: string; count?: number | null }[]) =>
  markers.map((m) => (m.count ? `${m.marker}×${m.count}` : m.marker))

/** Parses one labelled message with the real task parser and scores it. A fallback counts as wrong. */
export async function evaluateCase(
  set: EvalSet,
  c: EvalCase,
  model: ModelConfig,
  signal: AbortSignal,
): Promise<CaseResult> {
  const project = set.projects[c.project]!
  const previous = project.planExists || project.lastSummary ? 3 : 0
  const started = performance.now()
  const result = await parseTask({
    message: c.message,
    context: {
      ...project,
      taskNumber: previous + 1,
      previousTag: previous ? `task-${previous}-post` : null,
    },
    model,
    signal,
    logger: memoryLogger(),
  })
  const durationMs = Math.round(performance.now() - started)
  const expectedMarkers = describeMarkers(c.expected.markers)
  if (result.fallback) {
    return {
      id: c.id,
      expectedType: c.expected.type,
      actualType: '(fallback)',
      typeRight: false,
      markers: c.expected.type === 'needs-clarification' ? null : { right: false, exact: false },
      expectedMarkers,
      actualMarkers: [],
      fallbackReason: result.reason,
      durationMs,
    }
  }
  const task = result.task
  return {
    id: c.id,
    expectedType: c.expected.type,
    actualType: task.type,
    typeRight: task.type === c.expected.type,
    markers:
      c.expected.type === 'needs-clarification'
        ? null
        : task.type === 'needs-clarification'
          ? { right: false, exact: false }
          : scoreMarkers(c.expected.markers, task.requirements),
    expectedMarkers,
    actualMarkers: describeMarkers(task.requirements),
    fallbackReason: null,
    durationMs,
  }
}

/** Runs the whole set against one model, one message at a time (a provider's rate limit, and a fair timing). */
export async function runEval(input: {
  set: EvalSet
  model: ModelConfig
  signal?: AbortSignal
  onCase?: (result: CaseResult, index: number, total: number) => void
}): Promise<ModelReport> {
  const signal = input.signal ?? new AbortController().signal
  const started = performance.now()
  const results: CaseResult[] = []
  for (const [i, c] of input.set.cases.entries()) {
    const result = await evaluateCase(input.set, c, input.model, signal)
    results.push(result)
    input.onCase?.(result, i, input.set.cases.length)
  }
  const scored = results.filter((r) => r.markers !== null)
  const classification = ratio(results.filter((r) => r.typeRight).length, results.length)
  const markers = ratio(scored.filter((r) => r.markers!.right).length, scored.length)
  return {
    provider: input.model.provider,
    model: input.model.model,
    cases: results.length,
    classification,
    markers,
    exactMarkers: ratio(scored.filter((r) => r.markers!.exact).length, scored.length),
    fallbacks: results.filter((r) => r.fallbackReason !== null).length,
    targets: TARGETS,
    meetsTargets: classification.accuracy > TARGETS.classification && markers.accuracy > TARGETS.markers,
    durationMs: Math.round(performance.now() - started),
    results,
  }
}

const percent = (r: Ratio) => `${(r.accuracy * 100).toFixed(1)}% (${r.right}/${r.total})`
const mark = (r: Ratio, target: number) => (r.accuracy > target ? '✓' : '✗')

/** The results as a table, one row per model, then the messages each model got wrong. */
export function formatTable(reports: ModelReport[]): string {
  const head = ['model', 'classification', 'markers', 'exact markers', 'fallbacks', 'time']
  const rows = reports.map((r) => [
    `${r.provider}/${r.model}`,
    `${percent(r.classification)} ${mark(r.classification, TARGETS.classification)}`,
    `${percent(r.markers)} ${mark(r.markers, TARGETS.markers)}`,
    percent(r.exactMarkers),
    String(r.fallbacks),
    `${(r.durationMs / 1000).toFixed(1)} s`,
  ])
  const targets = [
    'target (seed 000)',
    `> ${TARGETS.classification * 100}%`,
    `> ${TARGETS.markers * 100}%`,
    '',
    '',
    '',
  ]
  const all = [head, ...rows, targets]
  const widths = head.map((_, i) => Math.max(...all.map((row) => row[i]!.length)))
  const line = (row: string[]) =>
    row
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join('  ')
      .trimEnd()
  const out = [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line), line(targets)]
  for (const r of reports) {
    const wrong = r.results.filter((c) => !c.typeRight || (c.markers && !c.markers.right))
    if (!wrong.length) continue
    out.push('', `${r.provider}/${r.model} got ${wrong.length} message(s) wrong:`)
    for (const c of wrong) {
      const why = c.fallbackReason
        ? `fallback: ${c.fallbackReason}`
        : `${c.expectedType} [${c.expectedMarkers.join(', ')}] → ${c.actualType} [${c.actualMarkers.join(', ')}]`
      out.push(`  ${c.id}: ${why}`)
    }
  }
  return out.join('\n')
}

/** Writes the reports as JSON under `dir` (bench-results/ by default); returns the file's path. */
export function writeReports(dir: string, reports: ModelReport[], setPath: string, now = new Date()): string {
  mkdirSync(dir, { recursive: true })
  const file = join(dir, `eval-${now.getTime()}.json`)
  writeFileSync(
    file,
    `${JSON.stringify({ at: now.toISOString(), set: setPath, targets: TARGETS, reports }, null, 2)}\n`,
  )
  return file
}
