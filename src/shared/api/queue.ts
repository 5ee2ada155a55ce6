import { z } from 'zod'
import { projectId, projectOnly } from './common'
import { mutationResultSchema, priorities, queueViewSchema, SPEC_MAX_CHARS } from '../queue'
import {
  buildModeSchema,
  buildNoticeSchema,
  buildProgressSchema,
  queueBuildEventSchema,
  userEditsAnswerSchema,
  verificationSchema,
} from '../queueBuild'
import { MAX_BUILD_LANES } from '../buildLanes'
import { workerBackends } from '../workersConfig'
import { defineCalls, defineEvents } from './define'

/**
 * The work queue for the Queue panel (DESIGN.md §16): the same use-cases as `ralph query|task|issue`, addressed by
 * project id. Every mutation returns the updated state and fires `queue.changed`.
 */

const taskId = z.string().trim().min(1).max(200)
const line = z.string().max(10_000)
const name = z.string().trim().min(1, 'A task needs a name.').max(1_000)
const criteria = z.array(line).max(100)
const deps = z.array(taskId).max(200)
const priority = z.enum(priorities)
const lanesWords = `Lanes is how many tasks build at once: a whole number from 1 to ${MAX_BUILD_LANES}.`
const parallel = z
  .number({ error: lanesWords })
  .int({ error: lanesWords })
  .min(1, { error: lanesWords })
  .max(MAX_BUILD_LANES, { error: lanesWords })
const workersWords = `Workers is where each lane's task runs: ${workerBackends.join(', ')}.`
const workers = z.enum(workerBackends, { error: workersWords })

/** One file of `.ralph/notifications/` (escalations, completions), newest first. */
export const queueNotificationSchema = z.object({
  file: z.string(),
  /** The `<event>` part of `<event>-<iso-time>.md`. */
  event: z.string(),
  /** When it was written (the file's modification time, ms since the epoch). */
  at: z.number(),
  /** Its first heading, or the file name without the heading. */
  title: z.string(),
  /** The text after the heading, cut at 4,000 characters. */
  body: z.string(),
})
export type QueueNotification = z.infer<typeof queueNotificationSchema>

/**
 * A task the build handed to a person (seed 004 "needs_human"): its third failure rolled the project back, or it
 * got stuck again after a re-plan. Kept in SQLite (plan.jsonl's format is seed 001's); no build starts the task
 * until the user retries it, edits its notes or criteria, or removes it.
 */
export const queueEscalationSchema = z.object({
  taskId: z.string(),
  kind: z.enum(['failures', 'stuck']),
  /** What happened and what to do, as the notification says it. */
  message: z.string(),
  failures: z.number().int(),
  /** The snapshot the project was rolled back to, and the rollback's safety snapshot (the abandoned work). */
  rolledBackTo: z.string().nullable(),
  safetyTag: z.string().nullable(),
  /** When it was escalated (ms since the epoch). */
  at: z.number(),
})
export type QueueEscalation = z.infer<typeof queueEscalationSchema>

/**
 * A panel build's budget (DESIGN.md §16) and what it has used: `spentUsd` counts finished attempts, verifications
 * and the running attempt's recorded model calls; `alerts` are the budget events so far (75% warns, 100% stops),
 * the latest per kind. Elapsed time is counted from the progress's `startedAt`.
 */
export const buildBudgetStatusSchema = z.object({
  maxCostUsd: z.number().nullable(),
  maxMinutes: z.number().nullable(),
  spentUsd: z.number(),
  alerts: z.array(
    z.object({
      level: z.enum(['warn', 'stop']),
      kind: z.enum(['cost', 'time']),
      used: z.number(),
      limit: z.number(),
      message: z.string(),
    }),
  ),
})
export type BuildBudgetStatus = z.infer<typeof buildBudgetStatusSchema>

export const queueCalls = defineCalls({
  /** The queue as `ralph query` shows it: stage, tasks in file order, build order, issues, tombstones, warnings. */
  'queue.state': {
    input: projectOnly,
    output: queueViewSchema,
  },
  /**
   * Adds a pending task. `spec` is only needed while the queue has none: the spec file (project-relative, must
   * exist: `queue.saveSpec` creates one) is set first, as `ralph set-spec` does.
   */
  'queue.addTask': {
    mutates: true,
    input: z
      .object({
        projectId,
        name,
        notes: line.optional(),
        accept: criteria.optional(),
        deps: deps.optional(),
        priority: priority.optional(),
        spec: z.string().trim().min(1).max(4096).optional(),
      })
      .strict(),
    output: mutationResultSchema,
  },
  /**
   * A spec file (markdown, project-relative) as the task dialog's editor shows it: the queue's spec when no `path`
   * is given. `text` is null when the file does not exist yet (Save spec creates it).
   */
  'queue.spec': {
    input: z.object({ projectId, path: z.string().trim().min(1).max(4096).optional() }).strict(),
    output: z.object({ path: z.string().nullable(), exists: z.boolean(), text: z.string().nullable() }),
  },
  /** Writes a spec file (creating it and its folder): a markdown file inside the project, never in .ralph/ or .git. */
  'queue.saveSpec': {
    mutates: true,
    input: z
      .object({ projectId, path: z.string().trim().min(1).max(4096), text: z.string().max(SPEC_MAX_CHARS) })
      .strict(),
    output: z.object({ path: z.string(), created: z.boolean() }),
  },
  /** Changes the given fields of one task (an empty `accept` or `deps` clears them). */
  'queue.editTask': {
    mutates: true,
    input: z
      .object({
        projectId,
        id: taskId,
        name: name.optional(),
        notes: line.optional(),
        accept: criteria.optional(),
        deps: deps.optional(),
        priority: priority.optional(),
      })
      .strict(),
    output: mutationResultSchema,
  },
  /** Removes a task without doing it (`ralph task cancel`): the history shows it as cancelled. */
  'queue.removeTask': {
    mutates: true,
    input: z.object({ projectId, id: taskId }).strict(),
    output: mutationResultSchema,
  },
  /**
   * Moves a pending task one place earlier or later in the build order. Seed 001's records have no position:
   * `ralph build` takes dependencies first, then priority, then file order. So a move takes the neighbour's
   * priority and puts the task's line just before (up) or after (down) the neighbour's; a move across a
   * dependency is refused.
   */
  'queue.reorder': {
    mutates: true,
    input: z.object({ projectId, id: taskId, direction: z.enum(['up', 'down']) }).strict(),
    output: mutationResultSchema,
  },
  /** Accepts done tasks (they leave the file; the history keeps them). */
  'queue.accept': {
    mutates: true,
    input: z.object({ projectId, ids: z.array(taskId).min(1).max(200) }).strict(),
    output: mutationResultSchema,
  },
  /** Rejects a done task: a tombstone, and the task is pending again with the reason as its feedback. */
  'queue.reject': {
    mutates: true,
    input: z
      .object({ projectId, id: taskId, reason: z.string().trim().min(1, 'Say why.').max(2_000) })
      .strict(),
    output: mutationResultSchema,
  },
  /**
   * A done task back to pending for a fresh plan (the panel's "Re-plan"): recorded as a rejection whose reason
   * asks for one (history and next attempt's feedback), which does not count toward the task's failures.
   */
  'queue.replan': {
    mutates: true,
    input: z.object({ projectId, id: taskId, note: z.string().max(2_000).optional() }).strict(),
    output: mutationResultSchema,
  },
  /** The project's escalated tasks (no build starts them until retried, edited or removed), oldest first. */
  'queue.escalations': {
    input: projectOnly,
    output: z.object({ items: z.array(queueEscalationSchema) }),
  },
  /** Ends a task's escalation (`ralph build --retry`): its failures so far stop counting; the next build starts it. */
  'queue.retry': {
    mutates: true,
    input: z.object({ projectId, id: taskId }).strict(),
    output: z.object({ retried: queueEscalationSchema }),
  },
  'queue.addIssue': {
    mutates: true,
    input: z.object({ projectId, desc: z.string().trim().min(1).max(2_000) }).strict(),
    output: mutationResultSchema,
  },
  'queue.closeIssue': {
    mutates: true,
    input: z.object({ projectId, id: taskId }).strict(),
    output: mutationResultSchema,
  },
  /** `.ralph/notifications/*.md`, newest first. */
  'queue.notifications': {
    input: z.object({ projectId, limit: z.number().int().min(1).max(200).optional() }).strict(),
    output: z.object({ items: z.array(queueNotificationSchema), total: z.number().int() }),
  },
  /**
   * Starts `ralph build` on the project in the background and resolves once it has started: a task or build
   * already running, a queue with nothing to build or done tasks awaiting a decision are this call's error.
   * Progress comes as `queue.buildEvent` events. In interactive mode each PASS waits for `queue.approve`.
   * `parallel`: tasks built at once, each in its own lane (DESIGN.md §18); absent: the project's
   * `.ralph/config.json` "lanes.parallel", else 1.
   */
  'queue.build': {
    mutates: true,
    input: z
      .object({
        projectId,
        mode: buildModeSchema.optional(),
        parallel: parallel.optional(),
        /** Where each lane runs (`ralph build --workers`); absent: the project's "workers.backend". */
        workers: workers.optional(),
        maxCostUsd: z.number().positive().max(10_000).optional(),
        maxMinutes: z
          .number()
          .positive()
          .max(7 * 24 * 60)
          .optional(),
      })
      .strict(),
    output: z.object({ started: z.literal(true) }),
  },
  /** Answers the question an interactive build waits on: accept the task and go on, or pause with it done. */
  'queue.approve': {
    mutates: true,
    input: z.object({ projectId, approve: z.boolean() }).strict(),
    output: z.object({ answered: z.boolean() }),
  },
  /**
   * Answers the question a build with lanes waits on before an apply would overwrite the user's edits
   * (`build.user-edits`): keep-theirs, take-task or stop. False when the build asks none.
   */
  'queue.answerUserEdits': {
    mutates: true,
    input: z.object({ projectId, answer: userEditsAnswerSchema }).strict(),
    output: z.object({ answered: z.boolean() }),
  },
  /** Stops the project's build (inside a task, as Stop in the chat does, or between tasks); false if none ran. */
  'queue.stopBuild': {
    input: projectOnly,
    output: z.object({ stopped: z.boolean() }),
  },
  /**
   * The running build's progress, or the last one's since the core started (idle when none); `budget` once a
   * build has started.
   */
  'queue.buildStatus': {
    input: projectOnly,
    output: buildProgressSchema.extend({ budget: buildBudgetStatusSchema.optional() }),
  },
  /**
   * The project's build settings the Build controls start from: `parallel`, its "lanes.parallel" in
   * `.ralph/config.json` (1 when unset); `problem` says what is wrong with a config that cannot be read (a build
   * without a Lanes choice would fail with the same words).
   */
  'queue.buildDefaults': {
    input: projectOnly,
    output: z.object({
      parallel: z.number().int(),
      maxParallel: z.number().int(),
      /** The project's "workers.backend": where each lane runs unless the build chooses. */
      workers: workers.default('local'),
      problem: z.string().nullable(),
    }),
  },
  /** A task's stored verifications (every verdict with its criterion, answer, reason and cost), newest first. */
  'queue.verdicts': {
    input: z.object({ projectId, taskId }).strict(),
    output: z.object({ verifications: z.array(verificationSchema) }),
  },
})

export const queueEvents = defineEvents({
  /**
   * `.ralph/plan.jsonl` changed: through a queue call or a panel build (`commit`: its history commit), or from
   * outside — the CLI, the model's shell, a rollback, a hand edit — seen by the core's watcher (`commit` null).
   */
  'queue.changed': z.object({ projectId, commit: z.string().nullable() }),
  /** `.ralph/notifications/` changed (a note written or removed, by any writer). */
  'queue.notificationsChanged': z.object({ projectId }),
  /** One event of a build started from the panel (as `ralph build --json` prints them, streamed text aside). */
  'queue.buildEvent': z.object({ projectId, event: queueBuildEventSchema }),
  /** A build wrote a notification (escalation, pause, budget, completion): hosts raise it on the desktop. */
  'queue.notice': z.object({ projectId, notice: buildNoticeSchema }),
})
