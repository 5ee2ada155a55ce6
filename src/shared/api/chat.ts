import { z } from 'zod'
import { MAX_TOKEN_CAP } from '../budget'
import { projectId, projectOnly } from './common'
import { defineCalls, defineEvents } from './define'
import { MESSAGE_MAX_CHARS, taskAttachmentsSchema } from './tasks'

const id = z.number().int().positive()

/** The longest message the chat takes, in characters (the composer counts down to it before sending). */
export { MESSAGE_MAX_CHARS } from './tasks'

/** A task waiting for the user's answer to its question: the composer answers it, or it is dismissed. */
export const pendingQuestionSchema = z.object({
  task: z.number().int().positive(),
  runId: id,
  title: z.string().nullable(),
  question: z.string().nullable(),
})
export type PendingQuestionDto = z.infer<typeof pendingQuestionSchema>

export const chatModeSchema = z.enum(['task', 'ask'])
export type ChatMode = z.infer<typeof chatModeSchema>

/**
 * A run's status as the card shows it; `queued` while it waits for the running task to end, `starting` until the
 * loop has given the task its number.
 */
export const taskCardStatusSchema = z.enum([
  'queued',
  'starting',
  'running',
  'complete',
  'failed',
  'waiting',
  'interrupted',
  'stopped',
])
export type TaskCardStatus = z.infer<typeof taskCardStatusSchema>

/** What a task card shows, read back from the run's rows (migration 003): the same after a reload. */
export const taskCardSchema = z.object({
  task: z.number().int().nullable(),
  runId: z.number().int().nullable(),
  title: z.string().nullable(),
  type: z.string().nullable(),
  status: taskCardStatusSchema,
  /** Why it failed or stopped (`gates`, `stall`, `stopped` …) and the loop's words for it. */
  reason: z.string().nullable(),
  detail: z.string().nullable(),
  /** The words the task finished with: its summary, its question, or why it failed. */
  outcome: z.string().nullable(),
  /** A queued card's request, as the user wrote it (null once it has started). */
  request: z.string().nullable(),
  /** What the task parser found in the request: each requirement with its marker, and what must be preserved. */
  requirements: z.array(
    z.object({ marker: z.string(), description: z.string(), count: z.number().int().nullable() }),
  ),
  preserve: z.array(z.string()),
  /**
   * The questions the task asked, oldest first, each with the answers it offered as quick replies (issue 37); the
   * user's answers are their Task messages after the card. Absent: none (or a card older than this field).
   */
  questions: z.array(z.object({ text: z.string(), options: z.array(z.string()) })).optional(),
  iterations: z.number().int(),
  /** The newest iteration row (the one under way while the task runs) and its phase: where the task is or ended. */
  lastIteration: z.object({ number: z.number().int(), phase: z.string() }).nullable().optional(),
  startedAt: z.number().nullable(),
  endedAt: z.number().nullable(),
  cost: z.object({
    usd: z.number(),
    /** All prompt tokens, cache reads included. */
    inputTokens: z.number().int(),
    outputTokens: z.number().int(),
    /** Of `inputTokens`: served from the provider's prompt cache ("cached N%"). Absent: none. */
    cacheReadTokens: z.number().int().optional(),
    calls: z.number().int(),
    /** The spend per model, in the order each was first used (a fast model for side jobs makes two). */
    models: z
      .array(z.object({ provider: z.string(), model: z.string(), usd: z.number(), calls: z.number().int() }))
      .optional(),
  }),
  /** The latest tool calls (at most 50; `toolCallCount` says how many there were). */
  toolCalls: z.array(
    z.object({ iteration: z.number().int(), name: z.string(), path: z.string().nullable(), ok: z.boolean() }),
  ),
  toolCallCount: z.number().int(),
  gates: z.array(
    z.object({
      iteration: z.number().int(),
      attempt: z.number().int(),
      gate: z.string(),
      severity: z.string(),
      message: z.string(),
    }),
  ),
  /**
   * A completed task whose work is no longer in the folder: a rollback went back to before it (an Undo of that
   * rollback brings it back). Set by `chat.history` from the snapshot history; absent means on disk.
   */
  rolledBack: z.boolean().optional(),
  /** The login and base URL the task's engine session used (`engine.session`, kept with the run). */
  engineLogin: z.string().nullable().optional(),
  /** The caps the task ran under (dollars, tokens); absent: none. */
  caps: z.object({ usd: z.number().optional(), tokens: z.number().int().optional() }).optional(),
})
export type TaskCardDto = z.infer<typeof taskCardSchema>

/** What a model call (or a few) cost: an Ask answer's usage, recorded with the tasks' in llm_usage. */
export const usageSchema = z.object({
  usd: z.number(),
  /** All prompt tokens, cache reads included. */
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
  /** Of `inputTokens`: served from the provider's prompt cache. Absent: none. */
  cacheReadTokens: z.number().int().optional(),
  calls: z.number().int(),
  /** The price table knew the model (false: "price unknown"). */
  priced: z.boolean(),
})
export type UsageDto = z.infer<typeof usageSchema>

export const chatMessageSchema = z.object({
  id,
  conversationId: id,
  kind: z.enum(['user', 'task', 'answer', 'notice']),
  mode: chatModeSchema.nullable(),
  text: z.string(),
  /** An Ask answer or a notice that went wrong says so here. */
  error: z.string().nullable(),
  createdAt: z.number(),
  card: taskCardSchema.nullable(),
  /** An Ask answer's tokens and cost (absent for other messages, and for answers older than their recording). */
  usage: usageSchema.nullable().optional(),
})
export type ChatMessageDto = z.infer<typeof chatMessageSchema>

/** One tool call of an iteration, as the card's compact line and its expanded view show it. */
export const toolCallDetailSchema = z.object({
  seq: z.number().int(),
  name: z.string(),
  path: z.string().nullable(),
  ok: z.boolean(),
  durationMs: z.number().int(),
  /** The arguments as JSON, cut at a few thousand characters (`argsOmitted` says how many more there were). */
  args: z.string(),
  argsOmitted: z.number().int(),
  /** What the tool answered: its first line (ok) or the error's start; null when it was not kept. */
  result: z.string().nullable(),
  resultBytes: z.number().int(),
})
export type ToolCallDetailDto = z.infer<typeof toolCallDetailSchema>

/** What happened in an iteration, in order: the model's text, its tool calls, and the loop's notices. */
export const iterationEntrySchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('text'), text: z.string() }),
  z.object({ kind: z.literal('tool'), call: toolCallDetailSchema }),
  z.object({ kind: z.enum(['phase', 'stall', 'checkpoint', 'limit', 'retry']), text: z.string() }),
])
export type IterationEntryDto = z.infer<typeof iterationEntrySchema>

export const iterationDetailSchema = z.object({
  number: z.number().int(),
  phase: z.string(),
  /** How it ended (`continue`, `complete`, `checkpoint` …); null while it runs. */
  outcome: z.string().nullable(),
  startedAt: z.number(),
  endedAt: z.number().nullable(),
  entries: z.array(iterationEntrySchema),
  gates: taskCardSchema.shape.gates,
})
export type IterationDetailDto = z.infer<typeof iterationDetailSchema>

export const conversationSchema = z.object({
  id,
  projectId,
  title: z.string(),
  createdAt: z.number(),
  updatedAt: z.number(),
  messageCount: z.number().int(),
  current: z.boolean(),
})
export type ConversationDto = z.infer<typeof conversationSchema>

export const chatCalls = defineCalls({
  /** The project's conversations, newest (the current one) first; the current one is created if none exists. */
  'chat.conversations': {
    input: projectOnly,
    output: z.object({ current: conversationSchema, items: z.array(conversationSchema) }),
  },
  /** Starts a new current conversation (or keeps the current one if it has no message yet). */
  'chat.newConversation': {
    mutates: true,
    input: projectOnly,
    output: conversationSchema,
  },
  /** One page of messages, newest first; pass `nextBefore` back as `before` for the older page. */
  'chat.history': {
    input: z
      .object({
        projectId,
        conversationId: id.optional(),
        before: id.optional(),
        limit: z.number().int().min(1).max(200).optional(),
      })
      .strict(),
    output: z.object({
      conversationId: id,
      messages: z.array(chatMessageSchema),
      nextBefore: id.nullable(),
      /**
       * The project's task waiting for an answer, whichever conversation holds its card (first page only; absent
       * on older pages): the next Task message answers it only when it says so (`chat.send`'s `answering`).
       */
      pendingQuestion: pendingQuestionSchema.nullable().optional(),
    }),
  },
  /**
   * Records the message in the current conversation. Task mode starts the task, or queues it while another task
   * of this project runs here (it starts when that one ends; refused while a task runs in another process); Ask
   * mode answers in the background as a `chat.delta` stream and then an `answer` message.
   */
  'chat.send': {
    mutates: true,
    input: z
      .object({
        projectId,
        mode: chatModeSchema,
        text: z
          .string()
          .trim()
          .min(1, 'Write a message first.')
          .max(
            MESSAGE_MAX_CHARS,
            `A message can be at most ${MESSAGE_MAX_CHARS.toLocaleString('en')} characters.`,
          ),
        /**
         * Task mode: the task whose question this message answers (it continues that task). While a task waits for
         * an answer, a Task message without it is refused (never silently taken as the answer); with it, refused
         * when that task no longer waits (dismissed, rolled back), so an answer never becomes a task of its own.
         */
        answering: z.number().int().positive().optional(),
        /**
         * Task mode: the task's cost cap in dollars (a warning at 75%, the task stops at 100%, reason
         * `cost-cap`); absent: no cap. The same ceiling as a queue build's cost budget.
         */
        maxCostUsd: z
          .number()
          .positive('A cost cap must be more than $0; leave it empty for no cap.')
          .max(10_000, 'A cost cap can be at most $10,000.')
          .optional(),
        /**
         * Task mode: the task's token cap (prompt and answer tokens of its model calls), for a model with no price
         * the cost cap could count: a warning at 75%, the task stops at 100% (reason `cost-cap`). Absent: none.
         */
        maxTokens: z
          .number()
          .int('A token cap is a whole number of tokens.')
          .positive('A token cap must be more than 0 tokens; leave it empty for no cap.')
          .max(MAX_TOKEN_CAP, 'A token cap can be at most 10,000,000,000 tokens.')
          .optional(),
        /**
         * Task mode: images for the task (as `tasks.start`'s); a queued message keeps them in
         * `.ralph/attachments/queued-<card id>/` until it starts. Ask mode refuses them.
         */
        attachments: taskAttachmentsSchema.optional(),
      })
      .strict(),
    output: z.object({ conversationId: id, messageId: id, queued: z.boolean() }),
  },
  /**
   * Ends the task waiting for an answer without answering it: it ends as Stopped, its pre-task snapshot kept, and
   * the next Task message starts a new task. `task` names the one the user saw; refused when that one no longer waits.
   */
  'chat.dismissQuestion': {
    mutates: true,
    input: z.object({ projectId, task: z.number().int().positive() }).strict(),
    output: z.object({ task: z.number().int().positive() }),
  },
  /** Stops the Ask answers being written in the project; what they wrote so far stays, marked as stopped. */
  'chat.stopAnswer': {
    input: projectOnly,
    output: z.object({ stopped: z.boolean() }),
  },
  /** Removes a queued task (its card and the message that asked for it) before it starts. */
  'chat.removeQueued': {
    mutates: true,
    input: z.object({ projectId, messageId: id }).strict(),
    output: z.object({ removed: z.literal(true) }),
  },
  /**
   * Resumes the interrupted task of a card, named by its run (`card.runId`): the project's last task, whose
   * process died mid-task. The same task, card, pre-task snapshot and run go on from the iteration after the one
   * that was cut short. Refused while a task runs, or when that run is not the project's interrupted last task.
   */
  'chat.resume': {
    mutates: true,
    input: z.object({ projectId, runId: id }).strict(),
    output: z.object({ task: z.number().int().positive() }),
  },
  /**
   * A task's iterations, for its card's expanded view: the model's text, the tool calls (arguments and result,
   * long ones cut with a note), phase changes, stall notices and gate results, in order. Read from the run's rows.
   */
  'chat.taskDetail': {
    input: z.object({ projectId, runId: id }).strict(),
    output: z.object({
      runId: id,
      /** The latest iterations (at most 100); `earlier` says how many came before them. */
      iterations: z.array(iterationDetailSchema),
      earlier: z.number().int(),
    }),
  },
  /** Starts a queued task now, ahead of the others; refused while a task runs. */
  'chat.startQueued': {
    mutates: true,
    input: z.object({ projectId, messageId: id }).strict(),
    output: z.object({ started: z.literal(true) }),
  },
})

export const chatEvents = defineEvents({
  /** A conversation gained or changed a message: its history is stale. */
  'chat.changed': z.object({ projectId, conversationId: id }),
  /** Streamed text of an Ask answer being written. */
  'chat.delta': z.object({ projectId, messageId: id, text: z.string() }),
})
