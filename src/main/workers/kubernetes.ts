// One job run as a Kubernetes `batch/v1` Job (issue #39, experimental until it has run on a real cluster). The Job
// is created first, then its Secret (the model key as the container's environment, the job's tar file as a read-only
// file) owned by it, so the cluster removes the Secret with the Job if Ralph cannot; the pod waits for its Secret.
// The pod's log is followed for the NDJSON events, and the result comes back through that same log (see
// kubernetesResultLines). At the end, and on Stop, the Job (with its pod) and the Secret are deleted.
import { randomBytes } from 'node:crypto'
import { PassThrough } from 'node:stream'
import { Log, type V1Job, type V1Pod } from '@kubernetes/client-node'
import { AppError } from '../../shared/errors'
import { noteFailure, type Logger } from '../workspace'
import { isKubeNotFound, kubeFailure, type KubeConnection } from './kubernetesClient'
import { unpackResultTar } from './kubernetesResult'
import { ResultCollector } from './kubernetesResultLines'
import {
  jobSizeProblem,
  WORKER_CONTAINER,
  jobManifest,
  jobName,
  secretManifest,
  type KubeLimits,
} from './kubernetesSpec'

export interface KubernetesJob {
  image: string
  command: string[]
  /** Plain environment, visible in the Job's spec: never a key. */
  env?: Record<string, string>
  /** Environment from the job's Secret: the model key. */
  secretEnv?: Record<string, string>
  /** The job's tar file (packJobTar), seen in the pod as /job/job.tar; at most MAX_JOB_TAR_BYTES. */
  jobInput?: Buffer
  /** Where the result the worker prints (`ralph worker --result-stdout`) is unpacked. */
  resultDir?: string
  limits: KubeLimits
  labels?: Record<string, string>
  /** Every line of the pod's log but the result's. */
  onLine?: (line: string) => void
  /** Stops the job: the Job and its Secret are deleted. */
  signal?: AbortSignal
  log: Logger
  /** How often the Job's state is read (tests shorten it). */
  pollMs?: number
  /** Told the Job's namespace and name once the cluster has accepted it. */
  onCreated?: (namespace: string, jobName: string) => void
}

export interface KubernetesOutcome {
  namespace: string
  jobName: string
  /** How the Job ended: its pod succeeded or failed, or the cluster stopped it at its deadline. */
  ended: 'complete' | 'failed' | 'deadline'
  /** The container's exit code (null: it never ran, or was killed without one). */
  exitCode: number | null
  /** The result was unpacked into resultDir. */
  resultTaken: boolean
  /** What went wrong, in one sentence (null when the Job completed). */
  problem: string | null
  logTail: string
  durationMs: number
}

/** The result through the log is bounded: kubelet rotates a container's log at 10 MiB by default. */
const MAX_RESULT_CHARS = 10 * 1024 * 1024
/** A Job the cluster has not ended this long after its own deadline is given up on (the cluster is not acting). */
const DEADLINE_GRACE_MS = 120_000
const TAIL_LINES = 20

const cancelled = () => new AppError('cancelled', 'The Kubernetes job was stopped.')

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(cancelled())
    const onAbort = () => {
      clearTimeout(t)
      reject(cancelled())
    }
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

/** The Job's end from its conditions, or null while it runs. */
export function jobEnd(job: V1Job): { ended: 'complete' | 'failed' | 'deadline'; message: string } | null {
  for (const c of job.status?.conditions ?? []) {
    if (c.status !== 'True') continue
    if (c.type === 'Complete') return { ended: 'complete', message: '' }
    if (c.type === 'Failed')
      return {
        ended: c.reason === 'DeadlineExceeded' ? 'deadline' : 'failed',
        message: c.message ?? c.reason ?? '',
      }
  }
  return null
}

const terminated = (pod: V1Pod | null) =>
  pod?.status?.containerStatuses?.find((s) => s.name === WORKER_CONTAINER)?.state?.terminated ?? null

/** The log can be read once the container has started (or ended). */
const logReadable = (pod: V1Pod): boolean => {
  const s = pod.status?.containerStatuses?.find((c) => c.name === WORKER_CONTAINER)?.state
  return Boolean(s?.running || s?.terminated)
}

/** Why a pod cannot start, when it never will on its own (a missing image, a bad spec). */
function stuckReason(pod: V1Pod): string | null {
  const waiting = pod.status?.containerStatuses?.find((c) => c.name === WORKER_CONTAINER)?.state?.waiting
  if (waiting && ['ErrImagePull', 'ImagePullBackOff', 'InvalidImageName'].includes(waiting.reason ?? ''))
    return `its image cannot be pulled (${waiting.reason}${waiting.message ? `: ${waiting.message}` : ''})`
  return null
}

/** How the Job ended, and what went wrong in one sentence (null: it completed); `end` null: the cluster never said. */
export function endOf(
  end: ReturnType<typeof jobEnd>,
  pod: V1Pod | null,
  where: string,
  wallTimeMs: number,
): { ended: KubernetesOutcome['ended']; problem: string | null } {
  const seconds = Math.ceil(wallTimeMs / 1000)
  if (!end)
    return {
      ended: 'deadline',
      problem: `The Kubernetes job ${where} did not end within its deadline of ${seconds} s and the cluster did not stop it: it was deleted.`,
    }
  if (end.ended === 'deadline')
    return {
      ended: 'deadline',
      problem: `The Kubernetes job ${where} ran past its deadline of ${seconds} s and the cluster stopped it.`,
    }
  if (end.ended === 'failed') {
    const t = terminated(pod)
    const why = t
      ? `exit code ${t.exitCode}${t.reason && t.reason !== 'Error' ? `, ${t.reason}` : ''}`
      : end.message || 'no reason given'
    return { ended: 'failed', problem: `The pod of the Kubernetes job ${where} failed (${why}).` }
  }
  return { ended: 'complete', problem: null }
}

export async function runKubernetesJob(conn: KubeConnection, job: KubernetesJob): Promise<KubernetesOutcome> {
  if (job.signal?.aborted) throw cancelled()
  const tooBig = jobSizeProblem(job.jobInput?.length ?? 0, job.secretEnv ?? {})
  if (tooBig) throw tooBig
  const started = Date.now()
  const { namespace } = conn
  const name = jobName(randomBytes(6).toString('hex'))
  const where = `${namespace}/${name}`
  const pollMs = job.pollMs ?? 1000
  const spec = { name, image: job.image, command: job.command, limits: job.limits, ...optional(job) }
  let step = 'creating the Job'
  let created = false
  const tail: string[] = []
  const collector = new ResultCollector()
  let stopLog: (() => void) | null = null
  try {
    const made = await conn.batch.createNamespacedJob({ namespace, body: jobManifest(spec) })
    created = true
    job.onCreated?.(namespace, name)
    step = "creating the job's Secret"
    await conn.core.createNamespacedSecret({
      namespace,
      body: secretManifest(spec, { name, uid: made.metadata?.uid ?? '' }),
    })

    step = "waiting for the job's pod"
    const deadlineAt = started + job.limits.wallTimeMs + DEADLINE_GRACE_MS
    let pod: V1Pod | null = null
    let end: ReturnType<typeof jobEnd> = null
    while (!end) {
      if (Date.now() > deadlineAt) break
      end = jobEnd(await conn.batch.readNamespacedJob({ name, namespace }))
      pod =
        (await conn.core.listNamespacedPod({ namespace, labelSelector: `job-name=${name}` })).items[0] ?? null
      if (pod && logReadable(pod)) break
      const stuck = pod && stuckReason(pod)
      if (stuck)
        return await finish('failed', null, `The pod of the Kubernetes job ${where} cannot start: ${stuck}.`)
      if (!end) await sleep(pollMs, job.signal)
    }

    if (pod && logReadable(pod)) {
      step = "following the pod's log"
      const lines = await followLog(conn, pod.metadata!.name!, (line) => {
        if (collector.take(line)) {
          if (collector.receivedChars > MAX_RESULT_CHARS)
            throw new AppError(
              'invalid-input',
              `The result of the Kubernetes job ${where} is over 10 MiB in its log.`,
            )
          return
        }
        tail.push(line)
        if (tail.length > TAIL_LINES) tail.shift()
        job.onLine?.(line)
      })
      stopLog = lines.stop
      await Promise.race([lines.ended, abortPromise(job.signal)])
      step = 'waiting for the Job to end'
      while (!end && Date.now() <= deadlineAt) {
        end = jobEnd(await conn.batch.readNamespacedJob({ name, namespace }))
        if (!end) await sleep(pollMs, job.signal)
      }
      pod =
        (await conn.core.listNamespacedPod({ namespace, labelSelector: `job-name=${name}` })).items[0] ?? pod
    }
    const { ended, problem } = endOf(end, pod, where, job.limits.wallTimeMs)
    // A failed pod's last words say why more often than its exit code.
    const last = tail
      .filter((l) => l.trim())
      .at(-1)
      ?.trim()
      .slice(0, 300)
    const said = ended === 'failed' && problem && last ? problem.replace(/\.$/, `: ${last}`) : problem
    return await finish(ended, terminated(pod)?.exitCode ?? null, said)
  } catch (err) {
    if (job.signal?.aborted) throw cancelled()
    throw kubeFailure(err, conn, step)
  } finally {
    stopLog?.()
    if (created) await deleteJob(conn, name, job.log)
  }

  async function finish(
    ended: KubernetesOutcome['ended'],
    exitCode: number | null,
    problem: string | null,
  ): Promise<KubernetesOutcome> {
    let resultTaken = false
    const tar = collector.finish()
    if (tar && job.resultDir) {
      step = "unpacking the job's result"
      await unpackResultTar(tar, job.resultDir)
      resultTaken = true
    }
    return {
      namespace,
      jobName: name,
      ended,
      exitCode,
      resultTaken,
      problem,
      logTail: tail.join('\n'),
      durationMs: Date.now() - started,
    }
  }
}

function optional(job: KubernetesJob) {
  return {
    ...(job.env ? { env: job.env } : {}),
    ...(job.secretEnv ? { secretEnv: job.secretEnv } : {}),
    ...(job.jobInput ? { jobTar: job.jobInput } : {}),
    ...(job.labels ? { labels: job.labels } : {}),
  }
}

function abortPromise(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_, reject) => {
    if (!signal) return
    if (signal.aborted) return reject(cancelled())
    signal.addEventListener('abort', () => reject(cancelled()), { once: true })
  })
}

/**
 * Follows the container's log (follow=true) line by line until it ends. `stop` only stops passing lines on: the
 * client's log stream has no error handler of its own, so aborting it would throw out of reach; the API server ends
 * the stream when the pod ends or is deleted, which `deleteJob` does next.
 */
async function followLog(
  conn: KubeConnection,
  pod: string,
  onLine: (line: string) => void,
): Promise<{ ended: Promise<void>; stop: () => void }> {
  const stream = new PassThrough()
  let rest = ''
  let stopped = false
  const ended = new Promise<void>((resolve, reject) => {
    stream.on('data', (chunk: Buffer) => {
      if (stopped) return
      const parts = (rest + chunk.toString('utf8')).split('\n')
      rest = parts.pop() ?? ''
      try {
        for (const line of parts) onLine(line.replace(/\r$/, ''))
      } catch (err) {
        stopped = true
        reject(err as Error)
      }
    })
    stream.on('end', () => {
      if (rest && !stopped) onLine(rest)
      resolve()
    })
  })
  await new Log(conn.kc).log(conn.namespace, pod, WORKER_CONTAINER, stream, { follow: true })
  return { ended, stop: () => (stopped = true) }
}

/** Deletes the Job with its pod (Background) and the Secret; one already gone is fine. */
async function deleteJob(conn: KubeConnection, name: string, log: Logger): Promise<void> {
  const { namespace } = conn
  await conn.batch
    .deleteNamespacedJob({ name, namespace, propagationPolicy: 'Background' })
    .catch((err: unknown) => {
      if (!isKubeNotFound(err))
        noteFailure(log, `the Kubernetes Job ${namespace}/${name} could not be deleted`, err)
    })
  await conn.core.deleteNamespacedSecret({ name, namespace }).catch((err: unknown) => {
    if (!isKubeNotFound(err))
      noteFailure(log, `the Kubernetes Secret ${namespace}/${name} could not be deleted`, err)
  })
}
