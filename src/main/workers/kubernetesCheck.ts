// `ralph workers test --workers kubernetes` (issue #39): reaches the cluster's API, then runs a no-op job through
// the same path a real one takes — a Job and its Secret created in the namespace, a file in through the Secret, an
// environment variable from it, the log followed, both deleted — and says what is wrong in one sentence.
import { randomBytes } from 'node:crypto'
import { AppError } from '../../shared/errors'
import type { Logger } from '../workspace'
import { runKubernetesJob } from './kubernetes'
import { kubeFailure, type KubeConnection } from './kubernetesClient'
import { JOB_MOUNT, JOB_TAR_KEY } from './kubernetesSpec'
import {
  checkStep,
  newCheck,
  noopJobReport,
  parseCheckLine,
  type CheckLine,
  type WorkersCheck,
} from './workersCheck'

const VERSION_TIMEOUT_MS = 10_000
/** Room for pulling the image on a node that lacks it. */
const NOOP_WALL_MS = 180_000

export interface KubernetesCheck extends WorkersCheck<'cluster' | 'job'> {
  server: string
  cluster: { version: string } | null
}

// Reads the file that came in through the Secret's volume and the variable from the Secret, says what the image has.
const NOOP = `
const { execFileSync } = require('node:child_process')
const run = (cmd, args) => { try { return execFileSync(cmd, args, { encoding: 'utf8' }).trim() } catch { return null } }
const file = require('node:fs').readFileSync(process.argv[1], 'utf8')
console.log(JSON.stringify({ type: 'worker.check', file, env: process.env.RALPH_CHECK ?? null, node: process.version,
  git: run('git', ['--version']), ralph: run('ralph', ['--version']) }))
`

async function clusterOf(conn: KubeConnection, signal: AbortSignal): Promise<{ version: string }> {
  try {
    const timeout = new Promise<never>((_, reject) => {
      const t = setTimeout(
        () => reject(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })),
        VERSION_TIMEOUT_MS,
      )
      t.unref()
    })
    const v = await Promise.race([conn.version.getCode(), timeout])
    return { version: v.gitVersion }
  } catch (err) {
    if (signal.aborted) throw new AppError('cancelled', 'The check was stopped.')
    throw kubeFailure(err, conn, 'reading its version')
  }
}

async function noopJob(
  conn: KubeConnection,
  image: string,
  signal: AbortSignal,
  log: Logger,
): Promise<NonNullable<KubernetesCheck['job']>> {
  const fileNonce = randomBytes(8).toString('hex')
  const envNonce = randomBytes(8).toString('hex')
  let report: CheckLine | null = null
  const outcome = await runKubernetesJob(conn, {
    image,
    command: ['node', '-e', NOOP, `${JOB_MOUNT}/${JOB_TAR_KEY}`],
    secretEnv: { RALPH_CHECK: envNonce },
    jobInput: Buffer.from(fileNonce),
    limits: { cpus: 0.5, memoryBytes: 256 * 1024 ** 2, wallTimeMs: NOOP_WALL_MS },
    labels: { 'dev.ralph-studio.check': '1' },
    onLine: (line) => (report ??= parseCheckLine(line)),
    signal,
    log,
  })
  const failed = (why: string) => new AppError('task-failed', `The no-op job in ${image} failed: ${why}.`)
  if (outcome.problem) throw failed(outcome.problem.replace(/\.$/, ''))
  const r = report as CheckLine | null
  const job = noopJobReport(r, outcome.durationMs, failed)
  if (r!.file !== fileNonce) throw failed("the file put in through the job's Secret did not reach the pod")
  if (r!.env !== envNonce) throw failed("the environment from the job's Secret did not reach the pod")
  return job
}

/** Checks the Kubernetes backend: the API answers, and a no-op job runs in the namespace with its Secret. */
export async function checkKubernetesWorkers(
  conn: KubeConnection,
  image: string,
  signal: AbortSignal,
  log: Logger,
): Promise<KubernetesCheck> {
  const check: KubernetesCheck = { ...newCheck(conn.label), server: conn.server, cluster: null }
  const step = checkStep(check)
  check.cluster = await step('cluster', () => clusterOf(conn, signal))
  if (check.cluster) check.job = await step('job', () => noopJob(conn, image, signal, log))
  check.ok = check.job !== null
  return check
}
