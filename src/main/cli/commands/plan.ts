import { readFile } from 'node:fs/promises'
import { relative, resolve } from 'node:path'
import { showPlan } from '../../api/plan'
import {
  diffPlans,
  formatPlanDiff,
  formatValue,
  parsePlan,
  planDiffGate,
  planPathOf,
  readTaskNumber,
  runScopeGates,
  validateProjectPlan,
  walk,
  workingTreeSource,
  type Finding,
  type GateResult,
  type Plan,
} from '../../plan'
import { AppError } from '../../../shared/errors'
import { comparePlanVersions, WORKING } from '../../plan/compare'
import { diffPlanAtTask } from '../../plan/diffAtTask'
import { intFlag, stringFlag, type CliOptions } from '../args'
import { writeJson } from '../output'
import { startSpecCommand } from './specStart'
import { ExitCode, type CliCommand, type CliContext } from '../types'
import { ifUnreadable } from '../../workspace/failures'

const usage = `Usage: ralph plan <validate|show|diff> [--project DIR] [--json] [--file PATH] [options]
       ralph plan SPEC [--cancel-unfinished | --abort]

  validate              Check .ralph/plan.tsx against the plan language rules.
                        Exit 0 when valid (warnings allowed), 4 when any rule fails.
      --task N          Current task number (default: .ralph/task-counter.txt, else the highest marker).
  show                  Print the plan tree, with the change markers of each section.
  diff                  Compare the plan with the plan at task-N-pre and run the scope gates against that
                        snapshot (N: --task N, default the current task).
  diff --from TAG [--to TAG|working]
                        Compare two versions of the plan (snapshot tags, or "working" for the working copy; --to
                        defaults to working): screens and sections added, removed, renamed, moved or changed, markers
                        added or removed, and for each marked section its files and the scope-gate verdicts.
                        Exit 4 when a gate fails.
  diff --against FILE   Compare the plan with an earlier plan file (sections, props, markers).
      --before-dir DIR  Also run the scope gates and the plan-diff gate against DIR, a copy of the project
                        at task-N-pre. Exit 4 when a gate fails.
      --task N          Task number for the gates.

  SPEC                  Start the work queue on a spec file (seed 001): with unfinished tasks it asks whether
                        to cancel them or abort (exit 3 when nobody can answer).

  --file PATH           Plan file to read (default: DIR/.ralph/plan.tsx).
  --json                One JSON object on stdout.`

const SUBCOMMANDS = ['validate', 'show', 'diff']

const options = {
  file: { type: 'string' },
  task: { type: 'string' },
  against: { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  'before-dir': { type: 'string' },
  'cancel-unfinished': { type: 'boolean' },
  abort: { type: 'boolean' },
} as const satisfies CliOptions

interface Options {
  sub: string
  file: string | null
  task: number | null
  against: string | null
  beforeDir: string | null
  from: string | null
  to: string | null
}

function usageError(message: string): AppError {
  return new AppError('invalid-input', `${message}. See "ralph plan --help".`)
}

function readOptions(ctx: CliContext): Options {
  const [sub, ...extra] = ctx.positionals
  if (!sub || !SUBCOMMANDS.includes(sub)) {
    throw usageError(sub ? `Unknown subcommand "${sub}"` : 'Missing subcommand: validate, show or diff')
  }
  if (extra.length > 0) throw usageError(`Unexpected argument "${extra[0]}"`)
  const nonEmpty = (name: string): string | null => {
    const v = stringFlag(ctx.values, name)
    if (v === '') throw usageError(`--${name} needs a value`)
    return v ?? null
  }
  const o: Options = {
    sub,
    file: nonEmpty('file'),
    task: intFlag(ctx.values, 'task', 'plan', 1) ?? null,
    against: nonEmpty('against'),
    beforeDir: nonEmpty('before-dir'),
    from: nonEmpty('from'),
    to: nonEmpty('to'),
  }
  if (o.sub !== 'diff' && (o.against || o.beforeDir || o.from || o.to)) {
    throw usageError('--against, --before-dir, --from and --to belong to "plan diff"')
  }
  if ((o.from || o.to) && (o.against || o.beforeDir || o.file)) {
    throw usageError(
      '--from/--to compare snapshot versions: they do not combine with --against, --before-dir or --file',
    )
  }
  if (o.to && !o.from) throw usageError('--to needs --from')
  return o
}

async function readOrNull(path: string): Promise<string | null> {
  return readFile(path, 'utf8').catch(ifUnreadable(null))
}

const display = (ctx: CliContext, path: string): string => {
  const rel = relative(ctx.projectDir, path)
  return rel && !rel.startsWith('..') ? rel : path
}

function printFindings(ctx: CliContext, where: string, findings: Finding[]): void {
  for (const f of findings) {
    ctx.stdout.write(`${where}:${f.line}:${f.column}  ${f.severity}  ${f.rule}  ${f.message}\n`)
  }
}

function printGates(ctx: CliContext, results: GateResult[]): void {
  const mark = { pass: 'pass', warning: 'warn', failure: 'FAIL' } as const
  for (const g of results) {
    ctx.stdout.write(
      `${mark[g.severity]}  ${g.gate}  ${g.section}${g.file ? `  ${g.file}` : ''}\n      ${g.message}\n`,
    )
  }
}

function printTree(ctx: CliContext, plan: Plan): void {
  for (const root of plan.roots) {
    walk(root, (el, ancestors) => {
      const pad = '  '.repeat(ancestors.length)
      const props = el.props.map((p) => `${p.name}=${formatValue(p.value)}`).join(' ')
      ctx.stdout.write(`${pad}<${el.tag}${props ? ` ${props}` : ''}>  (line ${el.pos.line})\n`)
      for (const c of el.comments) {
        if (c.marker || c.problem)
          ctx.stdout.write(`${pad}  ${c.problem ? `! ${c.problem}` : c.text.replace(/\s+/g, ' ')}\n`)
      }
      if (el.text) ctx.stdout.write(`${pad}  "${el.text}"\n`)
    })
  }
}

async function run(ctx: CliContext, o: Options): Promise<number> {
  if (o.from) return diffVersions(ctx, o.from, o.to ?? WORKING)
  const file = o.file ? resolve(ctx.projectDir, o.file) : planPathOf(ctx.projectDir)
  const where = display(ctx, file)
  const text = await readOrNull(file)
  if (text === null) {
    const message = `no plan file at ${where}${o.file ? '' : ' (write .ralph/plan.tsx or pass --file PATH)'}`
    if (ctx.json) writeJson(ctx.stdout, { ok: false, error: { kind: 'not-found', message } })
    else ctx.stderr.write(`ralph plan ${o.sub}: ${message}\n`)
    return o.sub === 'validate' ? ExitCode.taskFailed : ExitCode.usage
  }

  if (o.sub === 'validate') {
    const r = await validateProjectPlan(ctx.projectDir, text, o.task === null ? {} : { taskNumber: o.task })
    if (ctx.json) {
      writeJson(ctx.stdout, {
        ok: r.valid,
        path: file,
        taskNumber: r.taskNumber,
        valid: r.valid,
        findings: r.findings,
      })
    } else {
      printFindings(ctx, where, r.findings)
      const counts = `${r.failures.length} failure(s), ${r.warnings.length} warning(s)`
      ctx.stdout.write(r.valid ? `Plan valid (${counts}).\n` : `Plan invalid: ${counts}.\n`)
    }
    return r.valid ? ExitCode.ok : ExitCode.taskFailed
  }

  const plan = parsePlan(text, file)
  if (o.sub === 'show') {
    const task = o.task ?? (await readTaskNumber(ctx.projectDir))
    if (ctx.json) writeJson(ctx.stdout, { ok: true, ...showPlan(plan, file, true, task) })
    else if (plan.errors.length > 0) {
      for (const e of plan.errors) ctx.stdout.write(`${where}:${e.pos.line}:${e.pos.column}  ${e.message}\n`)
    } else printTree(ctx, plan)
    return ExitCode.ok
  }

  // diff: against the snapshot taken before the current task, unless a file or folder is given.
  if (!o.against && !o.beforeDir) return diffAgainstSnapshot(ctx, o, plan, file)
  let diff = null
  if (o.against) {
    const againstPath = resolve(ctx.projectDir, o.against)
    const before = await readOrNull(againstPath)
    if (before === null) {
      ctx.stderr.write(`ralph plan diff: cannot read ${o.against}\n`)
      return ExitCode.usage
    }
    diff = diffPlans(parsePlan(before, againstPath), plan)
  }
  let gates: GateResult[] | null = null
  let task: number | null = null
  if (o.beforeDir) {
    task = o.task ?? (await readTaskNumber(ctx.projectDir)) ?? highestMarkerTask(plan)
    if (task === null) {
      ctx.stderr.write('ralph plan diff: no task number (pass --task N)\n')
      return ExitCode.usage
    }
    const before = workingTreeSource(resolve(ctx.projectDir, o.beforeDir))
    const now = workingTreeSource(ctx.projectDir)
    gates = [
      ...(await runScopeGates({ plan, task, before, now })),
      ...(await planDiffGate({ plan, task, before, now })),
    ]
  }
  const failed = gates?.some((g) => g.severity === 'failure') ?? false
  if (ctx.json) {
    writeJson(ctx.stdout, {
      ok: !failed,
      path: file,
      task,
      diff,
      summary: diff ? formatPlanDiff(diff) : null,
      gates,
    })
  } else {
    if (diff) ctx.stdout.write(`${formatPlanDiff(diff)}\n`)
    if (gates) {
      if (diff) ctx.stdout.write('\n')
      ctx.stdout.write(`Scope gates for task ${task}:\n`)
      printGates(ctx, gates)
      if (gates.length === 0) ctx.stdout.write('  (no section carries markers for this task)\n')
    }
  }
  return failed ? ExitCode.taskFailed : ExitCode.ok
}

async function diffAgainstSnapshot(ctx: CliContext, o: Options, plan: Plan, file: string): Promise<number> {
  const r = await diffPlanAtTask(ctx.projectDir, plan, { task: o.task, gates: true, logger: ctx.logger })
  if (!r.found) {
    ctx.stderr.write(
      r.task === null
        ? 'ralph plan diff: no task has started yet, so there is no task-N-pre to compare with (pass --against FILE)\n'
        : `ralph plan diff: snapshot ${r.tag} does not exist (pass --task N or --against FILE)\n`,
    )
    return ExitCode.usage
  }
  const gates = r.gates ?? []
  const failed = gates.some((g) => g.severity === 'failure')
  if (ctx.json) {
    writeJson(ctx.stdout, {
      ok: !failed,
      path: file,
      task: r.task,
      against: r.tag,
      diff: r.diff,
      summary: formatPlanDiff(r.diff),
      gates,
    })
  } else {
    ctx.stdout.write(`${r.summary}\n\nScope gates for task ${r.task}:\n`)
    printGates(ctx, gates)
    if (gates.length === 0) ctx.stdout.write('  (no section carries markers for this task)\n')
  }
  return failed ? ExitCode.taskFailed : ExitCode.ok
}

/** `plan diff --from --to`: the same use case as the editor's Plan diff review (API plan.compare). */
async function diffVersions(ctx: CliContext, from: string, to: string): Promise<number> {
  const r = await comparePlanVersions(ctx.projectDir, { from, to, logger: ctx.logger })
  const gates = r.implementation.flatMap((s) => s.verdicts)
  const failed = gates.some((g) => g.severity === 'failure')
  if (ctx.json) {
    writeJson(ctx.stdout, { ok: !failed, ...r })
    return failed ? ExitCode.taskFailed : ExitCode.ok
  }
  ctx.stdout.write(`${r.summary}\n`)
  if (r.task !== null) {
    ctx.stdout.write(`\nPlan against implementation (task ${r.task}):\n`)
    for (const s of r.implementation) {
      ctx.stdout.write(`  ${s.section}\n`)
      for (const f of s.files)
        ctx.stdout.write(
          `    ${f.changed ? 'changed  ' : 'unchanged'}  ${f.path}${f.existsAfter ? '' : ' (missing)'}\n`,
        )
    }
    if (gates.length) printGates(ctx, gates)
    else ctx.stdout.write('  (no section carries markers for this task)\n')
  }
  return failed ? ExitCode.taskFailed : ExitCode.ok
}

function highestMarkerTask(plan: Plan): number | null {
  let max: number | null = null
  for (const r of plan.roots) {
    walk(r, (el) => {
      for (const c of el.comments)
        if (c.marker?.task != null && (max === null || c.marker.task > max)) max = c.marker.task
    })
  }
  return max
}

export const planCommand: CliCommand = {
  name: 'plan',
  usage,
  options,
  async run(ctx) {
    const [sub] = ctx.positionals
    if (sub && !SUBCOMMANDS.includes(sub)) return startSpecCommand(ctx, sub)
    return run(ctx, readOptions(ctx))
  },
}
