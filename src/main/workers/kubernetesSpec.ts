// The Kubernetes objects of one job (issue #39), built apart from any API call: a `batch/v1` Job that runs the worker
// once (no retry, a deadline, cleaned by the cluster after a while), and the per-job Secret that carries the model key
// (as the container's environment through secretKeyRef) and the job's tar file (a read-only file in the pod). A
// Secret holds at most 1 MiB (the API server's limit), which bounds the job's tar: see `MAX_JOB_TAR_BYTES`.
import type { V1Job, V1Secret } from '@kubernetes/client-node'
import { AppError } from '../../shared/errors'
import { WORKER_LABEL } from './dockerSpec'

export { WORKER_LABEL }

/** The container's name in the pod (the log is read from it). */
export const WORKER_CONTAINER = 'worker'
/** The Secret's key for the job's tar file, and the folder it appears in inside the pod. */
export const JOB_TAR_KEY = 'job.tar'
export const JOB_MOUNT = '/job'
/** A writable scratch folder in the pod (an emptyDir): the worker's result goes there. */
export const SCRATCH_MOUNT = '/ralph'
/** The API server refuses a Secret whose data is over 1 MiB; the key and the names need a little of it. */
export const MAX_JOB_TAR_BYTES = 1024 * 1024 - 16 * 1024
/** The API server's limit on a Secret's data (the sum of its values' bytes). */
export const SECRET_LIMIT_BYTES = 1024 * 1024

const kib = (bytes: number): string => `${Math.ceil(bytes / 1024)} KiB`

/**
 * Whether a job fits its Secret: the job's tar file (the base state's bundle and the task) and the environment (model
 * key, ticked vault secrets) together. A job that does not fit is refused before anything is made on the cluster,
 * as the user's choice to make (a bigger job will never fit), not a worker fault to retry.
 */
export function jobSizeProblem(tarBytes: number, secretEnv: Record<string, string>): AppError | null {
  const envBytes = Object.entries(secretEnv).reduce(
    (sum, [name, value]) => sum + Buffer.byteLength(name) + Buffer.byteLength(value),
    0,
  )
  if (tarBytes <= MAX_JOB_TAR_BYTES && tarBytes + envBytes <= SECRET_LIMIT_BYTES - 4 * 1024) return null
  return new AppError(
    'invalid-input',
    `This lane's job is ${kib(tarBytes + envBytes)} (the project's state as a git bundle, the task and its ` +
      `secrets), over the ${kib(MAX_JOB_TAR_BYTES)} a Kubernetes job can carry: it travels in the job's Secret, ` +
      'which the Kubernetes API limits to 1 MiB. Use the docker backend for this project (--workers docker, or ' +
      "Settings → Workers), or make the project's state smaller (large files out of the project folder).",
    { tarBytes, envBytes, limitBytes: MAX_JOB_TAR_BYTES },
  )
}

/** How long the cluster keeps a finished Job (and its pod and log) before removing it, when Ralph could not. */
export const TTL_AFTER_FINISHED_S = 3600

export interface KubeLimits {
  /** CPUs the container may use (1.5 = one and a half cores). */
  cpus?: number
  memoryBytes?: number
  /** The Job's activeDeadlineSeconds: the cluster stops it when it runs longer. */
  wallTimeMs: number
}

export interface KubeSpecInput {
  /** The Job's and the Secret's name (one name for both). */
  name: string
  image: string
  command: string[]
  /** Plain environment (no secret here: it would be readable in the Job's spec). */
  env?: Record<string, string>
  /** Environment that comes from the Secret (the model key). */
  secretEnv?: Record<string, string>
  /** The job's tar file, put in the Secret and seen in the pod as `${JOB_MOUNT}/${JOB_TAR_KEY}`. */
  jobTar?: Buffer
  limits: KubeLimits
  labels?: Record<string, string>
}

/** A name the API accepts for a Job (a DNS label, ≤ 63 characters, and the pod's name adds 6 to it). */
export function jobName(random: string): string {
  const tail = random
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '')
    .slice(0, 12)
  if (!tail) throw new Error('jobName needs some letters or digits')
  return `ralph-job-${tail}`
}

/** Kubernetes' quantity for a byte count (the API accepts a plain integer of bytes). */
const bytes = (n: number): string => String(Math.round(n))
/** CPUs as millicores ("1500m"). */
const millicores = (cpus: number): string => `${Math.max(1, Math.round(cpus * 1000))}m`

const SECRET_ENV_KEY = /^[-._a-zA-Z0-9]+$/

/** The per-job Secret: the secret environment and the job's tar file. `owner` ties it to the Job for the cluster's GC. */
export function secretManifest(
  input: Pick<KubeSpecInput, 'name' | 'secretEnv' | 'jobTar' | 'labels'>,
  owner?: { name: string; uid: string },
): V1Secret {
  const data: Record<string, string> = {}
  for (const [k, v] of Object.entries(input.secretEnv ?? {})) {
    if (!SECRET_ENV_KEY.test(k) || k === JOB_TAR_KEY)
      throw new Error(`${k} cannot be a key of a Kubernetes Secret`)
    data[k] = Buffer.from(v, 'utf8').toString('base64')
  }
  if (input.jobTar) data[JOB_TAR_KEY] = input.jobTar.toString('base64')
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    metadata: {
      name: input.name,
      labels: { ...input.labels, [WORKER_LABEL]: '1' },
      // Removed by the cluster with its Job (ttlSecondsAfterFinished) when Ralph could not delete it itself.
      ...(owner
        ? {
            ownerReferences: [
              {
                apiVersion: 'batch/v1',
                kind: 'Job',
                name: owner.name,
                uid: owner.uid,
                blockOwnerDeletion: false,
              },
            ],
          }
        : {}),
    },
    data,
  }
}

/** The Job: one pod, never retried, stopped at the deadline, removed by the cluster an hour after it ends. */
export function jobManifest(input: KubeSpecInput): V1Job {
  const { cpus, memoryBytes, wallTimeMs } = input.limits
  const limits: Record<string, string> = {
    ...(cpus !== undefined ? { cpu: millicores(cpus) } : {}),
    ...(memoryBytes !== undefined ? { memory: bytes(memoryBytes) } : {}),
  }
  const labels = { ...input.labels, [WORKER_LABEL]: '1' }
  const env = [
    ...Object.entries(input.env ?? {}).map(([name, value]) => ({ name, value })),
    ...Object.keys(input.secretEnv ?? {}).map((name) => ({
      name,
      valueFrom: { secretKeyRef: { name: input.name, key: name } },
    })),
  ]
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: input.name, labels },
    spec: {
      backoffLimit: 0,
      activeDeadlineSeconds: Math.max(1, Math.ceil(wallTimeMs / 1000)),
      ttlSecondsAfterFinished: TTL_AFTER_FINISHED_S,
      template: {
        metadata: { labels },
        spec: {
          restartPolicy: 'Never',
          // The worker needs no access to the cluster's API.
          automountServiceAccountToken: false,
          containers: [
            {
              name: WORKER_CONTAINER,
              image: input.image,
              command: input.command,
              env,
              // Requests equal to the limits: the scheduler places the job where its limits fit.
              ...(Object.keys(limits).length > 0 ? { resources: { limits, requests: limits } } : {}),
              volumeMounts: [
                ...(input.jobTar ? [{ name: 'job', mountPath: JOB_MOUNT, readOnly: true }] : []),
                { name: 'scratch', mountPath: SCRATCH_MOUNT },
              ],
            },
          ],
          volumes: [
            // Only the tar file from the Secret: the key stays out of the pod's files.
            ...(input.jobTar
              ? [
                  {
                    name: 'job',
                    secret: { secretName: input.name, items: [{ key: JOB_TAR_KEY, path: JOB_TAR_KEY }] },
                  },
                ]
              : []),
            { name: 'scratch', emptyDir: {} },
          ],
        },
      },
    },
  }
}
