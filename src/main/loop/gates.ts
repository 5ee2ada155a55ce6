import { cachedSource, parsePlan, planDiffGate, runScopeGates, workingTreeSource, type Plan } from '../plan'
import type { SnapshotEngine } from '../snapshots'
import type { LoopConfig, RalphState } from './ralphState'
import { snapshotSource } from '../snapshots'
import { preTag } from './lifecycle'

export type GateSeverity = 'pass' | 'warning' | 'failure'

export interface GateResult {
  gate: string
  severity: GateSeverity
  message: string
}

export interface CommandOutcome {
  exitCode: number | null
  timedOut: boolean
  output: string
}

export interface GateContext {
  state: RalphState
  engine: SnapshotEngine
  task: number
  config: LoopConfig
  signal: AbortSignal
  /** Runs one of the project's own commands (build/test/lint) in the project root. */
  runCommand(command: string, timeoutMs: number, signal: AbortSignal): Promise<CommandOutcome>
}

async function hasSummary(ctx: GateContext): Promise<GateResult> {
  const summary = (await ctx.state.read('summary')).trim()
  return summary.length >= 10
    ? { gate: 'has-summary', severity: 'pass', message: 'summary.md is written.' }
    : {
        gate: 'has-summary',
        severity: 'failure',
        message:
          'summary.md is empty. Call mark_complete with a summary of what you changed and how you checked it.',
      }
}

/** The structural guard against "complete without implementing": something outside .ralph/ must have changed. */
async function changesMade(ctx: GateContext): Promise<GateResult> {
  const diff = await ctx.engine.diff(preTag(ctx.task))
  const outside = diff.entries.filter((e) => !e.path.startsWith('.ralph/'))
  if (outside.length > 0) {
    return {
      gate: 'changes-made',
      severity: 'pass',
      message: `${outside.length} file(s) changed since ${preTag(ctx.task)}.`,
    }
  }
  return {
    gate: 'changes-made',
    severity: 'failure',
    message: `No file outside .ralph/ changed since ${preTag(ctx.task)}. Implement the task in the project's files before marking it complete.`,
  }
}

async function planGates(ctx: GateContext, plan: Plan): Promise<GateResult[]> {
  const before = cachedSource(snapshotSource(ctx.engine, preTag(ctx.task)))
  const now = cachedSource(workingTreeSource(ctx.state.projectDir))
  const beforeText = await before.read('.ralph/plan.tsx')
  const beforePlan = beforeText?.trim() ? parsePlan(beforeText) : null
  const scope = await runScopeGates({ plan, task: ctx.task, before, now, beforePlan })
  const diff = await planDiffGate({ plan, task: ctx.task, before, now })
  const results: GateResult[] = []
  const scopeIssues = scope.filter((r) => r.severity !== 'pass')
  if (scopeIssues.length === 0) {
    results.push({ gate: 'scope-validation', severity: 'pass', message: 'Scope gates passed.' })
  }
  for (const r of scopeIssues) {
    results.push({ gate: 'scope-validation', severity: r.severity, message: `${r.section}: ${r.message}` })
  }
  // plan-diff is informational (DESIGN.md §11): it never blocks completion.
  for (const r of diff.filter((d) => d.severity !== 'pass')) {
    results.push({ gate: 'plan-diff', severity: 'warning', message: `${r.section}: ${r.message}` })
  }
  return results
}

async function projectCommand(ctx: GateContext, name: 'build' | 'test' | 'lint'): Promise<GateResult | null> {
  const command = ctx.config.commands[name]
  if (!command) return null
  const outcome = await ctx.runCommand(command, ctx.config.commandTimeoutMs, ctx.signal)
  if (outcome.exitCode === 0) return { gate: name, severity: 'pass', message: `\`${command}\` passed.` }
  const why = outcome.timedOut
    ? `timed out after ${ctx.config.commandTimeoutMs} ms`
    : `exited with ${outcome.exitCode}`
  return {
    gate: name,
    severity: 'failure',
    message: `\`${command}\` ${why}:\n${outcome.output.trim().slice(-2000)}`,
  }
}

/** The quality gates of DESIGN.md §11, in order. Failures block completion; warnings inform. */
export async function runQualityGates(ctx: GateContext): Promise<GateResult[]> {
  const results: GateResult[] = [await hasSummary(ctx), await changesMade(ctx)]
  const planText = await ctx.state.plan()
  if (planText.trim()) results.push(...(await planGates(ctx, parsePlan(planText))))
  for (const name of ['build', 'test', 'lint'] as const) {
    const result = await projectCommand(ctx, name)
    if (result) results.push(result)
  }
  return results
}
