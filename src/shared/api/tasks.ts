import { z } from 'zod'
import { projectId, projectOnly } from './common'
import { loopEventSchema } from '../loopEvents'
import { defineCalls, defineEvents } from './define'

/** One image sent with a call: base64 of at most 5 MB of bytes (the core checks the bytes themselves). */
export const taskAttachmentSchema = z
  .object({
    name: z.string().trim().min(1).max(200),
    mediaType: z.enum(['image/png', 'image/jpeg', 'image/webp', 'image/gif']),
    base64: z.string().max(Math.ceil((5 * 1024 * 1024) / 3) * 4, 'An attached image may be at most 5 MB.'),
  })
  .strict()

/** The images one task may carry: `tasks.start`, `chat.send` and `ralph run --image` alike. */
export const MAX_TASK_IMAGES = 8

/** The longest message (a task's request, a chat message): `tasks.start`, `chat.send` and `ralph run` alike. */
export const MESSAGE_MAX_CHARS = 100_000

export const messageTooLong = (length: number) =>
  `A message can be at most ${MESSAGE_MAX_CHARS.toLocaleString('en')} characters (this one has ${length.toLocaleString('en')}). Shorten it, or put the long part in a file of the project and name the file.`

/** The images one call may carry (`tasks.start`, `chat.send`). */
export const taskAttachmentsSchema = z
  .array(taskAttachmentSchema)
  .max(MAX_TASK_IMAGES, `Attach at most ${MAX_TASK_IMAGES} images to a task.`)

export const taskCalls = defineCalls({
  /** Starts a task in the background; progress arrives as `loop.event`. Refused while one runs on the project. */
  'tasks.start': {
    mutates: true,
    input: z
      .object({
        projectId,
        message: z
          .string()
          .trim()
          .min(1, 'Write what Ralph should do.')
          .refine((m) => m.length <= MESSAGE_MAX_CHARS, {
            error: (i) => messageTooLong(String(i.input).length),
          }),
        maxIterations: z.number().int().positive().max(10_000).optional(),
        /**
         * Images for the task (PNG, JPEG, WebP or GIF by their bytes, at most 5 MB each, at most 8): kept in
         * `.ralph/attachments/task-N/` and sent with every iteration. The web host takes bodies of up to 48 MB
         * for this call (and `chat.send`), 5 MB for every other.
         */
        attachments: taskAttachmentsSchema.optional(),
        /**
         * The number of the task waiting for an answer that this message answers (as chat.send's `answering`):
         * while a task waits, a message without it is refused, never taken as the answer.
         */
        answering: z.number().int().positive().optional(),
      })
      .strict(),
    output: z.object({ started: z.literal(true) }),
  },
  /**
   * Whether the configured model can see images (the offline model catalog; a model it does not know is assumed
   * to): the composer warns before images go to one that cannot (the task then gets a note naming them).
   * `model` is null when no provider is configured.
   */
  'tasks.modelSeesImages': {
    input: z.object({}).strict(),
    output: z.object({ model: z.string().nullable(), sees: z.boolean() }),
  },
  /** The images attached to a task (kept in `.ralph/attachments/task-N/`), for its card: names and sizes. */
  'tasks.attachments': {
    input: z.object({ projectId, task: z.number().int().positive() }).strict(),
    output: z.array(
      z.object({
        name: z.string(),
        mediaType: z.enum(['image/png', 'image/jpeg', 'image/webp', 'image/gif']),
        bytes: z.number().int(),
      }),
    ),
  },
  /** One of a task's images, for its card's thumbnail and large view: its bytes as base64. */
  'tasks.attachmentData': {
    input: z
      .object({ projectId, task: z.number().int().positive(), name: z.string().min(1).max(200) })
      .strict(),
    output: z.object({
      name: z.string(),
      mediaType: z.enum(['image/png', 'image/jpeg', 'image/webp', 'image/gif']),
      base64: z.string(),
    }),
  },
  /** Stops the running task: the in-flight call is aborted and the pre-task snapshot stays intact. */
  'tasks.stop': {
    input: projectOnly,
    output: z.object({ stopped: z.boolean() }),
  },
  'tasks.running': {
    input: projectOnly,
    output: z.object({ running: z.boolean() }),
  },
  /** Each recent project's state of work for the projects list: a status dot and its last task. */
  'tasks.activity': {
    input: z.object({}).strict(),
    output: z.array(
      z.object({
        projectId,
        status: z.enum(['running', 'waiting', 'failed', 'interrupted', 'idle']),
        lastTask: z
          .object({
            task: z.number().int(),
            title: z.string().nullable(),
            at: z.number(),
            /** How its run row says it ended (complete, failed, stopped …): the card's word, the header's too. */
            status: z.string().optional(),
          })
          .nullable(),
      }),
    ),
  },
})

/** How a task run ended (`loop.finished`, `ralph run`'s result): the one list of task outcomes. */
export const taskOutcomeSchema = z.enum([
  'complete',
  'failed',
  'stopped',
  'interrupted',
  'needs-clarification',
])
export type TaskOutcome = z.infer<typeof taskOutcomeSchema>

export const taskEvents = defineEvents({
  'loop.event': z.object({ projectId, event: loopEventSchema }),
  'loop.delta': z.object({ projectId, task: z.number(), iteration: z.number(), text: z.string() }),
  'loop.finished': z.object({
    projectId,
    task: z.number(),
    status: taskOutcomeSchema,
    message: z.string(),
  }),
})
