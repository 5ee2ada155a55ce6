import { realpath } from 'node:fs/promises'
import { z } from 'zod'
import { AppError } from '../../shared/errors'
import {
  diffPlans,
  formatPlanDiff,
  formatValue,
  loadProjectPlan,
  parsePlan,
  planDiffGate,
  runScopeGates,
  validateProjectPlan,
  walk,
  workingTreeSource,
  type FileSource,
  type GateResult,
  type Plan,
  PLAN_PROMPT_CHARS,
} from '../plan'
import { snapshotTags } from '../snapshots'
import { defineTool } from './defineTool'
import { PLAN_FILE } from './ralphFiles'
import { truncateMiddle } from './text'
import { noteFailure } from '../workspace'
import { errorResult, okResult, type RunContext, type ToolResult } from './types'

const MAX_OUTPUT_CHARS = 40_000

const schema = z.strictObject({
  action: z
    .enum(['show', 'validate', 'diff'])
    .describe(
      'show: the plan tree of .ralph/plan.tsx with its change markers. validate: check the plan against the ' +
        'plan language rules (failures must be fixed). diff: what changed in the plan since this task started, ' +
        'and the scope gates the harness will run on your work (e.g. items converted instead of added).',
    ),
})
export type PlanArgs = z.infer<typeof schema>

const NO_PLAN =
  `There is no ${PLAN_FILE} yet. Write the plan with write_file as export default ( <App name="…"> … </App> ), ` +
  'then call plan {action: "validate"}.'

/** The plan tree as the CLI's `ralph plan show` prints it: one element per line, markers underneath. */
export function formatPlanTree(plan: Plan): string {
  if (plan.errors.length > 0) {
    return plan.errors.map((e) => `${PLAN_FILE}:${e.pos.line}:${e.pos.column}  ${e.message}`).join('\n')
  }
  const lines: string[] = []
  for (const root of plan.roots) {
    walk(root, (el, ancestors) => {
      const pad = '  '.repeat(ancestors.length)
      const props = el.props.map((p) => `${p.name}=${formatValue(p.value)}`).join(' ')
      lines.push(`${pad}<${el.tag}${props ? ` ${props}` : ''}>  (line ${el.pos.line})`)
      for (const c of el.comments) {
        if (c.marker || c.problem)
          lines.push(`${pad}  ${c.problem ? `! ${c.problem}` : c.text.replace(/\s+/g, ' ')}`)
      }
      if (el.text) lines.push(`${pad}  "${el.text}"`)
    })
  }
  return lines.length > 0 ? lines.join('\n') : 'The plan has no elements.'
}

/**
 * The tree within the plan's prompt budget (PLAN_PROMPT_CHARS): the first elements in file order, then a note
 * with how many tree lines were left out and the plan line to go on reading from.
 */
export function boundedTree(tree: string, max = PLAN_PROMPT_CHARS): string {
  if (tree.length <= max) return tree
  const lines = tree.split('\n')
  let used = 0
  let kept = 0
  while (kept < lines.length && used + lines[kept]!.length + 1 <= max) used += lines[kept++]!.length + 1
  const nextLine = lines
    .slice(kept)
    .map((l) => /\(line (\d+)\)$/.exec(l)?.[1])
    .find((n) => n !== undefined)
  const from = nextLine ? `, from plan line ${nextLine}` : ''
  return (
    `${lines.slice(0, kept).join('\n')}\n[… ${lines.length - kept} more tree lines left out${from}: the tree is ` +
    `${tree.length} characters, more than the ${max} shown. Read the rest with read_file {path: "${PLAN_FILE}", ` +
    `offset: ${nextLine ?? 1}, limit: 200}.]`
  )
}

export function formatGates(results: GateResult[]): string {
  const mark = { pass: 'pass', warning: 'warn', failure: 'FAIL' } as const
  return results
    .map(
      (g) => `${mark[g.severity]}  ${g.gate}  ${g.section}${g.file ? `  ${g.file}` : ''}\n      ${g.message}`,
    )
    .join('\n')
}

/** Files as they were at a snapshot, for the scope gates' "before" side. */
function snapshotSource(ctx: RunContext, tag: string): FileSource {
  return {
    async read(path) {
      try {
        const s = await ctx.snapshots.show(tag, path)
        return s.binary ? null : s.content.toString('utf8')
      } catch (err) {
        // Not in the snapshot (a file this task added): the gates see it as new.
        if (!(err instanceof AppError))
          noteFailure(ctx.logger, `plan diff: could not read ${path} at ${tag}`, err)
        return null
      }
    },
  }
}

export async function planTool(args: PlanArgs, ctx: RunContext): Promise<ToolResult> {
  const root = await realpath(ctx.projectDir)
  const loaded = await loadProjectPlan(root)
  if (loaded.text === null) return errorResult(NO_PLAN)
  const text = loaded.text
  const out = (ok: boolean, s: string): ToolResult => {
    const body = truncateMiddle(
      s,
      MAX_OUTPUT_CHARS / 2,
      MAX_OUTPUT_CHARS / 2,
      `read ${PLAN_FILE} with read_file`,
    )
    return ok ? okResult(body) : errorResult(body)
  }

  if (args.action === 'show')
    return okResult(boundedTree(formatPlanTree(loaded.plan ?? parsePlan(text, PLAN_FILE))))

  if (args.action === 'validate') {
    const r = await validateProjectPlan(root, text, { taskNumber: ctx.taskNumber })
    const lines = r.findings.map(
      (f) => `${PLAN_FILE}:${f.line}:${f.column}  ${f.severity}  ${f.rule}  ${f.message}`,
    )
    const tally = `${r.failures.length} failure(s), ${r.warnings.length} warning(s)`
    lines.push(
      r.valid ? `Plan valid (${tally}).` : `Plan invalid: ${tally}. Fix the failures and validate again.`,
    )
    return out(r.valid, lines.join('\n'))
  }

  // diff: the plan now against the plan at the start of this task, plus the scope gates the harness will run.
  const tag = snapshotTags.taskPre(ctx.taskNumber)
  const plan = parsePlan(text, PLAN_FILE)
  let hasPre = true
  let beforeText: string | null = null
  try {
    const s = await ctx.snapshots.show(tag, PLAN_FILE)
    beforeText = s.binary ? null : s.content.toString('utf8')
  } catch (err) {
    if (!(err instanceof AppError)) throw err
    hasPre = !/no snapshot/i.test(err.message)
  }
  if (!hasPre)
    return errorResult(`There is no snapshot ${tag} to compare with, so there is nothing to diff against.`)
  const beforePlan = beforeText === null ? null : parsePlan(beforeText, PLAN_FILE)
  const lines: string[] = [
    beforePlan
      ? `Plan changes since ${tag}:\n${formatPlanDiff(diffPlans(beforePlan, plan))}`
      : `There was no ${PLAN_FILE} at ${tag}: the whole plan is new in this task.`,
  ]
  let failed = false
  if (plan.root && plan.errors.length === 0) {
    const before = snapshotSource(ctx, tag)
    const now = workingTreeSource(root)
    const gates = [
      ...(await runScopeGates({ plan, task: ctx.taskNumber, before, now, beforePlan })),
      ...(await planDiffGate({ plan, task: ctx.taskNumber, before, now })),
    ]
    failed = gates.some((g) => g.severity === 'failure')
    lines.push(
      '',
      `Scope gates for task ${ctx.taskNumber} (the harness runs these before accepting completion):`,
    )
    lines.push(gates.length > 0 ? formatGates(gates) : '  (no section carries markers for this task)')
  } else {
    lines.push('', 'The plan does not parse, so the scope gates cannot run: call plan {action: "validate"}.')
  }
  return out(!failed, lines.join('\n'))
}

export const plan = defineTool({
  name: 'plan',
  description:
    'Work with the plan (.ralph/plan.tsx): show its tree, validate it against the plan language rules, or diff ' +
    'it against the start of this task together with the scope gates.',
  schema,
  readOnly: false,
  run: planTool,
})
