// Where a build's lanes run (issue #39, DESIGN.md §18): `.ralph/config.json`'s "workers". Shared, so Settings →
// Workers checks a value against the same schema the core reads it with, and shows its error next to the field.
import { z } from 'zod'

export const workerBackends = ['local', 'docker', 'kubernetes'] as const
export type WorkerBackend = (typeof workerBackends)[number]

/** The image `npm run worker:image` builds from docker/worker.Dockerfile. */
export const DEFAULT_WORKER_IMAGE = 'ralph-worker:node20'

export const workersConfigSchema = z.strictObject({
  backend: z.enum(workerBackends).default('local'),
  /** The Docker image a job runs in (it must have `ralph` on its PATH). */
  image: z.string().min(1).max(500).default(DEFAULT_WORKER_IMAGE),
  /** Docker's network mode for the job's container: "bridge" (the engine's default), "host", or a network's name. */
  network: z.string().min(1).max(200).optional(),
  cpus: z.number().positive().max(256).default(2),
  memoryMb: z
    .number()
    .int()
    .min(64)
    .max(1024 * 1024)
    .default(4096),
  pids: z.number().int().min(16).max(1_000_000).default(1024),
  /** The Docker engine jobs run on: `unix://…`, `ssh://user@host`, `tcp://host:2376` (absent: $DOCKER_HOST, else the local socket). */
  dockerHost: z.string().min(1).max(500).optional(),
  /** The cluster jobs run on: the kubeconfig's context (absent: its current one) and the namespace (absent: the context's). */
  kubernetes: z
    .strictObject({
      context: z.string().min(1).max(253).optional(),
      namespace: z.string().min(1).max(63).optional(),
    })
    .default({}),
  /** After a worker fault (died, unreachable, past its deadline, a bad result) the lane runs once more: on a worker of the same backend, or on this machine. */
  retry: z.enum(['worker', 'local']).default('worker'),
  /** Vault secrets (by name) the user ticked to go to remote workers for MCP servers; no other leaves the machine. */
  remoteSecrets: z.array(z.string().min(1).max(200)).max(100).default([]),
  /** A job running longer is killed, and its lane fails. */
  timeoutMinutes: z
    .number()
    .positive()
    .max(7 * 24 * 60)
    .default(120),
})
export type WorkersConfig = z.infer<typeof workersConfigSchema>
export const defaultWorkersConfig: WorkersConfig = workersConfigSchema.parse({})
