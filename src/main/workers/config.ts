// Where a build's lanes run (issue #39): `.ralph/config.json`'s "workers" ({ "backend": "docker", "image": …,
// limits … }), beside "lanes", overridden per build by `ralph build --workers local|docker|kubernetes`. A field that is
// there but wrong is an error naming it: a build silently falling back to this machine would surprise more.
import { readFile } from 'node:fs/promises'
import { z } from 'zod'
import { AppError } from '../../shared/errors'
import { ifMissing, ralphPath } from '../workspace'
import type { ContainerLimits } from './dockerSpec'

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

const EXPECTED =
  'Expected "workers": { "backend": "local" | "docker" | "kubernetes", "image": "ralph-worker:node20", ' +
  '"network": "bridge" | "host", "cpus": 2, "memoryMb": 4096, "pids": 1024, "timeoutMinutes": 120, ' +
  '"dockerHost": "ssh://user@host", "kubernetes": { "context": …, "namespace": … }, "retry": "worker" | "local", ' +
  '"remoteSecrets": ["NAME", …] }.'

/** The project's "workers" settings; a missing file or field means the defaults (this machine). */
export async function readWorkersConfig(projectDir: string): Promise<WorkersConfig> {
  const file = ralphPath(projectDir, 'config')
  const raw = await readFile(file, 'utf8').catch(ifMissing(null))
  if (raw === null || raw.trim() === '') return defaultWorkersConfig
  return parseWorkersConfig(raw, file)
}

/** The "workers" field of config.json's text (pure; `file` names it in errors). */
export function parseWorkersConfig(raw: string, file: string): WorkersConfig {
  let json: unknown
  try {
    json = JSON.parse(raw)
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err
    throw new AppError('config', `${file} is not valid JSON (${err.message}). Fix it, then try again.`)
  }
  const field = (json as { workers?: unknown } | null)?.workers
  if (field === undefined) return defaultWorkersConfig
  const parsed = workersConfigSchema.safeParse(field)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    const where = issue?.path.length ? `workers.${issue.path.join('.')}` : 'workers'
    throw new AppError(
      'config',
      `"${where}" in ${file} is not valid (${issue?.message ?? 'unknown'}). ${EXPECTED}`,
    )
  }
  return parsed.data
}

/** The container limits of a job from the settings. */
export function containerLimits(config: WorkersConfig): ContainerLimits {
  return {
    cpus: config.cpus,
    memoryBytes: config.memoryMb * 1024 * 1024,
    pids: config.pids,
    wallTimeMs: Math.round(config.timeoutMinutes * 60_000),
  }
}
