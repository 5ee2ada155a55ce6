// The model's view of the work queue (DESIGN.md §16, seed 001): read the next task and the queue, record an issue it
// found, and (while a spec is being planned) add tasks. Every change goes through the queue's own use-cases, so it
// lands in .ralph/plan.jsonl with one history commit like any `ralph issue add`. Accepting, rejecting, marking done
// and cancelling are not actions of this tool at all: "done" means verified by the harness, never by the model.
import { z } from 'zod'
import { isAppError } from '../../shared/errors'
import { priorities, type NextAction, type QueueView, type TaskView } from '../../shared/queue'
import { didYouMean } from '../plan'
import { addIssue, addTask, queryNext, queryState } from '../queue'
import { defineTool } from './defineTool'
import { errorResult, okResult, type RunContext, type ToolResult } from './types'

export const queueActions = ['next', 'list', 'add_issue', 'add_task'] as const
export type QueueAction = (typeof queueActions)[number]

const ACTION_LIST = queueActions.join(', ')
const LIST_TASKS_MAX = 100
const LIST_ISSUES_MAX = 50

/** Words of the verdicts and removals only the harness and the user make; a call naming one gets the reason. */
const VERDICT_WORDS =
  /done|accept|reject|cancel|complet|finish|approv|verif|pass|fail|remov|delet|close|resolv|drop/i

/** Why an action is not there, as the model reads it in the error result. */
export function refusalFor(action: string): string {
  if (VERDICT_WORDS.test(action)) {
    return (
      `queue cannot "${action}": accepting, rejecting, marking done, cancelling or removing queue work is decided ` +
      "by the harness's independent verification and by the user, never by the model doing the work. Finish " +
      'your task with mark_complete; the harness then checks it against its acceptance criteria. ' +
      `The queue actions are: ${ACTION_LIST}.`
    )
  }
  return `queue has no action "${action}".${didYouMean(action, queueActions)} The actions are: ${ACTION_LIST}.`
}

/**
 * What the model sees is strict (an enum of four actions, no other properties). What is accepted is loose on
 * purpose: the AI SDK validates a call against this schema before the loop runs it, and its rejection is a raw
 * dump of zod issues. Taking any action and any key here lets queueTool answer a verdict action, a typo or a
 * stray key with one readable sentence instead.
 */
export const queueSchema = z
  .looseObject({
    action: z
      .string()
      .meta({ enum: [...queueActions] })
      .describe(
        'next: the next thing the queue will work on (usually the task to build, with its acceptance criteria). ' +
          'list: the whole queue (tasks in build order, open issues, rejections). add_issue: record a problem you ' +
          'found that is outside your current task (a bug, a flaky test, missing docs), so it is investigated later. ' +
          'add_task: add a task while a spec is being planned (refused while queue tasks are being built: add an ' +
          'issue instead).',
      ),
    description: z
      .string()
      .optional()
      .describe(
        'For add_issue (required): what is wrong, where, and how you noticed it; one or two sentences.',
      ),
    name: z.string().optional().describe('For add_task (required): what to do, in a few words.'),
    notes: z.string().optional().describe('For add_task: how to do it (files, approach, context).'),
    accept: z
      .array(z.string())
      .optional()
      .describe(
        'For add_task: acceptance criteria, one per item. Start each with "DET: " when a command can check it ' +
          '(e.g. "DET: npm test passes") or "LLM: " when a reviewer must judge it from the diff.',
      ),
    deps: z
      .array(z.string())
      .optional()
      .describe('For add_task: ids of tasks (t-…) that must be done before this one starts.'),
    priority: z.enum(priorities).optional().describe('For add_task: high, medium (default) or low.'),
    from_issue: z
      .string()
      .optional()
      .describe(
        'For add_task: the issue id (i-…) this task resolves, when it comes from investigating an issue.',
      ),
  })
  .meta({ additionalProperties: false })

export type QueueArgs = z.infer<typeof queueSchema>

const ARGS_OF: Record<QueueAction, readonly (keyof QueueArgs)[]> = {
  next: [],
  list: [],
  add_issue: ['description'],
  add_task: ['name', 'notes', 'accept', 'deps', 'priority', 'from_issue'],
}

const isAction = (a: string): a is QueueAction => (queueActions as readonly string[]).includes(a)

export async function queueTool(args: QueueArgs, ctx: RunContext): Promise<ToolResult> {
  const action = args.action
  if (!isAction(action)) return errorResult(refusalFor(action))
  const known = Object.keys(queueSchema.shape)
  const unknown = Object.keys(args).filter((k) => !known.includes(k))
  if (unknown.length > 0) {
    return errorResult(
      unknown
        .map((k) => `"${k}" is not an argument of queue.${didYouMean(k, known, (s) => `"${s}"`)}`)
        .join('\n'),
    )
  }
  const allowed = ARGS_OF[action]
  const stray = known.filter((k) => k !== 'action' && k in args && !allowed.includes(k as keyof QueueArgs))
  if (stray.length > 0) {
    const takes = allowed.length > 0 ? `takes only ${allowed.join(', ')}` : 'takes no other arguments'
    const hint =
      action === 'add_issue' && stray.includes('priority')
        ? ' Issues have no priority in the queue: say how urgent it is in the description.'
        : ''
    return errorResult(`queue ${action} ${takes}; remove ${stray.join(', ')}.${hint}`)
  }
  try {
    switch (action) {
      case 'next':
        return okResult(formatNext(await queryNext({ projectDir: ctx.projectDir })))
      case 'list':
        return okResult(formatList(await queryState({ projectDir: ctx.projectDir })))
      case 'add_issue':
        return await addIssueAction(args, ctx)
      case 'add_task':
        return await addTaskAction(args, ctx)
    }
  } catch (err) {
    // The queue's own refusals (an unknown dependency, a malformed id, a busy lock) say what to fix.
    if (isAppError(err)) return errorResult(`queue ${action} failed: ${err.message}`)
    throw err
  }
}

const NO_SPEC =
  'The work queue has no spec yet (.ralph/plan.jsonl is missing or sets none), so there is nothing to add to. ' +
  'Mention it in your mark_complete summary instead; the user starts a spec with `ralph plan SPEC`.'

async function addIssueAction(args: QueueArgs, ctx: RunContext): Promise<ToolResult> {
  const desc = args.description?.trim() ?? ''
  if (desc === '')
    return errorResult(
      'queue add_issue needs a description: {action: "add_issue", description: "what is wrong"}.',
    )
  const before = await queryState({ projectDir: ctx.projectDir })
  if (before.spec === null) return errorResult(NO_SPEC)
  // A model that repeats itself across iterations must not fill the queue with copies of one issue.
  const same = before.issues.find((i) => i.desc.trim().toLowerCase() === desc.toLowerCase())
  if (same) return okResult(`Issue ${same.id} already records this; nothing was added.`)
  const r = await addIssue({ projectDir: ctx.projectDir, desc, options: { logger: ctx.logger } })
  const id = r.ids[0]!
  return okResult(
    `Added issue ${id} to the work queue (spec ${r.state.spec}; history commit ${short(r.commit)}). ` +
      `It is investigated after the pending tasks; the queue has ${r.state.issues.length} open issue(s). ` +
      'Carry on with your own task.',
  )
}

async function addTaskAction(args: QueueArgs, ctx: RunContext): Promise<ToolResult> {
  const name = args.name?.trim() ?? ''
  if (name === '')
    return errorResult(
      'queue add_task needs a name: {action: "add_task", name: "what to do", accept: ["DET: …"]}.',
    )
  const before = await queryState({ projectDir: ctx.projectDir })
  if (before.spec === null) return errorResult(NO_SPEC)
  // Seed 001: tasks are created while planning a spec (and from issues); during BUILD the model records issues.
  if (before.stage === 'BUILD' || before.stage === 'VERIFY') {
    return errorResult(
      `queue add_task is refused while the queue is in stage ${before.stage} (its tasks are being built and ` +
        'verified): a task added now could jump ahead of them. Record the follow-up work with ' +
        '{action: "add_issue", description: "…"}; issues become tasks when they are investigated.',
    )
  }
  const r = await addTask({
    projectDir: ctx.projectDir,
    name,
    notes: args.notes,
    accept: args.accept,
    deps: args.deps,
    priority: args.priority,
    createdFrom: args.from_issue,
    options: { logger: ctx.logger },
  })
  const id = r.ids[0]!
  const task = r.state.tasks.find((t) => t.id === id)
  const lines = [
    `Added task ${id} "${name}" to the work queue (spec ${r.state.spec}; history commit ${short(r.commit)}).`,
    ...(task?.accept.length
      ? task.accept.map((c) => `  ${c.ref} ${c.kind}: ${c.text}`)
      : ['  (no criteria)']),
    ...r.warnings.map((w) => `Warning: ${w}`),
  ]
  return okResult(lines.join('\n'))
}

const short = (commit: string | null): string => (commit === null ? 'none' : commit.slice(0, 7))

/** A task as the model needs it: no line numbers, no empty fields. */
export function compactTask(t: TaskView): Record<string, unknown> {
  return {
    id: t.id,
    name: t.name,
    status: t.status,
    priority: t.priority,
    ...(t.notes ? { notes: t.notes } : {}),
    ...(t.accept.length ? { accept: t.accept.map((c) => `${c.ref} ${c.kind}: ${c.text}`) } : {}),
    ...(t.deps.length ? { deps: t.deps } : {}),
    ...(t.blockedBy.length ? { blockedBy: t.blockedBy } : {}),
    ...(t.reject ? { lastRejection: t.reject } : {}),
    ...(t.createdFrom ? { fromIssue: t.createdFrom } : {}),
  }
}

export function formatNext(n: NextAction): string {
  switch (n.action) {
    case 'build':
      return `Next: build task ${n.task.id} (stage BUILD).\n${JSON.stringify(compactTask(n.task))}`
    case 'verify':
      return `Next: the harness verifies task ${n.task.id} (stage VERIFY).\n${JSON.stringify(compactTask(n.task))}`
    case 'investigate':
      return `Next: investigate issue ${n.issue.id} (stage INVESTIGATE).\n${JSON.stringify({ id: n.issue.id, desc: n.issue.desc })}`
    case 'blocked':
      return `Next: nothing can start (stage BUILD). ${n.reason}\n${JSON.stringify(n.tasks.map(compactTask))}`
    case 'plan':
      return `Next: plan (stage PLAN). ${n.reason}`
    case 'none':
      return 'Next: nothing (stage COMPLETE): every task is accepted and there are no open issues.'
  }
}

export function formatList(v: QueueView): string {
  if (!v.exists) return 'The work queue is empty: there is no .ralph/plan.jsonl yet (stage PLAN).'
  const pending = v.tasks.filter((t) => t.status === 'pending').length
  // Pending tasks in build order first, then the rest (done, or stuck in a cycle) in file order.
  const rank = new Map(v.order.map((id, i) => [id, i]))
  const tasks = [...v.tasks].sort((a, b) => (rank.get(a.id) ?? Infinity) - (rank.get(b.id) ?? Infinity))
  const head =
    `Work queue: spec ${v.spec ?? '(none)'}, stage ${v.stage}, ${v.tasks.length} task(s) (${pending} pending, ` +
    `${v.tasks.length - pending} done awaiting verification), ${v.issues.length} open issue(s).`
  const body = {
    tasks: tasks.slice(0, LIST_TASKS_MAX).map((t) => {
      const { notes: _notes, accept, ...rest } = compactTask(t)
      return { ...rest, criteria: Array.isArray(accept) ? accept.length : 0 }
    }),
    ...(tasks.length > LIST_TASKS_MAX ? { moreTasks: tasks.length - LIST_TASKS_MAX } : {}),
    issues: v.issues.slice(0, LIST_ISSUES_MAX).map((i) => ({ id: i.id, desc: i.desc })),
    ...(v.issues.length > LIST_ISSUES_MAX ? { moreIssues: v.issues.length - LIST_ISSUES_MAX } : {}),
    ...(v.tombstones.length ? { rejected: v.tombstones.map((r) => ({ id: r.id, reason: r.reason })) } : {}),
    ...(v.malformed.length || v.warnings.length
      ? {
          problems: [
            ...v.malformed.map((m) => `line ${m.line}: ${m.error}`),
            ...v.warnings.map((w) => (w.line === null ? w.message : `line ${w.line}: ${w.message}`)),
          ],
        }
      : {}),
  }
  const more =
    tasks.length > LIST_TASKS_MAX || v.issues.length > LIST_ISSUES_MAX
      ? '\n(The list is cut; read .ralph/plan.jsonl with read_file for the rest.)'
      : ''
  return `${head}\n${JSON.stringify(body)}${more}`
}

export const queue = defineTool({
  name: 'queue',
  description:
    'The work queue (.ralph/plan.jsonl): read the next task or the whole queue, record an issue you found ' +
    'outside your task, or add a task while a spec is being planned. It cannot mark work done, accept, reject ' +
    "or cancel anything: only the harness's verification and the user decide that.",
  schema: queueSchema,
  readOnly: false,
  run: queueTool,
})
