// A worker's job and its result (issue #39, DESIGN.md §18): the files that travel between the coordinator (the app
// or `ralph build`) and `ralph worker` on another machine or in a container. A job is a folder holding `job.json`
// (this schema) and `base.bundle` (a git bundle of the lane's base snapshot); a result is a folder holding
// `result.json`, `result.bundle` (the task's snapshots) and `transcript.ndjson` (the worker's events).
//
// What never travels in a job: a model key (it reaches the worker only as its environment), a verification nonce or
// seal (the coordinator verifies the result itself), the vault's secrets. The schemas are strict, so a field of that
// kind — or any field this version does not know — is refused, never carried along silently.
import { z } from 'zod'
import { engineIds } from './api/engines'
import { providerIdSchema } from './settings'

export const WORKER_JOB_VERSION = 1

/** The files of a job folder and of a result folder. */
export const workerFiles = {
  job: 'job.json',
  baseBundle: 'base.bundle',
  result: 'result.json',
  resultBundle: 'result.bundle',
  transcript: 'transcript.ndjson',
} as const

const sha = z.string().regex(/^[0-9a-f]{40}$/, 'a full commit id (40 hex digits)')
const taskNumber = z.number().int().min(1)
const httpUrl = z
  .string()
  .refine(
    (v) => URL.canParse(v) && ['http:', 'https:'].includes(new URL(v).protocol),
    'a full http:// or https:// address',
  )

/** Where the model is: provider, base URL, model. The key is the worker's environment's (RALPH_API_KEY …). */
export const modelEndpointSchema = z.strictObject({
  provider: providerIdSchema,
  model: z.string().min(1),
  baseUrl: httpUrl.nullable(),
  /** The user's maximum context for local models; null: none. */
  localContextMax: z.number().int().positive().nullable().default(null),
})
export type ModelEndpoint = z.infer<typeof modelEndpointSchema>

/**
 * One MCP server the task gets, as the coordinator's lane would start it: enabled for the project, and approved (a
 * `.mcp.json` entry pinned to its SHA-256) or the user's own (Settings). Its `${NAME}` placeholders stay unfilled: the
 * worker fills them from RALPH_SECRET_<NAME> of its environment, where only the secrets ticked for remote workers are.
 */
export const jobMcpServerSchema = z.strictObject({
  name: z.string().min(1),
  origin: z.enum(['project', 'app']),
  config: z.union([
    z.strictObject({
      type: z.enum(['http', 'sse']),
      url: z.string().min(1),
      headers: z.record(z.string(), z.string()).optional(),
    }),
    z.strictObject({
      type: z.literal('stdio').optional(),
      command: z.string().min(1),
      args: z.array(z.string()).optional(),
      env: z.record(z.string(), z.string()).optional(),
    }),
  ]),
})
export type JobMcpServer = z.infer<typeof jobMcpServerSchema>

export const workerJobSchema = z.strictObject({
  ralph: z.literal('worker-job'),
  version: z.number().int(),
  /** When the coordinator made it (ms since the epoch). */
  createdAt: z.number(),
  /** The user's project, by name only (for display): its folder never leaves the coordinator. */
  project: z.strictObject({ name: z.string() }),
  base: z.strictObject({
    /** The snapshot commit the lane starts from; the bundle's `refs/ralph/base` names it. */
    commit: sha,
    /** The bundle file, relative to the job folder. */
    bundle: z.literal(workerFiles.baseBundle),
  }),
  task: z.strictObject({
    /** The task number the coordinator reserved: the result's task-N-pre/post carry it. */
    number: taskNumber,
    /** The queue task's id (t-…), null for a task that is not a queue task. */
    id: z.string().nullable(),
    name: z.string(),
    /** The request the task parser reads (its name, notes and acceptance criteria, as `ralph build` words it). */
    message: z.string().min(1),
    /** The queue task's section of task.md (spec, notes, criteria), which every iteration reads; null: none. */
    context: z.string().nullable(),
    /** The acceptance criteria as lines (`AC1 DET: …`): for display; the coordinator verifies them, not the worker. */
    criteria: z.array(z.string()),
    /** feedback.md for the first iteration (why earlier attempts failed); empty: none. */
    feedback: z.string(),
    /** Which attempt at the queue task this is (1 for the first). */
    attempt: z.number().int().min(1),
  }),
  settings: z.strictObject({
    maxIterations: z.number().int().min(1).nullable(),
    engine: z.enum(engineIds).nullable(),
    /** False: a usage limit fails the task instead of waiting for its reset. */
    waitForLimits: z.boolean(),
  }),
  lane: z.strictObject({
    number: z.number().int().min(1).max(99),
    /** The lane's setup command (`lanes.setup` of the project's .ralph/config.json); null: none. */
    setup: z.string().nullable(),
  }),
  model: modelEndpointSchema.nullable(),
  fastModel: modelEndpointSchema.nullable(),
  /** The MCP servers the task's loop starts (none for a job made before they travelled). */
  mcpServers: z.array(jobMcpServerSchema).default([]),
})
export type WorkerJob = z.infer<typeof workerJobSchema>

/** How the worker's task ended (the loop's own statuses). */
export const workerStatuses = ['complete', 'failed', 'needs-clarification', 'stopped', 'interrupted'] as const

export const workerResultSchema = z.strictObject({
  ralph: z.literal('worker-result'),
  version: z.number().int(),
  task: taskNumber,
  lane: z.number().int().min(1),
  /** The job's base commit, repeated so a result is checked against the job it answers. */
  base: sha,
  status: z.enum(workerStatuses),
  reason: z.string().nullable(),
  message: z.string(),
  /** The task's snapshots in the result bundle (null: the task never took one). */
  pre: sha.nullable(),
  post: sha.nullable(),
  costUsd: z.number(),
  iterations: z.number().int(),
  /** Which sandbox the model's commands ran in: bubblewrap, or the container itself where bwrap cannot run. */
  sandbox: z.enum(['bubblewrap', 'sandbox-exec', 'container']),
  /** The result bundle, relative to the result folder; null when there are no snapshots to bring back. */
  bundle: z.literal(workerFiles.resultBundle).nullable(),
  transcript: z.literal(workerFiles.transcript),
})
export type WorkerResult = z.infer<typeof workerResultSchema>

/** The worker's own events on stdout, beside the loop's (`ralph build --json` shapes, with their `lane`). */
export type WorkerEvent =
  | { type: 'worker.started'; task: number; lane: number; base: string; sandbox: WorkerResult['sandbox'] }
  | {
      type: 'worker.sandbox'
      lane: number
      sandbox: 'container'
      /** Why bubblewrap cannot run here, and that the container is the sandbox. */
      message: string
    }
  | {
      type: 'worker.finished'
      task: number
      lane: number
      status: WorkerResult['status']
      message: string
      pre: string | null
      post: string | null
    }
