import { AppError, isAppError } from '../../shared/errors'
import { parserAnswerSchema, type StructuredTask } from '../../shared/task'
import {
  type ModelConfig,
  callJson,
  type RetryPolicy,
  type TurnUsage,
  type PriceOverrides,
  safeRecord,
  usageEntry,
  type UsageSink,
} from '../llm'
import { loadPrompt, promptParts, type Logger } from '../workspace'

export interface ParseContext {
  planExists: boolean
  /** summary.md of the previous task ('' when none). */
  lastSummary: string
  /** Project-relative paths; capped in the prompt. */
  fileList: string[]
  taskNumber: number
  previousTag: string | null
}

export interface ParseTaskInput {
  message: string
  context: ParseContext
  /** Null when no provider is configured: the parser falls back to the template at once. */
  model: ModelConfig | null
  signal: AbortSignal
  usage?: UsageSink
  prices?: PriceOverrides
  /** Default 30 s. */
  timeoutMs?: number
  /** Default: 2 retries (the parse must not hold a task up for long). */
  retry?: Partial<RetryPolicy>
  /** Where a usage row that could not be recorded is noted (the core's log; tests pass `memoryLogger()`). */
  logger: Logger
}

export interface ParseTaskResult {
  task: StructuredTask
  /** True when the template was used instead of a parse (render with `fallback: true`). */
  fallback: boolean
  /** Why the parser fell back (plain words); null on success. */
  reason: string | null
}

export const FILE_LIST_CAP = 200
const SUMMARY_CAP = 2000
const DEFAULT_TIMEOUT_MS = 30_000

let templateCache: { system: string; user: string } | null = null

/** The parser prompt from resources/prompts/task-parser.md: `<!-- system -->` and `<!-- user -->` parts. */
export function loadParserTemplate(): { system: string; user: string } {
  if (templateCache) return templateCache
  const parts = promptParts(loadPrompt('task-parser'), ['system', 'user'])
  if (!parts)
    throw new AppError('internal', 'resources/prompts/task-parser.md lacks its system/user markers.')
  templateCache = parts
  return templateCache
}

/** Fills `{{name}}` placeholders in one pass (values are never re-scanned, so a message may contain braces). */
export function fillTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (whole, name: string) =>
    Object.hasOwn(values, name) ? values[name]! : whole,
  )
}

export function formatFileList(files: string[], cap = FILE_LIST_CAP): string {
  if (!files.length) return '(the project is empty)'
  const shown = files.slice(0, cap).map((f) => `- ${f}`)
  if (files.length > cap) shown.push(`… and ${files.length - cap} more`)
  return shown.join('\n')
}

/** The system and user prompt of the parse call (exported for tests and the benchmark's size estimate). */
export function buildParserPrompt(
  message: string,
  context: ParseContext,
): { system: string; prompt: string } {
  const template = loadParserTemplate()
  const summary = context.lastSummary.trim()
  const prompt = fillTemplate(template.user, {
    taskNumber: String(context.taskNumber),
    previousTag: context.previousTag ?? 'none (first task)',
    planExists: context.planExists ? 'exists' : 'does not exist',
    lastSummary: summary
      ? summary.length > SUMMARY_CAP
        ? `${summary.slice(0, SUMMARY_CAP)}… (truncated)`
        : summary
      : '(none)',
    fileList: formatFileList(context.fileList),
    message,
  })
  return { system: template.system, prompt }
}

function shortTitle(message: string): string {
  const first =
    message
      .trim()
      .split(/\r?\n/)
      .find((l) => l.trim()) ?? ''
  const line = first.replace(/\s+/g, ' ').trim()
  if (!line) return 'Untitled task'
  return line.length > 80 ? `${line.slice(0, 77)}…` : line
}

/**
 * The fallback task (seed 000 §5 option B): the raw message, no requirements, Ralph decomposes it while planning.
 * Its type is `mutation` when a plan exists (the existing plan is updated with markers, never thrown away or
 * skipped) and `fresh` otherwise; never `bugfix` (which would skip planning) nor `needs-clarification` (a failed
 * parse must not block the task). task.md shows it as "Type: pending".
 */
export function templateTask(message: string, context?: { planExists?: boolean }): StructuredTask {
  return {
    type: context?.planExists ? 'mutation' : 'fresh',
    title: shortTitle(message),
    requirements: [],
    scope: { preserve: [], affectedFiles: [] },
    clarification: null,
  }
}

const EXPLICIT_REMOVAL =
  /\b(remove|removing|delete|deleting|drop|get rid of|eliminate|take out|strip out|erase|discard|purge|ditch|cut)\b/i

/** A generic but useful question when the model flagged ambiguity without asking anything. */
export function defaultClarification(task: StructuredTask): string {
  const subject = task.title ? `"${task.title}"` : 'this request'
  return `Before I start on ${subject}: should this add new things alongside what already exists, or change existing ones? Please say what must stay exactly as it is.`
}

/** Applies the rules the prompt states, so a sloppy model cannot bend them. */
function normalize(task: StructuredTask, message: string, context: ParseContext): StructuredTask {
  let type = task.type
  // "mutation" needs a plan to mutate (seed 000 §5): without one the task starts fresh.
  if (type === 'mutation' && !context.planExists) type = 'fresh'
  const requirements = task.requirements.map((r) =>
    // REMOVE is explicit only: never implied by the parser.
    r.marker === 'REMOVE' && !EXPLICIT_REMOVAL.test(message) ? { ...r, marker: 'MODIFY' as const } : r,
  )
  if (!requirements.length && type !== 'needs-clarification') {
    const marker = type === 'bugfix' ? 'FIX' : type === 'mutation' ? 'MODIFY' : 'ADD'
    requirements.push({ marker, description: shortTitle(message), count: null })
  }
  const clarification =
    type === 'needs-clarification' ? task.clarification?.trim() || defaultClarification(task) : null
  const affectedFiles = [...new Set(task.scope.affectedFiles.map((f) => f.trim()).filter(Boolean))]
  const preserve = task.scope.preserve.map((p) => p.trim()).filter(Boolean)
  // Quick replies belong to a question: none without one, each once.
  const options = clarification ? [...new Set((task.clarificationOptions ?? []).map((o) => o.trim()))] : []
  return {
    type,
    title: task.title.trim(),
    requirements,
    scope: { preserve, affectedFiles },
    clarification,
    ...(options.length ? { clarificationOptions: options } : {}),
  }
}

/**
 * Turns a user message into a structured task with one JSON-only LLM call (DESIGN.md §8, seed 000 §5 option A).
 * Never throws except AppError('cancelled'): with no model, a provider failure, a timeout, invalid JSON or a
 * schema mismatch it returns the template task with `fallback: true` and the reason.
 */
export async function parseTask(input: ParseTaskInput): Promise<ParseTaskResult> {
  const { message, context } = input
  const fallback = (reason: string): ParseTaskResult => ({
    task: templateTask(message, context),
    fallback: true,
    reason,
  })
  if (input.signal.aborted) throw new AppError('cancelled', 'The task was stopped.')
  if (!input.model) return fallback('No LLM provider is configured, so the message was kept as written.')
  const model = input.model
  const record = (usage: TurnUsage, durationMs: number) =>
    safeRecord(
      input.usage,
      usageEntry({
        purpose: 'parse',
        model,
        usage,
        durationMs,
        taskNumber: context.taskNumber,
        iteration: null,
        prices: input.prices,
      }),
      input.logger,
    )

  try {
    const { system, prompt } = buildParserPrompt(message, context)
    const result = await callJson({
      model,
      system,
      prompt,
      schema: parserAnswerSchema,
      signal: input.signal,
      timeoutMs: input.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      retry: { maxRetries: 2, ...input.retry },
      maxOutputTokens: 2000,
    })
    record(result.usage, result.durationMs)
    return { task: normalize(result.value, message, context), fallback: false, reason: null }
  } catch (err) {
    if (isAppError(err, 'cancelled') || input.signal.aborted) {
      throw isAppError(err, 'cancelled') ? err : new AppError('cancelled', 'The task was stopped.')
    }
    const details = isAppError(err)
      ? (err.details as { usage?: TurnUsage; durationMs?: number } | undefined)
      : undefined
    if (details?.usage) record(details.usage, details.durationMs ?? 0)
    const why = err instanceof Error ? err.message : String(err)
    return fallback(`The task parser failed (${why}), so the message was kept as written.`)
  }
}
