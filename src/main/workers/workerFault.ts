// Worker faults (issue #39): what went wrong with the machine a lane ran on, as opposed to the task's own outcome.
// A worker that died, an engine or cluster that could not be reached (or refused the job), a job past its deadline,
// a result that did not come back whole: the lane is retried once. A task that failed its gates, stalled or asked a
// question came back with a result: that is the task's outcome, never a fault, and the build decides on it as on a
// local lane's. The decision is pure (classifyJobEnd); the backends gather the facts.
import { AppError } from '../../shared/errors'

export const faultKinds = ['unreachable', 'died', 'deadline', 'bad-result'] as const
export type FaultKind = (typeof faultKinds)[number]

/** How one job on a worker ended, as its backend saw it. */
export interface JobEndFacts {
  /** Stop was asked for (the build's signal): never a fault. */
  stopped: boolean
  /** The engine or cluster could not be reached, or refused to run the job (the job never ran to its end). */
  engineFailed: boolean
  /** The job was ended at its deadline (the engine's wall-time kill or the cluster's activeDeadlineSeconds). */
  pastDeadline: boolean
  /** What came back: a result that passed the checks, none at all, or one the checks refused. */
  result: 'taken' | 'missing' | 'refused'
}

/** The fault of a job's end, or null when it is none (stopped, or a result came back: the task's own outcome). */
export function classifyJobEnd(facts: JobEndFacts): FaultKind | null {
  if (facts.stopped) return null
  if (facts.engineFailed) return 'unreachable'
  if (facts.pastDeadline) return 'deadline'
  if (facts.result === 'refused') return 'bad-result'
  if (facts.result === 'missing') return 'died'
  return null
}

/** A worker fault, thrown by a backend's lane runner: `where` is the placement (`docker: host`, `k8s: ns/job`). */
export class WorkerFault extends AppError {
  readonly fault: FaultKind
  readonly where: string

  constructor(fault: FaultKind, where: string, message: string, options?: { cause?: unknown }) {
    super('task-failed', message, { fault, where }, options)
    this.name = 'WorkerFault'
    this.fault = fault
    this.where = where
  }
}

export const isWorkerFault = (err: unknown): err is WorkerFault => err instanceof WorkerFault

/** Short words for a fault kind, for the `build.worker` line (its message follows them). */
export const faultWords: Record<FaultKind, string> = {
  unreachable: 'could not be reached or refused the job',
  died: 'died before it finished',
  deadline: 'ran past its deadline',
  'bad-result': 'sent back a result that failed its checks',
}

/** What the user can do after a lane's second fault (both on workers: this machine's runs have no worker fault). */
export function secondFaultMessage(lane: number, first: WorkerFault, second: WorkerFault): string {
  const what = (f: WorkerFault) => `on ${f.where} it ${faultWords[f.fault]} (${f.message})`
  const todo =
    second.fault === 'unreachable'
      ? '`ralph workers test` checks the backend; or build with --workers local, or set "workers.retry" to "local" ' +
        'in .ralph/config.json to fall back to this machine.'
      : 'Run `ralph workers test`; raise "workers.timeoutMinutes" if the task needs longer; or set "workers.retry" ' +
        'to "local" in .ralph/config.json to fall back to this machine.'
  return (
    `Lane ${lane}'s worker failed twice, and nothing of either attempt was merged: first ${what(first)}; ` +
    `then ${what(second)}. ${todo}`
  )
}
