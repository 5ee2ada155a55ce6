import type { MutationResult, QueueView, TaskView } from '../../../shared/queue'
import {
  acceptTasks,
  addIssue,
  addTask,
  cancelTask,
  closeIssue,
  editTask,
  markTaskDone,
  queryIssues,
  queryNext,
  queryStage,
  queryState,
  queryTasks,
  queueLog,
  rejectTask,
  setSpec,
} from '../../queue'
import { checkProjectFolder } from '../../workspace/projectFolder'
import { expectPositionals, intFlag, stringFlag, usageError, type CliOptions } from '../args'
import { writeJson } from '../output'
import { ExitCode, type CliCommand, type CliContext } from '../types'

// The work queue of DESIGN.md §16 (seed 001): `.ralph/plan.jsonl`, its history on refs/ralph/queue. Queries
// print JSON as seed 001 says (stage: a bare word); every mutation prints the updated state.

const projectOf = (ctx: CliContext, write: boolean) => checkProjectFolder(ctx.projectDir, { write })

function taskLine(t: TaskView): string {
  const flags = [
    t.priority !== 'medium' ? t.priority : null,
    t.blockedBy.length ? `after ${t.blockedBy.join(', ')}` : null,
    t.reject ? `rejected: ${t.reject}` : null,
  ].filter(Boolean)
  return `  ${t.id}  ${t.status.padEnd(7)} ${t.name}${flags.length ? `  (${flags.join('; ')})` : ''}`
}

/** The state in a few lines, for people; `--json` gets the whole view. */
function describeState(v: QueueView): string {
  const lines = [`Stage: ${v.stage}${v.spec ? `   Spec: ${v.spec}` : ''}`]
  const byId = new Map(v.tasks.map((t) => [t.id, t]))
  const ordered = [...v.order.map((id) => byId.get(id)!), ...v.tasks.filter((t) => !v.order.includes(t.id))]
  lines.push(v.tasks.length ? `Tasks (${v.tasks.length}):` : 'Tasks: none')
  for (const t of ordered) if (t) lines.push(taskLine(t))
  if (v.issues.length) {
    lines.push(`Issues (${v.issues.length}):`)
    for (const i of v.issues) lines.push(`  ${i.id}  ${i.desc}`)
  }
  return lines.join('\n') + '\n'
}

/** Problems of the file itself go to stderr, with their line numbers, whatever the output format. */
function reportProblems(ctx: CliContext, v: QueueView, extra: string[] = []): void {
  for (const m of v.malformed)
    ctx.stderr.write(`ralph: plan.jsonl line ${m.line}: ${m.error} (kept as it is)\n`)
  for (const w of v.warnings)
    ctx.stderr.write(`ralph: ${w.line ? `plan.jsonl line ${w.line}: ` : ''}${w.message}\n`)
  for (const w of extra) ctx.stderr.write(`ralph: ${w}\n`)
}

function printMutation(ctx: CliContext, r: MutationResult): number {
  reportProblems(ctx, r.state, r.warnings)
  if (ctx.json) writeJson(ctx.stdout, { ok: true, ...r })
  else ctx.stdout.write(`${r.message}\n${describeState(r.state)}`)
  return ExitCode.ok
}

/** `--deps t-a,t-b` or repeated `--deps`. */
function listFlag(ctx: CliContext, name: string): string[] | undefined {
  const v = ctx.values[name]
  if (v === undefined) return undefined
  const items = (Array.isArray(v) ? v : [v]).flatMap((x) => String(x).split(','))
  return items.map((s) => s.trim()).filter(Boolean)
}

function priorityFlag(ctx: CliContext, command: string): 'high' | 'medium' | 'low' | undefined {
  const p = stringFlag(ctx.values, 'priority')
  if (p === undefined) return undefined
  if (p !== 'high' && p !== 'medium' && p !== 'low') {
    throw usageError(command, `--priority must be high, medium or low, got "${p}".`)
  }
  return p
}

export const queryCommand: CliCommand = {
  name: 'query',
  usage: `Usage: ralph query [tasks|issues|stage|next] [--project DIR]

  (nothing)  the whole state of the work queue as JSON
  tasks      the tasks (pending and done) as JSON
  issues     the open issues as JSON
  stage      the current stage: PLAN, BUILD, VERIFY, INVESTIGATE or COMPLETE
  next       the next action with its task or issue, as JSON`,
  async run(ctx) {
    expectPositionals(ctx.positionals, 0, 1, 'query [tasks|issues|stage|next]', 'query')
    const what = ctx.positionals[0] ?? 'state'
    const projectDir = projectOf(ctx, false)
    switch (what) {
      case 'state': {
        const v = await queryState({ projectDir })
        reportProblems(ctx, v)
        writeJson(ctx.stdout, v)
        return ExitCode.ok
      }
      case 'tasks':
        writeJson(ctx.stdout, await queryTasks({ projectDir }))
        return ExitCode.ok
      case 'issues':
        writeJson(ctx.stdout, await queryIssues({ projectDir }))
        return ExitCode.ok
      case 'stage': {
        const stage = await queryStage({ projectDir })
        if (ctx.json) writeJson(ctx.stdout, { ok: true, stage })
        else ctx.stdout.write(`${stage}\n`)
        return ExitCode.ok
      }
      case 'next':
        writeJson(ctx.stdout, await queryNext({ projectDir }))
        return ExitCode.ok
      default:
        throw usageError('query', `Unknown query "${what}".`)
    }
  },
}

const taskOptions = {
  notes: { type: 'string' },
  accept: { type: 'string', multiple: true },
  deps: { type: 'string', multiple: true },
  priority: { type: 'string' },
  spec: { type: 'string' },
  name: { type: 'string' },
  id: { type: 'string' },
  'done-at': { type: 'string' },
} as const satisfies CliOptions

export const taskCommand: CliCommand = {
  name: 'task',
  options: taskOptions,
  usage: `Usage: ralph task <action> … [--project DIR] [--json]

  add "NAME" [--notes TEXT] [--accept "DET: …"]… [--deps t-a,t-b] [--priority high|medium|low] [--spec FILE]
                       add a pending task; each --accept is one criterion (AC1, AC2 … in order), tagged DET: (a
                       command's result) or LLM: (judged by a model; the default, with a warning)
  done [ID] [--done-at SNAPSHOT]
                       mark a task done (default: the next one in build order)
  accept [ID…]         accept done tasks (default: all of them); they leave the file, their history stays
  reject "REASON" [--id ID]
                       reject a done task (default: the first): a tombstone, and the task is pending again
  edit ID [--name N] [--notes T] [--accept C]… [--deps …] [--priority P]
  cancel ID            remove a task without doing it (history shows it as cancelled)

Every change is written atomically to .ralph/plan.jsonl and recorded on the snapshot store's refs/ralph/queue.`,
  async run(ctx) {
    const [action, ...rest] = ctx.positionals
    const projectDir = projectOf(ctx, true)
    const options = { logger: ctx.logger }
    const v = ctx.values
    // The task fields `add` and `edit` both take, read in this order.
    const taskFieldFlags = () => ({
      notes: stringFlag(v, 'notes'),
      accept: listFlagRaw(ctx, 'accept'),
      deps: listFlag(ctx, 'deps'),
      priority: priorityFlag(ctx, 'task'),
    })
    switch (action) {
      case 'add': {
        expectPositionals(rest, 1, 1, 'task add "NAME"', 'task')
        return printMutation(
          ctx,
          await addTask({
            projectDir,
            name: rest[0]!,
            ...taskFieldFlags(),
            spec: stringFlag(v, 'spec'),
            options,
          }),
        )
      }
      case 'done':
        expectPositionals(rest, 0, 1, 'task done [ID]', 'task')
        return printMutation(
          ctx,
          await markTaskDone({ projectDir, id: rest[0], doneAt: stringFlag(v, 'done-at'), options }),
        )
      case 'accept':
        return printMutation(
          ctx,
          await acceptTasks({ projectDir, ids: rest.length ? rest : undefined, options }),
        )
      case 'reject':
        expectPositionals(rest, 1, 1, 'task reject "REASON"', 'task')
        return printMutation(
          ctx,
          await rejectTask({ projectDir, reason: rest[0]!, id: stringFlag(v, 'id'), options }),
        )
      case 'edit':
        expectPositionals(rest, 1, 1, 'task edit ID', 'task')
        return printMutation(
          ctx,
          await editTask({
            projectDir,
            id: rest[0]!,
            name: stringFlag(v, 'name'),
            ...taskFieldFlags(),
            options,
          }),
        )
      case 'cancel':
        expectPositionals(rest, 1, 1, 'task cancel ID', 'task')
        return printMutation(ctx, await cancelTask({ projectDir, id: rest[0]!, options }))
      default:
        throw usageError(
          'task',
          action
            ? `Unknown action "${action}".`
            : 'Missing action: add, done, accept, reject, edit or cancel.',
        )
    }
  },
}

/** Criteria are whole sentences that may hold commas: one per --accept, never split. */
function listFlagRaw(ctx: CliContext, name: string): string[] | undefined {
  const v = ctx.values[name]
  if (v === undefined) return undefined
  return (Array.isArray(v) ? v : [v]).map(String)
}

export const issueCommand: CliCommand = {
  name: 'issue',
  options: { spec: { type: 'string' } },
  usage: `Usage: ralph issue <add "DESCRIPTION" [--spec FILE] | done [ID]> [--project DIR] [--json]

  add "DESCRIPTION"    record an issue found while working (the INVESTIGATE stage takes it)
  done [ID]            close an issue (default: the first one)`,
  async run(ctx) {
    const [action, ...rest] = ctx.positionals
    const projectDir = projectOf(ctx, true)
    const options = { logger: ctx.logger }
    if (action === 'add') {
      expectPositionals(rest, 1, 1, 'issue add "DESCRIPTION"', 'issue')
      return printMutation(
        ctx,
        await addIssue({ projectDir, desc: rest[0]!, spec: stringFlag(ctx.values, 'spec'), options }),
      )
    }
    if (action === 'done') {
      expectPositionals(rest, 0, 1, 'issue done [ID]', 'issue')
      return printMutation(ctx, await closeIssue({ projectDir, id: rest[0], options }))
    }
    throw usageError('issue', action ? `Unknown action "${action}".` : 'Missing action: add or done.')
  },
}

export const setSpecCommand: CliCommand = {
  name: 'set-spec',
  usage: `Usage: ralph set-spec FILE [--project DIR] [--json]

Sets the spec the work queue is working on (FILE is relative to the project folder and must exist).`,
  async run(ctx) {
    expectPositionals(ctx.positionals, 1, 1, 'set-spec FILE', 'set-spec')
    return printMutation(
      ctx,
      await setSpec({
        projectDir: projectOf(ctx, true),
        spec: ctx.positionals[0]!,
        options: { logger: ctx.logger },
      }),
    )
  },
}

export const logCommand: CliCommand = {
  name: 'log',
  options: {
    all: { type: 'boolean' },
    spec: { type: 'string' },
    since: { type: 'string' },
    limit: { type: 'string' },
  },
  usage: `Usage: ralph log [--all] [--spec FILE] [--since DATE|COMMIT] [--limit N] [--project DIR]

Prints JSON: { "changes": [...] }, or with --all { "tasks": [...] } as seed 001's history format.

  (nothing)   recent changes to the work queue, newest first (default 50)
  --all       every task ever, rebuilt from the history: pending, done, accepted, rejected or cancelled
  --spec F    only one spec's changes or tasks
  --since D   changes after a date (2026-01-18) or a history commit`,
  async run(ctx) {
    expectPositionals(ctx.positionals, 0, 0, 'log', 'log')
    const r = await queueLog({
      projectDir: projectOf(ctx, false),
      all: ctx.values.all === true,
      spec: stringFlag(ctx.values, 'spec'),
      since: stringFlag(ctx.values, 'since'),
      limit: intFlag(ctx.values, 'limit', 'log', 1),
    })
    // JSON with or without --json: seed 001's history format, read by scripts and models alike.
    writeJson(ctx.stdout, r.kind === 'tasks' ? { tasks: r.tasks } : { changes: r.entries })
    return ExitCode.ok
  },
}
