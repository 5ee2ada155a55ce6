// A build's lane run as a Kubernetes Job (issue #39, experimental until it has run on a real cluster): the same input
// and result as `runInLane`, as dockerLane is for a Docker engine. The lane's job travels as one tar file in the
// Job's Secret (beside the model key, the container's only way to it), `ralph worker` runs it in the pod, its events
// are followed in the pod's log and its result comes back through that same log; the result is checked
// (fetchWorkerResult) and the local lane moved to it, so the build verifies it here with its own nonce.
//
// A worker fault — a cluster that cannot be reached or refuses the Job, a pod that fails without a result, a Job past
// its deadline, a result refused by the checks — ends the lane with a WorkerFault (the runner retries it once), and
// nothing of it reaches the project's store.
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { isAppError } from '../../shared/errors'
import type { LaneRunInput, LaneRunResult } from '../lanes'
import { noteFailure } from '../workspace'
import type { WorkersConfig } from './config'
import { packJobTar } from './jobArchive'
import { runKubernetesJob, type KubernetesOutcome } from './kubernetes'
import { connectKube, type KubeConnection } from './kubernetesClient'
import { JOB_MOUNT, SCRATCH_MOUNT, jobSizeProblem } from './kubernetesSpec'
import { fetchWorkerResult, type FetchedResult } from './result'
import { classifyJobEnd, WorkerFault } from './workerFault'
import {
  LANE_LABEL,
  TASK_LABEL,
  laneResult,
  laneStopped,
  makeLaneJob,
  positionLane,
  workerStream,
  type LaneTask,
} from './workerLane'

export interface KubernetesLaneOptions {
  config: WorkersConfig
  /** The cluster; absent: the kubeconfig's (KUBECONFIG or ~/.kube/config) context and namespace the config names. */
  connection?: KubeConnection
  task?: LaneTask
  /** Told where the attempt runs (`k8s: namespace/job`) once the cluster has accepted the Job. */
  placed?: (where: string) => void
  /** Vault secrets ticked for remote workers: they go into the job's Secret (never its files). */
  secretEnv?: Record<string, string>
  /** How often the Job's state is read (tests shorten it). */
  pollMs?: number
}

const JOB_TAR = 'job.tar'

/** The cluster a lane's Jobs run on: the config's context and namespace over the kubeconfig's own. */
export function laneKubeConnection(config: WorkersConfig, env: NodeJS.ProcessEnv): KubeConnection {
  return connectKube({
    ...(env.KUBECONFIG ? { kubeconfig: env.KUBECONFIG } : {}),
    ...(config.kubernetes.context ? { context: config.kubernetes.context } : {}),
    ...(config.kubernetes.namespace ? { namespace: config.kubernetes.namespace } : {}),
  })
}

export async function runInKubernetesLane(
  input: LaneRunInput,
  options: KubernetesLaneOptions,
): Promise<LaneRunResult> {
  const { lane, task, logger } = input
  const n = lane.marker.lane
  const conn = options.connection ?? laneKubeConnection(options.config, input.env ?? process.env)
  let where = `k8s: ${conn.namespace}`
  let told = false
  const place = (w: string) => {
    where = w
    told = true
    options.placed?.(w)
  }
  const scratch = await mkdtemp(join(tmpdir(), `ralph-kube-lane-${n}-`))
  const stream = workerStream(input)
  try {
    const resultDir = join(scratch, 'result')
    const apiKey = input.model?.apiKey ?? null
    const secretEnv = options.secretEnv ?? {}
    const created = await makeLaneJob(input, join(scratch, 'job'), options.task, secretEnv)
    const tarFile = join(scratch, JOB_TAR)
    await packJobTar(created.dir, tarFile)
    const jobInput = await readFile(tarFile)
    const jobEnv = { ...secretEnv, ...(apiKey ? { RALPH_API_KEY: apiKey } : {}) }
    // A job over the Secret's limit never fits: the user's choice to make, not a fault to retry.
    const tooBig = jobSizeProblem(jobInput.length, jobEnv)
    if (tooBig) throw tooBig
    let outcome: KubernetesOutcome
    try {
      outcome = await runKubernetesJob(conn, {
        image: options.config.image,
        command: [
          'ralph',
          'worker',
          '--job',
          `${JOB_MOUNT}/${JOB_TAR}`,
          '--out',
          `${SCRATCH_MOUNT}/result`,
          '--result-stdout',
        ],
        // The model's key and the ticked vault secrets only in the job's Secret: never in the Job's spec or files.
        secretEnv: jobEnv,
        jobInput,
        resultDir,
        limits: {
          cpus: options.config.cpus,
          memoryBytes: options.config.memoryMb * 1024 * 1024,
          wallTimeMs: Math.round(options.config.timeoutMinutes * 60_000),
        },
        labels: { [LANE_LABEL]: String(n), [TASK_LABEL]: String(task) },
        onLine: (line) => stream.line(line),
        onCreated: (namespace, name) => place(`k8s: ${namespace}/${name}`),
        ...(input.signal ? { signal: input.signal } : {}),
        ...(options.pollMs ? { pollMs: options.pollMs } : {}),
        log: logger,
      })
    } catch (err) {
      if (input.signal?.aborted || isAppError(err, 'cancelled')) throw laneStopped(n, 'Kubernetes job')
      if (!told) place(where)
      throw new WorkerFault('unreachable', where, (err as Error).message, { cause: err })
    }
    const fetched = await fetchChecked(outcome, where, {
      projectDir: input.projectDir,
      resultDir,
      job: created.job,
      logger,
    })
    await positionLane(input, fetched)
    return laneResult(input, fetched.result, created.job.base.commit, stream.record.runId)
  } catch (err) {
    stream.failed(err)
    throw err
  } finally {
    await rm(scratch, { recursive: true, force: true }).catch((err: unknown) =>
      noteFailure(logger, `The scratch folder of lane ${n}'s Kubernetes job stays (${scratch})`, err),
    )
  }
}

/** The worker's result, or the fault (classifyJobEnd) of a Job that did not end with one that passes the checks. */
async function fetchChecked(
  outcome: KubernetesOutcome,
  where: string,
  fetch: Parameters<typeof fetchWorkerResult>[0],
): Promise<FetchedResult> {
  const lane = fetch.job.lane.number
  let fetched: FetchedResult | null = null
  let refused: Error | null = null
  if (outcome.resultTaken && outcome.ended !== 'deadline')
    fetched = await fetchWorkerResult(fetch).catch((err: unknown) => {
      refused = err as Error
      return null
    })
  const fault = classifyJobEnd({
    stopped: false,
    engineFailed: false,
    pastDeadline: outcome.ended === 'deadline',
    result: fetched ? 'taken' : refused ? 'refused' : 'missing',
  })
  if (fault === null && fetched) return fetched
  const said = outcome.problem ?? `The Kubernetes job ${outcome.namespace}/${outcome.jobName} ended`
  const why =
    fault === 'bad-result'
      ? `Lane ${lane}'s worker result from the Kubernetes job ${outcome.namespace}/${outcome.jobName} was refused: ` +
        `${refused!.message}${/nothing was fetched/i.test(refused!.message) ? '' : ' Nothing of it was merged.'}`
      : `${said.replace(/\.$/, '')}${fault === 'died' ? ' without a result' : ''}; nothing of lane ${lane} was merged.`
  throw new WorkerFault(fault ?? 'died', where, why)
}
