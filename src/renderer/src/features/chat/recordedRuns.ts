import type { IterationDetailDto, TaskCardDto } from '../../../../shared/api/chat'
import type { TaskOutcome } from '../../../../shared/api/tasks'
import type { LoopEvent } from '../../../../shared/loopEvents'
import { snapshotTags } from '../../../../shared/snapshotTags'
import { card } from './testData'

/**
 * Event sequences as the core sends them for one task in each state a card can be in (the NDJSON of `ralph run
 * --json`, wrapped in the contract's loop events), with the rows `chat.history` and `chat.taskDetail` give back
 * afterwards. The card's component tests replay them; every event is checked against the contract's schema.
 */
export type Recorded =
  | { name: 'loop.event'; payload: { projectId: number; event: LoopEvent } }
  | { name: 'loop.delta'; payload: { projectId: number; task: number; iteration: number; text: string } }
  | {
      name: 'loop.finished'
      payload: {
        projectId: number
        task: number
        status: TaskOutcome
        message: string
      }
    }

export interface RecordedRun {
  events: Recorded[]
  card: TaskCardDto
  detail: IterationDetailDto[]
}

const P = 1
const T = 4
const ev = (event: LoopEvent): Recorded => ({ name: 'loop.event', payload: { projectId: P, event } })
const delta = (iteration: number, text: string): Recorded => ({
  name: 'loop.delta',
  payload: { projectId: P, task: T, iteration, text },
})
const receipt = {
  inputTokens: 5200,
  outputTokens: 640,
  costUsd: 0.0252,
  calls: 4,
  iterations: 2,
  checkpoints: 0,
  limitWaits: 0,
  limitWaitMs: 0,
}

const start: Recorded[] = [
  ev({ type: 'task.started', task: T, message: 'add two night drinks', continued: false }),
  ev({
    type: 'snapshot.created',
    task: T,
    tag: snapshotTags.taskPre(T),
    kind: 'task-pre',
    commit: 'a'.repeat(40),
    added: 0,
    modified: 0,
    deleted: 0,
    durationMs: 40,
  }),
  ev({
    type: 'task.parsed',
    task: T,
    parsed: {
      type: 'mutation',
      title: 'Night drinks',
      requirements: [{ marker: 'ADD', description: 'two night drinks', count: 2 }],
      scope: { preserve: ['the 8 existing drinks'], affectedFiles: ['menu.html'] },
      clarification: null,
    },
    fallback: false,
    reason: null,
  }),
  ev({ type: 'iteration.started', task: T, iteration: 1, phase: 'plan', maxIterations: 20 }),
  delta(1, 'I will read the menu '),
  delta(1, 'first.\n\n## Plan\n\n- add **Moonlit Calm**\n- add `Deep Rest`'),
  ev({
    type: 'tool.called',
    task: T,
    iteration: 1,
    name: 'read_file',
    args: { path: 'menu.html' },
    ok: true,
    summary: '<ul class="menu">',
    durationMs: 3,
  }),
  ev({
    type: 'phase.changed',
    task: T,
    iteration: 1,
    from: 'plan',
    to: 'build',
    reason: 'the plan is written',
  }),
  ev({ type: 'iteration.started', task: T, iteration: 2, phase: 'build', maxIterations: 20 }),
  delta(2, 'Adding the two drinks to the menu.'),
]

const writeCall = ev({
  type: 'tool.called',
  task: T,
  iteration: 2,
  name: 'edit_file',
  args: { path: 'menu.html', old_string: '</ul>', new_string: '<li>Moonlit Calm</li></ul>' },
  ok: true,
  summary: 'Edited menu.html (1 replacement)',
  durationMs: 12,
})

const scopeFail = ev({
  type: 'gate.result',
  task: T,
  iteration: 2,
  gate: 'scope',
  severity: 'failure',
  message: 'style.css changed but is outside the task scope (menu.html)',
  attempt: 1,
})
const scopePass = ev({
  type: 'gate.result',
  task: T,
  iteration: 2,
  gate: 'scope',
  severity: 'pass',
  message: 'only menu.html changed',
  attempt: 2,
})
const lengthWarn = ev({
  type: 'gate.result',
  task: T,
  iteration: 2,
  gate: 'length',
  severity: 'warning',
  message: 'menu.html grew by 40%',
  attempt: 2,
})

const baseCard = card({
  task: T,
  runId: 9,
  title: 'Night drinks',
  type: 'mutation',
  requirements: [{ marker: 'ADD', description: 'two night drinks', count: 2 }],
  preserve: ['the 8 existing drinks'],
  iterations: 2,
  startedAt: 10_000,
  endedAt: 52_000,
  cost: { usd: 0.0252, inputTokens: 5200, outputTokens: 640, calls: 4 },
  toolCalls: [
    { iteration: 1, name: 'read_file', path: 'menu.html', ok: true },
    { iteration: 2, name: 'edit_file', path: 'menu.html', ok: true },
    { iteration: 2, name: 'mark_complete', path: null, ok: true },
  ],
  toolCallCount: 3,
})

const readEntry = {
  kind: 'tool' as const,
  call: {
    seq: 1,
    name: 'read_file',
    path: 'menu.html',
    ok: true,
    durationMs: 3,
    args: '{\n  "path": "menu.html"\n}',
    argsOmitted: 0,
    result: '<ul class="menu">',
    resultBytes: 2400,
  },
}
const editEntry = {
  kind: 'tool' as const,
  call: {
    seq: 1,
    name: 'edit_file',
    path: 'menu.html',
    ok: true,
    durationMs: 12,
    args: '{\n  "path": "menu.html",\n  "old_string": "</ul>",\n  "new_string": "<li>Moonlit Calm</li></ul>"\n}',
    argsOmitted: 0,
    result: 'Edited menu.html (1 replacement)',
    resultBytes: 32,
  },
}
const iteration1: IterationDetailDto = {
  number: 1,
  phase: 'plan',
  outcome: 'continue',
  startedAt: 11_000,
  endedAt: 20_000,
  entries: [
    {
      kind: 'text',
      text: 'I will read the menu first.\n\n## Plan\n\n- add **Moonlit Calm**\n- add `Deep Rest`',
    },
    readEntry,
    { kind: 'phase', text: 'Phase plan → build: the plan is written' },
  ],
  gates: [],
}
const gates = [
  {
    iteration: 2,
    attempt: 1,
    gate: 'scope',
    severity: 'failure',
    message: 'style.css changed but is outside the task scope (menu.html)',
  },
  { iteration: 2, attempt: 2, gate: 'scope', severity: 'pass', message: 'only menu.html changed' },
  { iteration: 2, attempt: 2, gate: 'length', severity: 'warning', message: 'menu.html grew by 40%' },
]

/** Still at work: in its second iteration, the model writing. */
export const running: RecordedRun = {
  events: start,
  card: {
    ...baseCard,
    status: 'running',
    iterations: 1,
    endedAt: null,
    outcome: null,
    toolCalls: baseCard.toolCalls.slice(0, 1),
    toolCallCount: 1,
    gates: [],
  },
  detail: [
    iteration1,
    { number: 2, phase: 'build', outcome: null, startedAt: 20_000, endedAt: null, entries: [], gates: [] },
  ],
}

/** Done: a failing scope gate, then a pass, then the post-task snapshot. */
export const complete: RecordedRun = {
  events: [
    ...start,
    writeCall,
    scopeFail,
    scopePass,
    lengthWarn,
    ev({
      type: 'snapshot.created',
      task: T,
      tag: snapshotTags.taskPost(T),
      kind: 'task-post',
      commit: 'b'.repeat(40),
      added: 1,
      modified: 1,
      deleted: 1,
      durationMs: 50,
    }),
    ev({
      type: 'task.completed',
      task: T,
      summary: 'Added **two** night drinks.',
      iterations: 2,
      postTag: snapshotTags.taskPost(T),
      costUsd: 0.0252,
      receipt,
    }),
    {
      name: 'loop.finished',
      payload: { projectId: P, task: T, status: 'complete', message: 'Added **two** night drinks.' },
    },
  ],
  card: { ...baseCard, status: 'complete', outcome: 'Added **two** night drinks.', gates },
  detail: [
    iteration1,
    {
      number: 2,
      phase: 'build',
      outcome: 'complete',
      startedAt: 20_000,
      endedAt: 50_000,
      entries: [
        { kind: 'text', text: 'Adding the two drinks to the menu.' },
        editEntry,
        {
          kind: 'tool',
          call: {
            seq: 2,
            name: 'mark_complete',
            path: null,
            ok: true,
            durationMs: 1,
            args: `{\n  "summary": "${'Added two night drinks. '.repeat(90).trim()}`,
            argsOmitted: 120,
            result: 'Marked complete',
            resultBytes: 15,
          },
        },
      ],
      gates,
    },
  ],
}

/** Failed: the model went round in circles and the loop gave up. */
export const failed: RecordedRun = {
  events: [
    ...start,
    ev({
      type: 'tool.called',
      task: T,
      iteration: 2,
      name: 'edit_file',
      args: { path: 'menu.html', old_string: '<ol>', new_string: '<ul>' },
      ok: false,
      summary: 'old_string not found in menu.html',
      durationMs: 2,
    }),
    ev({
      type: 'stall.detected',
      task: T,
      iteration: 2,
      kind: 'repeat',
      recovery: 1,
      action: 'rollback',
      message: 'The same failing edit three times: rolled back to the iteration start.',
    }),
    ev({
      type: 'task.failed',
      task: T,
      reason: 'stall',
      message: 'Ralph kept repeating the same failing edit.',
      iterations: 2,
      rolledBackTo: null,
      receipt,
    }),
    {
      name: 'loop.finished',
      payload: {
        projectId: P,
        task: T,
        status: 'failed',
        message: 'Ralph kept repeating the same failing edit.',
      },
    },
  ],
  card: {
    ...baseCard,
    status: 'failed',
    reason: 'stall',
    outcome: 'Ralph kept repeating the same failing edit.',
    toolCalls: [baseCard.toolCalls[0]!, { iteration: 2, name: 'edit_file', path: 'menu.html', ok: false }],
    toolCallCount: 2,
    gates: [],
  },
  detail: [
    iteration1,
    {
      number: 2,
      phase: 'build',
      outcome: 'stall',
      startedAt: 20_000,
      endedAt: 50_000,
      entries: [
        { kind: 'text', text: 'Adding the two drinks to the menu.' },
        {
          kind: 'tool',
          call: {
            seq: 1,
            name: 'edit_file',
            path: 'menu.html',
            ok: false,
            durationMs: 2,
            args: '{\n  "path": "menu.html",\n  "old_string": "<ol>",\n  "new_string": "<ul>"\n}',
            argsOmitted: 0,
            result: 'old_string not found in menu.html',
            resultBytes: 33,
          },
        },
        { kind: 'stall', text: 'The same failing edit three times: rolled back to the iteration start.' },
      ],
      gates: [],
    },
  ],
}

/** Asked a question before any iteration; waits for the answer. */
export const waiting: RecordedRun = {
  events: [
    start[0]!,
    start[1]!,
    ev({ type: 'clarification.needed', task: T, question: 'Two new drinks, or two of the existing ones?' }),
    {
      name: 'loop.finished',
      payload: {
        projectId: P,
        task: T,
        status: 'needs-clarification',
        message: 'Two new drinks, or two of the existing ones?',
      },
    },
  ],
  card: {
    ...baseCard,
    status: 'waiting',
    type: 'needs-clarification',
    outcome: 'Two new drinks, or two of the existing ones?',
    requirements: [],
    preserve: [],
    iterations: 0,
    toolCalls: [],
    toolCallCount: 0,
    gates: [],
    cost: { usd: 0.0011, inputTokens: 300, outputTokens: 40, calls: 1 },
  },
  detail: [],
}

/** Stopped by the user in its second iteration. */
export const stopped: RecordedRun = {
  events: [
    ...start,
    ev({
      type: 'task.failed',
      task: T,
      reason: 'stopped',
      message: 'Stopped by the user.',
      iterations: 2,
      rolledBackTo: null,
      receipt,
    }),
    {
      name: 'loop.finished',
      payload: { projectId: P, task: T, status: 'stopped', message: 'Stopped by the user.' },
    },
  ],
  card: {
    ...baseCard,
    status: 'stopped',
    reason: 'stopped',
    outcome: 'Stopped by the user.',
    toolCalls: baseCard.toolCalls.slice(0, 1),
    toolCallCount: 1,
    gates: [],
  },
  detail: [
    iteration1,
    {
      number: 2,
      phase: 'build',
      outcome: 'stopped',
      startedAt: 20_000,
      endedAt: 30_000,
      entries: [{ kind: 'text', text: 'Adding the two drinks to the menu.' }],
      gates: [],
    },
  ],
}

/** Its process was killed in the second iteration: no end event ever came; crash recovery marked it. */
export const interrupted: RecordedRun = {
  events: start,
  card: { ...stopped.card, status: 'interrupted', reason: 'interrupted', outcome: null },
  detail: stopped.detail.map((it) => (it.number === 2 ? { ...it, outcome: null, endedAt: null } : it)),
}

export const recordedRuns = { running, complete, failed, waiting, stopped, interrupted }
