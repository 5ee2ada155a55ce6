import type { StructuredTask } from '../../shared/task'
import { describeAffectedSections, findAffectedSections, parsePlan } from '../plan'
import { formatFileList, listProjectFiles } from './fileList'
import { estimateTokens, renderTemplate } from './prompts'
import type { Phase, RalphState } from './ralphState'

export interface IterationPrompt {
  system: string
  user: string
  tokensEstimate: number
}

const FILE_LIST_CAP = 300
const MAX_FILE_CHARS = 60_000

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
  planText: string,
): string {
  const type = task?.type ?? 'fresh'
  if (phase === 'build') return renderTemplate('phase-build', { task: taskNumber })
  if (type === 'bugfix') return renderTemplate('task-direct', { taskType: 'bugfix' })
  if (type === 'mutation' && planText.trim() && task) {
    const affected = findAffectedSections(parsePlan(planText), task)
    return renderTemplate('phase-plan-mutation', {
      task: taskNumber,
      affectedSections:
        describeAffectedSections(affected, taskNumber) || '(no section matched; read the plan)',
    })
  }
  return renderTemplate('phase-plan-fresh', {})
}

/**
 * Builds one iteration's fresh conversation (seed 003): the system prompt and a single user message made from
 * the `.ralph/` files and a bounded file list. Nothing from earlier iterations' messages is carried over.
 */
export async function buildIterationPrompt(input: {
  state: RalphState
  taskNumber: number
  task: StructuredTask | null
  phase: Phase
  iteration: number
  maxIterations: number
}): Promise<IterationPrompt> {
  const { state, taskNumber } = input
  const [taskMd, planTsx, feedbackMd, historyMd, files] = await Promise.all([
    state.read('task'),
    state.read('plan'),
    state.read('feedback'),
    state.read('taskHistory'),
    listProjectFiles(state.projectDir, FILE_LIST_CAP),
  ])
  const system = renderTemplate('system', {
    task: taskNumber,
    phaseGuidance: phaseGuidance(input.phase, input.task, taskNumber, planTsx),
  })
  const user = renderTemplate('context', {
    iteration: input.iteration,
    maxIterations: input.maxIterations,
    task: taskNumber,
    taskMd: bounded(taskMd, '(empty)'),
    planTsx: bounded(planTsx, '(no plan yet)'),
    feedbackMd: bounded(feedbackMd, '(no feedback yet)', 20_000),
    historyMd: lastLines(historyMd, 20) || '(no earlier tasks)',
    fileList: formatFileList(files),
  })
  return { system, user, tokensEstimate: estimateTokens(system) + estimateTokens(user) }
}
