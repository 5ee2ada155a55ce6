import {
  applyBuildEvent,
  idleBuild,
  type BuildProgress,
  type QueueBuildEvent,
} from '../../../../shared/queueBuild'

/** Build progress for component tests, folded from real event shapes by the core's own `applyBuildEvent`. */
export const foldBuild = (events: QueueBuildEvent[]): BuildProgress =>
  events.reduce((p, e) => applyBuildEvent(p, e, 1_000), idleBuild())

export const buildStarted: QueueBuildEvent = {
  type: 'build.started',
  mode: 'hybrid',
  order: ['t-a', 't-b', 't-c'],
  budget: { maxCostUsd: null, maxMinutes: null },
}

/** Task t-a built, verified (PASS) and accepted; t-b in its first attempt's first iteration. */
export const secondTaskRunning: QueueBuildEvent[] = [
  buildStarted,
  { type: 'build.attempt', taskId: 't-a', name: 'Write a.txt', attempt: 1, task: 1 },
  {
    type: 'verify.started',
    taskId: 't-a',
    nonce: 'AAAAAA',
    criteria: [{ ref: 'AC1', kind: 'DET', text: 'a.txt says alpha' }],
    warnings: [],
  },
  {
    type: 'verify.completed',
    taskId: 't-a',
    nonce: 'AAAAAA',
    outcome: 'PASS',
    costUsd: 0,
    feedback: '',
    durationMs: 5,
  },
  { type: 'build.accepted', taskId: 't-a', commit: null },
  { type: 'build.attempt', taskId: 't-b', name: 'Write b.txt', attempt: 1, task: 2 },
  { type: 'iteration.started', task: 2, iteration: 1, phase: 'build', maxIterations: 10 },
]

export const finished = (
  status: NonNullable<BuildProgress['result']>['status'],
  message: string,
): QueueBuildEvent => ({
  type: 'build.finished',
  status,
  message,
  accepted: [],
  costUsd: 0.01,
  durationMs: 4_000,
})

export const approvalAsked: QueueBuildEvent = {
  type: 'build.approval',
  taskId: 't-b',
  question: 'Write b.txt passed verification. Accept it?',
}
