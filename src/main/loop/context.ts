import { createHash } from 'node:crypto'
import type { StructuredTask } from '../../shared/task'
import type { PromptCacheHints } from '../llm'
import { formatFileList, listProjectFiles, type ProjectFileList } from './fileList'
import {
  clipLines,
  describeAffectedSections,
  findAffectedSections,
  parsePlan,
  PLAN_PROMPT_CHARS,
  planForPrompt,
  tailChars,
  type Plan,
} from '../plan'
import { estimateTokens, renderTemplate } from './prompts'
import type { Phase, RalphState } from './ralphState'
import { readProjectRules } from './rulesFiles'

/**
 * One iteration's prompt, laid out stable-first for prompt caching: the system prompt (the instructions, then the
 * project's rules files), then the phase's guidance; the user message's task, plan and history, then the
 * iteration's header, feedback, file list and progress. `cache` says where the parts that stay byte-identical
 * across the task's iterations end.
 */
export interface IterationPrompt {
  system: string
  user: string
  tokensEstimate: number
  cache: PromptCacheHints
}

/** Names one task of one project for the provider's cache (OpenAI `prompt_cache_key`, at most 64 characters). */
export function promptCacheKey(projectDir: string, taskNumber: number): string {
  return `ralph-${createHash('sha256').update(`${projectDir}\0${taskNumber}`).digest('hex').slice(0, 32)}`
}

/** The files an iteration's prompt names at most (the rest are counted). */
export const ITERATION_FILE_LIST_CAP = 300
const MAX_FILE_CHARS = 60_000
/** The harness's hint of affected sections in the system prompt: one line per section, so it grows with the plan. */
const AFFECTED_HINT_CHARS = 6_000
/** task-history.md's last lines: each holds a model-written title, so the characters are capped too. */
const HISTORY_LINES = 20
const HISTORY_CHARS = 6_000
/** The file list: 300 names, but a name may be long. */
const FILE_LIST_CHARS = 24_000

function bounded(text: string, empty: string, max = MAX_FILE_CHARS): string {
  const trimmed = text.trim()
  if (!trimmed) return empty
  if (trimmed.length <= max) return trimmed
  return `${trimmed.slice(0, max)}\n… (truncated: ${trimmed.length - max} more characters; use read_file to see the rest)`
}

function lastLines(text: string, n: number): string {
  const lines = text.trim().split('\n')
  return lines.length <= n
    ? lines.join('\n')
    : [`… (${lines.length - n} earlier lines)`, ...lines.slice(-n)].join('\n')
}

function phaseGuidance(
  phase: Phase,
  task: StructuredTask | null,
  taskNumber: number,
  plan: () => Plan | null,
): string {
  const type = task?.type ?? 'fresh'
  if (phase === 'build') return renderTemplate('phase-build', { task: taskNumber })
  if (type === 'bugfix') return renderTemplate('task-direct', { taskType: 'bugfix' })
  const parsed = type === 'mutation' && task ? plan() : null
  if (parsed && task) {
    const affected = findAffectedSections(parsed, task)
    const hint = clipLines(
      describeAffectedSections(affected, taskNumber),
      AFFECTED_HINT_CHARS,
      'the plan outline in the message lists every section',
    )
    return renderTemplate('phase-plan-mutation', {
      task: taskNumber,
      affectedSections: hint || '(no section matched; read the plan)',
    })
  }
  return renderTemplate('phase-plan-fresh', {})
}

/** The bounds of one prompt; scaled down together when a small context window needs a smaller prompt. */
interface PromptCaps {
  fileChars: number
  planChars: number
  feedbackChars: number
  progressChars: number
  fileList: number
}

const fullCaps: PromptCaps = {
  fileChars: MAX_FILE_CHARS,
  planChars: PLAN_PROMPT_CHARS,
  feedbackChars: 20_000,
  progressChars: 12_000,
  fileList: ITERATION_FILE_LIST_CAP,
}

const scaleCaps = (caps: PromptCaps, f: number): PromptCaps => ({
  fileChars: Math.max(2_000, Math.floor(caps.fileChars * f)),
  planChars: Math.max(2_000, Math.floor(caps.planChars * f)),
  feedbackChars: Math.max(1_000, Math.floor(caps.feedbackChars * f)),
  progressChars: Math.max(1_500, Math.floor(caps.progressChars * f)),
  fileList: Math.max(20, Math.floor(caps.fileList * f)),
})

/** The newest part of progress.md: later checkpoints say more about where the task stands. */
const progressTail = (text: string, max: number): string => tailChars(text, max, 'earlier checkpoints')

/**
 * Builds one iteration's fresh conversation (seed 003): the system prompt (with the project's rules files) and a
 * single user message made from the `.ralph/` files and a bounded file list, stable parts first. Nothing from earlier iterations' messages is carried over, except
 * what checkpoints wrote to progress.md. With `maxTokens` (a share of the model's context window) the bounds
 * shrink until the prompt fits, so a small window still leaves room to work.
 */
export async function buildIterationPrompt(input: {
  state: RalphState
  taskNumber: number
  task: StructuredTask | null
  phase: Phase
  iteration: number
  maxIterations: number
  maxTokens?: number
  /** The project's files, when the caller has just listed them (ITERATION_FILE_LIST_CAP at most). */
  files?: ProjectFileList
}): Promise<IterationPrompt> {
  const { state, taskNumber } = input
  const [taskMd, planTsx, feedbackMd, historyMd, progressMd, files, rules] = await Promise.all([
    state.read('task'),
    state.read('plan'),
    state.read('feedback'),
    state.read('taskHistory'),
    state.read('progress'),
    input.files ?? listProjectFiles(state.projectDir, ITERATION_FILE_LIST_CAP),
    readProjectRules(state.projectDir),
  ])
  // Parsed once: the affected-sections hint and the plan's excerpt both read it (a large plan takes a while).
  let parsed: Plan | null | undefined
  const plan = (): Plan | null => (parsed ??= planTsx.trim() ? parsePlan(planTsx) : null)
  // Stable within the task: the instructions and the rules files. The phase's guidance changes with the phase.
  const stableSystem = [renderTemplate('system', { task: taskNumber }).trimEnd(), rules.text]
    .filter(Boolean)
    .join('\n\n')
  const system = `${stableSystem}\n\n## Phase\n${phaseGuidance(input.phase, input.task, taskNumber, plan)}`
  const key = promptCacheKey(state.projectDir, taskNumber)
  const render = (caps: PromptCaps): IterationPrompt => {
    const shown = { files: files.files.slice(0, caps.fileList), total: files.total }
    const stableUser = renderTemplate('context', {
      taskMd: bounded(taskMd, '(empty)', caps.fileChars),
      planTsx: planTsx.trim()
        ? planForPrompt(planTsx, {
            task: input.task,
            taskNumber,
            max: caps.planChars,
            parsed: planTsx.trim().length > caps.planChars ? plan() : null,
          })
        : '(no plan yet)',
      historyMd:
        tailChars(lastLines(historyMd, HISTORY_LINES), HISTORY_CHARS, 'earlier history') ||
        '(no earlier tasks)',
    })
    let user = `${stableUser}\n${renderTemplate('context-iteration', {
      iteration: input.iteration,
      maxIterations: input.maxIterations,
      task: taskNumber,
      feedbackMd: bounded(feedbackMd, '(no feedback yet)', caps.feedbackChars),
      fileList: clipLines(formatFileList(shown), FILE_LIST_CHARS, 'use list_files or grep to explore'),
    }).trimEnd()}`
    if (progressMd.trim()) {
      user +=
        '\n\n## .ralph/progress.md (checkpoints of earlier iterations of this task: continue from here)\n' +
        progressTail(progressMd, caps.progressChars)
    }
    return {
      system,
      user,
      tokensEstimate: estimateTokens(system) + estimateTokens(user),
      cache: {
        stableSystemChars: stableSystem.length,
        stableFirstMessageChars: stableUser.length + 1,
        key,
      },
    }
  }
  let caps = fullCaps
  let prompt = render(caps)
  for (let round = 0; input.maxTokens && prompt.tokensEstimate > input.maxTokens && round < 4; round++) {
    caps = scaleCaps(caps, (input.maxTokens / prompt.tokensEstimate) * 0.9)
    prompt = render(caps)
  }
  return prompt
}
