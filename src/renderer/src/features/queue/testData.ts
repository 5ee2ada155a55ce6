import type { Criterion, MutationResult, QueueView, TaskView } from '../../../../shared/queue'

const criteria = (...lines: string[]): Criterion[] =>
  lines.map((line, i) => {
    const m = /^(DET|LLM):\s*/.exec(line)
    return {
      ref: `AC${i + 1}`,
      kind: (m?.[1] ?? 'LLM') as 'DET' | 'LLM',
      text: m ? line.slice(m[0].length) : line,
      tagged: m !== null,
    }
  })

export const taskView = (id: string, name: string, extra: Partial<TaskView> = {}): TaskView => ({
  id,
  spec: 'spec.md',
  name,
  notes: null,
  accept: [],
  deps: [],
  status: 'pending',
  priority: 'medium',
  doneAt: null,
  reject: null,
  kill: null,
  killLog: null,
  parent: null,
  createdFrom: null,
  supersedes: null,
  blockedBy: [],
  line: null,
  ...extra,
})

export const emptyQueue = (): QueueView => ({
  exists: false,
  spec: null,
  stage: 'PLAN',
  tasks: [],
  order: [],
  issues: [],
  tombstones: [],
  malformed: [],
  warnings: [],
})

/** Three pending tasks (grid ← cards ← copy) and a done one waiting for a decision. */
export const filledQueue = (): QueueView => ({
  ...emptyQueue(),
  exists: true,
  spec: 'spec.md',
  stage: 'BUILD',
  tasks: [
    taskView('t-done', 'Set up the page', { status: 'done', doneAt: 'abc123' }),
    taskView('t-grid', 'Flavor grid', {
      accept: criteria('DET: npm test passes', 'LLM: the grid shows every flavor'),
      priority: 'high',
    }),
    taskView('t-card', 'Flavor cards', {
      deps: ['t-grid'],
      blockedBy: ['t-grid'],
      notes: 'Reuse the grid tokens',
      accept: criteria('the cards are readable'),
    }),
    taskView('t-copy', 'Hero copy', { priority: 'low' }),
  ],
  order: ['t-grid', 't-card', 't-copy'],
  issues: [{ id: 'i-0001', spec: 'spec.md', desc: 'The footer overlaps on mobile', line: 6 }],
})

export const mutation = (state: QueueView, message = 'ok'): MutationResult => ({
  message,
  commit: 'c'.repeat(40),
  ids: [],
  warnings: [],
  state,
})
