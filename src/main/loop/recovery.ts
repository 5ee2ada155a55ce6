import { listMarkers, parsePlan } from '../plan'
import type { ToolCallRecord } from './iteration'
import { renderTemplate } from './prompts'

const guidance: Record<string, (description: string) => string> = {
  ADD: (d) =>
    `You appear stuck on an [ADD] (${d}). Do not modify or convert existing items: create the new items and append them next to the existing ones, then check the count.`,
  MODIFY: (d) =>
    `You appear stuck on a [MODIFY] (${d}). Re-read the current file once, then write the whole updated section with write_file instead of many small edits.`,
  FIX: (d) =>
    `You appear stuck on a [FIX] (${d}). Reproduce the problem with run_command or by reading the code path once, then change the code that causes it.`,
  REMOVE: (d) =>
    `You appear stuck on a [REMOVE] (${d}). Delete the element and every reference to it, then check nothing else broke.`,
}

function pathsOf(calls: ToolCallRecord[]): Set<string> {
  const paths = new Set<string>()
  for (const c of calls) {
    const p = (c.args as { path?: unknown } | null)?.path
    if (typeof p === 'string') paths.add(p.replace(/^\.\//, ''))
  }
  return paths
}

/** Section-specific advice when the stuck calls touch a Section's files (seed 000 §8, plan-aware recovery). */
function sectionGuidance(planText: string, task: number, calls: ToolCallRecord[]): string {
  if (!planText.trim())
    return 'No plan applies: step back, re-read the task, and take a different route to it.'
  const plan = parsePlan(planText)
  if (plan.errors.length) return 'Fix .ralph/plan.tsx first: it does not parse.'
  const touched = pathsOf(calls)
  const marked = listMarkers(plan, task)
  const stuck = marked.find((s) => s.section.files.some((f) => touched.has(f))) ?? marked[0]
  if (!stuck) return 'Step back, re-read the task and the plan, and take a different route.'
  const marker =
    stuck.markers.find((m) => m.kind !== 'PRESERVED' && m.kind !== 'NO_CHANGES') ?? stuck.markers[0]!
  const kind = marker.kind
  const advice = guidance[kind]?.(marker.description) ?? 'Take a different route to this section.'
  return `Stuck section: ${stuck.section.label}\nPlan marker: [${kind}] ${marker.description}\n\n${advice}`
}

export function recoveryFeedback(input: {
  task: number
  iteration: number
  why: string
  tag: string
  plan: string
  calls: ToolCallRecord[]
}): string {
  const last = input.calls.slice(-3)
  return renderTemplate('stall-recovery', {
    iteration: input.iteration,
    why: input.why,
    tag: input.tag,
    task: input.task,
    sectionGuidance: sectionGuidance(input.plan, input.task, input.calls),
    lastActions: last.length
      ? last.map((c) => `- ${c.name} ${c.canonicalArgs.slice(0, 200)}`).join('\n')
      : '- (no tool calls)',
  })
}
