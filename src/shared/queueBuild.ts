import { z } from 'zod'
import { buildLaneSchema, foldLane, workingLanes } from './buildLanes'
import { loopEventSchema } from './loopEvents'
import { combineOutcome, criterionKindSchema, verdictAnswerSchema, verifyOutcomeSchema } from './verdicts'

/**
 * A build started from the Queue panel (DESIGN.md §16): the events `ralph build --json` streams, as zod schemas so
 * they can cross the contract (`queue.build`), and the progress the panel shows, folded from them by
 * `applyBuildEvent` (the core keeps it for `queue.buildStatus`).
 */

export const buildModeSchema = z.enum(['yolo', 'hybrid', 'interactive'])
export type QueueBuildMode = z.infer<typeof buildModeSchema>
const answer = verdictAnswerSchema
const criterionKind = criterionKindSchema
const outcome = verifyOutcomeSchema
const notificationEvent = z.enum([
  'escalation',
  'needs-human',
  'approval',
  'budget-warn',
  'budget-stop',
  'complete',
])
const buildStatus = z.enum(['complete', 'paused', 'escalated', 'stopped', 'failed', 'budget'])

/**
 * The lane an event belongs to (DESIGN.md §18: `ralph build --json` events carry it): a number in a lanes build,
 * null for the build's own events and outside lanes; absent from a serial build's. Every build event has it
 * (queueBuildEventSchema), so it reaches the app: an event schema without it would strip it.
 */
const lane = { lane: z.number().int().positive().nullable().optional() }

/** One criterion's (or deterministic check's) verdict as verification reports it. */
export const criterionVerdictSchema = z.object({
  /** AC1, AC2 … for criteria; the check's name (test, lint, diff-size, blocked-paths, secrets) for the checks. */
  ref: z.string(),
  kind: criterionKind,
  text: z.string(),
  answer,
  reason: z.string(),
  costUsd: z.number(),
})
export type QueueCriterionVerdict = z.infer<typeof criterionVerdictSchema>
export type QueueVerifyEvent = z.infer<typeof verifyEventSchema>

/** What a verification reports as it goes (`verify/`'s events, as `ralph build --json` streams them). */
export const verifyEventSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('verify.started'),
    taskId: z.string(),
    nonce: z.string(),
    criteria: z.array(z.object({ ref: z.string(), kind: criterionKind, text: z.string() })),
    /** Untagged criteria (counted as LLM) and similar notes for the user. */
    warnings: z.array(z.string()),
  }),
  z.object({
    type: z.literal('verify.criterion'),
    taskId: z.string(),
    nonce: z.string(),
    verdict: criterionVerdictSchema,
    repaired: z.boolean(),
  }),
  z.object({
    type: z.literal('verify.completed'),
    taskId: z.string(),
    nonce: z.string(),
    outcome,
    costUsd: z.number(),
    feedback: z.string(),
    durationMs: z.number(),
  }),
])

const buildOwnEventSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('build.started'),
    mode: buildModeSchema,
    order: z.array(z.string()),
    budget: z.object({ maxCostUsd: z.number().nullable(), maxMinutes: z.number().nullable() }),
  }),
  z.object({ type: z.literal('build.plan-committed'), commit: z.string().nullable() }),
  z.object({
    type: z.literal('build.attempt'),
    taskId: z.string(),
    name: z.string(),
    attempt: z.number(),
    task: z.number(),
  }),
  z.object({ type: z.literal('build.accepted'), taskId: z.string(), commit: z.string().nullable() }),
  z.object({
    type: z.literal('build.rejected'),
    taskId: z.string(),
    reason: z.string(),
    failures: z.number(),
    commit: z.string().nullable(),
  }),
  z.object({
    type: z.literal('build.retry'),
    taskId: z.string(),
    failures: z.number(),
    maxFailures: z.number(),
  }),
  z.object({ type: z.literal('build.replan'), taskId: z.string(), reason: z.string() }),
  // Lanes (`--parallel` > 1, DESIGN.md §18).
  z.object({
    type: z.literal('build.lane'),
    taskId: z.string(),
    lane: z.number(),
    task: z.number(),
    attempt: z.number(),
    base: z.string(),
  }),
  z.object({
    type: z.literal('build.merged'),
    taskId: z.string(),
    task: z.number(),
    commit: z.string(),
    verifiedAgain: z.boolean(),
  }),
  z.object({
    type: z.literal('build.worker'),
    taskId: z.string(),
    task: z.number(),
    lane: z.number(),
    attempt: z.number(),
    where: z.string(),
    retryOf: z.object({ where: z.string(), fault: z.string() }).optional(),
  }),
  z.object({ type: z.literal('build.rerun'), taskId: z.string(), task: z.number(), reason: z.string() }),
  z.object({ type: z.literal('build.merging'), taskId: z.string(), task: z.number() }),
  z.object({ type: z.literal('build.applying'), taskId: z.string(), task: z.number(), commit: z.string() }),
  z.object({
    type: z.literal('build.kept'),
    taskId: z.string(),
    task: z.number(),
    action: z.enum(['kept', 'resumed', 'discarded']),
    ref: z.string(),
    message: z.string(),
  }),
  z.object({ type: z.literal('build.skipped'), taskId: z.string(), name: z.string(), reason: z.string() }),
  z.object({
    type: z.literal('build.rollback'),
    taskId: z.string(),
    to: z.string(),
    safetyTag: z.string().nullable(),
  }),
  z.object({
    type: z.literal('build.notification'),
    event: notificationEvent,
    taskId: z.string().nullable(),
    path: z.string(),
    message: z.string(),
  }),
  z.object({
    type: z.literal('build.budget'),
    level: z.enum(['warn', 'stop']),
    kind: z.enum(['cost', 'time']),
    used: z.number(),
    limit: z.number(),
    message: z.string(),
  }),
  z.object({
    type: z.literal('build.finished'),
    status: buildStatus,
    message: z.string(),
    accepted: z.array(z.string()),
    costUsd: z.number(),
    durationMs: z.number(),
  }),
])

/** The panel's own: interactive mode asks the panel before accepting a task, and hears its answer. */
const approvalEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('build.approval'), taskId: z.string().nullable(), question: z.string() }),
  z.object({ type: z.literal('build.approved'), taskId: z.string().nullable(), approved: z.boolean() }),
  /** After the build ended: the user accepted or rejected a task it stopped on (the Queue's Accept / Reject). */
  z.object({
    type: z.literal('build.settled'),
    taskId: z.string(),
    decision: z.enum(['accepted', 'rejected']),
  }),
])

/**
 * Lanes (DESIGN.md §18): what the user may answer when a merged task's apply finds their edits to files the task
 * changes. keep-theirs: the task's other changes are applied, those files keep the user's version (task-N-post
 * holds it); take-task: the task's version is written (the user's stays in task-N-pre, the snapshot the apply takes
 * first); stop: nothing is written and the build pauses (the next build runs the task again on top of the edits).
 */
export const userEditsAnswers = ['keep-theirs', 'take-task', 'stop'] as const
export const userEditsAnswerSchema = z.enum(userEditsAnswers)
export type UserEditsAnswer = z.infer<typeof userEditsAnswerSchema>

/** The question a lanes build asks before an apply that would overwrite the user's edits, and its answer. */
export const userEditsQuestionSchema = z.object({
  type: z.literal('build.user-edits'),
  taskId: z.string(),
  name: z.string(),
  /** The task number it is applied as (task-N-pre / task-N-post). */
  task: z.number(),
  lane: z.number(),
  /** The files the user changed during the build that the task changes too, sorted. */
  paths: z.array(z.string()),
  question: z.string(),
})
export type UserEditsQuestion = z.infer<typeof userEditsQuestionSchema>

const userEditsEventSchema = z.discriminatedUnion('type', [
  userEditsQuestionSchema,
  z.object({
    type: z.literal('build.user-edits-answered'),
    taskId: z.string(),
    task: z.number(),
    lane: z.number(),
    paths: z.array(z.string()),
    answer: userEditsAnswerSchema,
    /** The snapshot that holds the user's versions: task-N-post (keep-theirs), task-N-pre (take-task); null: stop. */
    snapshot: z.string().nullable(),
    /** What the answer does, for people. */
    message: z.string(),
  }),
])
export type UserEditsEvent = z.infer<typeof userEditsEventSchema>

/**
 * Everything a build reports: its own events, verification's, and the lifecycle's (streamed text left out), each
 * with the lane it belongs to.
 */
export const queueBuildEventSchema = z.intersection(
  z.union([
    buildOwnEventSchema,
    verifyEventSchema,
    loopEventSchema,
    approvalEventSchema,
    userEditsEventSchema,
  ]),
  z.object(lane),
)
export type QueueBuildEvent = z.infer<typeof queueBuildEventSchema>

/** A notification file the build wrote, for the host to raise as a desktop notification. */
export const buildNoticeSchema = z.object({
  event: notificationEvent,
  taskId: z.string().nullable(),
  title: z.string(),
  message: z.string(),
  path: z.string(),
})
export type BuildNotice = z.infer<typeof buildNoticeSchema>

const MAX_BODY = 180
/** The desktop notification for a build's notice, the same in every host. */
export function buildNotice(projectName: string, n: BuildNotice): { title: string; body: string } {
  const body = n.message.trim().replace(/\s+/g, ' ')
  return {
    title: `${n.title} · ${projectName}`,
    body: body.length > MAX_BODY ? `${body.slice(0, MAX_BODY - 1)}…` : body,
  }
}

const taskState = z.enum([
  'building',
  'verifying',
  'awaiting approval',
  'accepted',
  'rejected',
  'paused',
  'escalated',
  'rolled back',
  'stopped',
  'skipped',
])

/** What the panel shows of the project's build: the running one, or the last one while the core runs. */
export const buildProgressSchema = z.object({
  running: z.boolean(),
  mode: buildModeSchema.nullable(),
  startedAt: z.number().nullable(),
  /** Pending task ids in build order when it started. */
  order: z.array(z.string()),
  maxAttempts: z.number().int(),
  /** The task being worked on: its attempt and the step it is at (lifecycle phase, gate, verification). */
  current: z
    .object({ taskId: z.string(), name: z.string(), attempt: z.number().int(), step: z.string() })
    .nullable(),
  /** The verification in progress (or the last one), its verdicts as they arrive. */
  verification: z
    .object({
      taskId: z.string(),
      nonce: z.string(),
      criteria: z.array(z.object({ ref: z.string(), kind: criterionKind, text: z.string() })),
      verdicts: z.array(criterionVerdictSchema),
      outcome: outcome.nullable(),
    })
    .nullable(),
  /** Each task this build touched, in the order it did. */
  tasks: z.array(
    z.object({ taskId: z.string(), name: z.string(), attempts: z.number().int(), state: taskState }),
  ),
  /** The last lines of what happened, oldest first. */
  log: z.array(z.string()),
  /** Interactive mode: the question the build waits on (answered with `queue.approve`). */
  approval: z.object({ taskId: z.string().nullable(), question: z.string() }).nullable(),
  /** Lanes: the user's edits a merged task's apply waits on (answered with `queue.answerUserEdits`). */
  userEdits: userEditsQuestionSchema.omit({ type: true }).nullable().optional(),
  result: z
    .object({ status: buildStatus, message: z.string(), costUsd: z.number(), durationMs: z.number() })
    .nullable(),
  /** Tasks built at once (`--parallel`, the Build controls' "Lanes"); 1 is the serial build. */
  parallel: z.number().int(),
  /** A parallel build's lanes by lane number: the working ones, and each lane's last task once it ended. */
  lanes: z.array(buildLaneSchema),
})
export type BuildProgress = z.infer<typeof buildProgressSchema>
type TaskState = z.infer<typeof taskState>

export const idleBuild = (maxAttempts = 3): BuildProgress => ({
  running: false,
  mode: null,
  startedAt: null,
  order: [],
  maxAttempts,
  current: null,
  verification: null,
  tasks: [],
  log: [],
  approval: null,
  userEdits: null,
  result: null,
  parallel: 1,
  lanes: [],
})

const LOG_LINES = 40

function setTask(p: BuildProgress, taskId: string, state: TaskState, name?: string): BuildProgress['tasks'] {
  const found = p.tasks.find((t) => t.taskId === taskId)
  if (!found) return [...p.tasks, { taskId, name: name ?? taskId, attempts: 0, state }]
  return p.tasks.map((t) => (t.taskId === taskId ? { ...t, state, ...(name ? { name } : {}) } : t))
}

/** A person's line for an event, or null for one the progress already shows (or too small to log). */
function logLine(e: QueueBuildEvent): string | null {
  switch (e.type) {
    case 'build.started':
      return `Build (${e.mode}): ${e.order.length} pending task${e.order.length === 1 ? '' : 's'}`
    case 'build.attempt':
      return `${e.taskId} "${e.name}": attempt ${e.attempt}`
    case 'verify.started':
      return `Verifying ${e.taskId}: ${e.criteria.length} criteri${e.criteria.length === 1 ? 'on' : 'a'}`
    case 'verify.criterion':
      return `${e.verdict.ref} ${e.verdict.kind} ${e.verdict.answer}: ${e.verdict.reason}`
    case 'verify.completed':
      return `VERIFY ${e.outcome} (nonce ${e.nonce})`
    case 'build.accepted':
      return `${e.taskId} accepted`
    case 'build.rejected':
      return `${e.taskId} rejected (failure ${e.failures}): ${e.reason}`
    case 'build.retry':
      return `${e.taskId}: trying again with the reasons (${e.failures} of ${e.maxFailures} failures)`
    case 'build.replan':
      return `${e.taskId} got stuck: re-planning it from scratch`
    case 'build.user-edits':
      return `${e.taskId} (task ${e.task}, lane ${e.lane}) waits: you changed ${e.paths.join(', ')}, which it changes too`
    case 'build.user-edits-answered':
      return e.message
    case 'build.skipped':
      return `Skipped ${e.taskId} "${e.name}": it ${e.reason}`
    case 'build.rollback':
      return `Rolled back to ${e.to}`
    case 'build.notification':
    case 'build.budget':
    case 'build.kept':
      return e.message
    case 'build.finished':
      return `Build ${e.status}: ${e.message}`
    case 'build.approved':
      return `${e.taskId ?? 'The task'} ${e.approved ? 'approved' : 'not approved'}`
    case 'build.settled':
      return `${e.taskId} ${e.decision} after the build ended`
    case 'build.lane':
      return `${e.taskId}: lane ${e.lane}, task ${e.task} (attempt ${e.attempt})`
    case 'build.merged':
      return `${e.taskId} merged as task ${e.task}${e.verifiedAgain ? ', verified again on the merged tree' : ''}`
    case 'build.rerun':
      return `${e.taskId} runs again on the new base: ${e.reason}`
    case 'build.worker':
      return e.retryOf
        ? `${e.taskId} runs again on ${e.where}: ${e.retryOf.where} failed (${e.retryOf.fault})`
        : `${e.taskId} runs on ${e.where}`
    case 'task.failed':
      return `Attempt failed (${e.reason}): ${e.message}`
    case 'gate.result':
      return e.severity === 'pass' ? null : `Gate ${e.gate}: ${e.message}`
    default:
      return null
  }
}

/** The step a lifecycle or verification event puts the current task at; null leaves it. */
function stepOf(e: QueueBuildEvent): string | null {
  switch (e.type) {
    case 'task.started':
      return 'Taking the pre-task snapshot'
    // The pre-task snapshot is followed by the model call that reads the task into its structured form.
    case 'snapshot.created':
      return e.kind === 'task-pre' ? 'Reading the task' : null
    case 'task.parsed':
      return 'Task read: starting iteration 1'
    case 'iteration.started':
      return `Iteration ${e.iteration ?? 1} of ${e.maxIterations} (${e.phase})`
    case 'phase.changed':
      return `Phase: ${e.to}`
    case 'tool.called':
      return `Iteration ${e.iteration ?? 1}: ${e.name}`
    case 'gate.result':
      return `Gate ${e.gate}: ${e.severity}`
    case 'limit.waiting':
      return e.message
    case 'task.completed':
      return 'Task complete: verifying'
    case 'verify.started':
      return `Verifying ${e.criteria.length} criteri${e.criteria.length === 1 ? 'on' : 'a'}`
    case 'verify.criterion':
      return `Verified ${e.verdict.ref}: ${e.verdict.answer}`
    case 'verify.completed':
      return `VERIFY ${e.outcome}`
    default:
      return null
  }
}

/** Task states an ended build leaves for the user to decide on. */
const waitingStates: readonly TaskState[] = ['paused', 'escalated', 'awaiting approval']

/**
 * An ended build the user has answered: the task it stopped on is accepted or rejected, so once no task waits any
 * more the build is no longer paused (or escalated) but stopped, and says why. One fact for every place that shows
 * it (the header, the chat's build strip, the Queue's "Last build"), in the core, so a reload says the same.
 */
function settle(p: BuildProgress, taskId: string, decision: 'accepted' | 'rejected'): BuildProgress {
  const task = p.tasks.find((t) => t.taskId === taskId)
  if (p.running || !p.result || !task) return p
  const tasks = setTask(p, taskId, decision)
  const waiting = tasks.some((t) => waitingStates.includes(t.state))
  if (waiting || (p.result.status !== 'paused' && p.result.status !== 'escalated')) return { ...p, tasks }
  const message = `It ended ${p.result.status} on ${task.name}, which you ${decision} since: nothing waits for you. Build again to go on with the queue.`
  return { ...p, tasks, result: { ...p.result, status: 'stopped', message } }
}

/** Folds one event into the progress (pure: the core and the tests use the same function). */
export function applyBuildEvent(p: BuildProgress, e: QueueBuildEvent, now: number): BuildProgress {
  const line = logLine(e)
  let next: BuildProgress = line ? { ...p, log: [...p.log, line].slice(-LOG_LINES) } : p
  const lanes = foldLane(p.lanes, e, stepOf(e), new Map(p.tasks.map((t) => [t.taskId, t.name])))
  if (lanes !== p.lanes) next = { ...next, lanes: [...lanes] }
  switch (e.type) {
    case 'build.started':
      return {
        ...idleBuild(p.maxAttempts),
        running: true,
        mode: e.mode,
        startedAt: now,
        order: e.order,
        log: next.log,
      }
    case 'build.attempt': {
      const tasks = setTask(next, e.taskId, 'building', e.name).map((t) =>
        t.taskId === e.taskId ? { ...t, attempts: e.attempt } : t,
      )
      return {
        ...next,
        tasks,
        current: { taskId: e.taskId, name: e.name, attempt: e.attempt, step: 'Starting' },
      }
    }
    case 'verify.started':
      next = {
        ...next,
        tasks: setTask(next, e.taskId, 'verifying'),
        verification: { taskId: e.taskId, nonce: e.nonce, criteria: e.criteria, verdicts: [], outcome: null },
      }
      break
    case 'verify.criterion':
      if (next.verification?.nonce === e.nonce) {
        next = {
          ...next,
          verification: { ...next.verification, verdicts: [...next.verification.verdicts, e.verdict] },
        }
      }
      break
    case 'verify.completed':
      if (next.verification?.nonce === e.nonce)
        next = { ...next, verification: { ...next.verification, outcome: e.outcome } }
      break
    case 'build.approval':
      return {
        ...next,
        approval: { taskId: e.taskId, question: e.question },
        tasks: e.taskId ? setTask(next, e.taskId, 'awaiting approval') : next.tasks,
      }
    case 'build.approved':
      return { ...next, approval: null }
    case 'build.user-edits': {
      const { taskId, name, task, lane, paths, question } = e
      return { ...next, userEdits: { taskId, name, task, lane, paths, question } }
    }
    case 'build.user-edits-answered':
      return { ...next, userEdits: null }
    case 'build.settled':
      return settle(next, e.taskId, e.decision)
    case 'build.accepted':
      return { ...next, tasks: setTask(next, e.taskId, 'accepted'), current: null }
    case 'build.rejected':
      return { ...next, tasks: setTask(next, e.taskId, 'rejected') }
    case 'build.rollback':
      return { ...next, tasks: setTask(next, e.taskId, 'rolled back') }
    case 'build.skipped':
      return { ...next, tasks: setTask(next, e.taskId, 'skipped', e.name) }
    case 'build.finished': {
      // A parallel build ends on every task still in a lane; a serial one on the task it was on.
      const inLanes = workingLanes(p.lanes).map((l) => l.taskId)
      const stuck = inLanes.length > 0 ? inLanes : p.current ? [p.current.taskId] : []
      const state: TaskState | null =
        e.status === 'stopped'
          ? 'stopped'
          : e.status === 'complete'
            ? null
            : e.status === 'escalated'
              ? 'escalated'
              : 'paused'
      return {
        ...next,
        running: false,
        userEdits: null,
        current: null,
        approval: null,
        tasks: state
          ? stuck.reduce((ts, id) => setTask({ ...next, tasks: ts }, id, state), next.tasks)
          : next.tasks,
        result: { status: e.status, message: e.message, costUsd: e.costUsd, durationMs: e.durationMs },
      }
    }
  }
  const step = stepOf(e)
  return step && next.current ? { ...next, current: { ...next.current, step } } : next
}

/** One stored verdict (migration 009), as `queue.verdicts` returns it. */
export const storedVerdictSchema = z.object({
  id: z.number().int(),
  runId: z.number().int().nullable(),
  ref: z.string(),
  kind: criterionKind,
  criterion: z.string(),
  answer,
  reason: z.string(),
  costUsd: z.number(),
  createdAt: z.number(),
})

/** A task's verifications, newest first, each with its verdicts in criterion order. */
export const verificationSchema = z.object({
  nonce: z.string(),
  at: z.number(),
  /** As verification combines them: a NO is FAIL, else a NEEDS_HUMAN is NEEDS_HUMAN, else PASS. */
  outcome,
  verdicts: z.array(storedVerdictSchema),
  /**
   * The attempt's lifecycle task number: what it changed is task-N-pre → task-N-post (the Queue shows its files
   * and diff). Null or absent when unknown (a verification without a run).
   */
  task: z.number().int().nullable().optional(),
})
export type Verification = z.infer<typeof verificationSchema>
export type StoredVerdict = z.infer<typeof storedVerdictSchema>

/** Groups a task's stored verdicts (oldest first) into verifications by nonce, newest first. */
export function groupVerifications(rows: readonly (StoredVerdict & { nonce: string })[]): Verification[] {
  const byNonce = new Map<string, Verification>()
  for (const { nonce, ...v } of rows) {
    const found = byNonce.get(nonce)
    if (found) found.verdicts.push(v)
    else byNonce.set(nonce, { nonce, at: v.createdAt, outcome: 'PASS', verdicts: [v] })
  }
  const out = [...byNonce.values()].map((g) => ({
    ...g,
    outcome: combineOutcome(g.verdicts),
  }))
  return out.reverse()
}
