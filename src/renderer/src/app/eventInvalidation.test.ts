import { QueryClient, type QueryKey } from '@tanstack/react-query'
import { describe, expect, it } from 'vitest'
import { eventNames, type EventPayload } from '../../../shared/api/contract'
import type { LoopEvent } from '../../../shared/loopEvents'
import { createClient } from '../api'
import { createFakeTransport } from '../test/fakeTransport'
import { invalidations, subscribeInvalidation } from './eventInvalidation'
import { callKey } from './queries'

// Invalidation reads only the project id; the report's shape belongs to the snapshot tests.
const rollbackReport = {
  preview: false,
  target: 'task-1-pre',
  targetCommit: 'abc',
  safetyTag: null,
  written: [],
  deleted: [],
  leftAlone: [],
  skipped: [],
  durationMs: 1,
} as unknown as EventPayload<'snapshot.rolledBack'>['report']

/** A cache holding fresh data for the queries screens use, for projects 1 and 2. */
function seededCache() {
  const queryClient = new QueryClient()
  const keys: QueryKey[] = [
    ['app.info', {}],
    ['projects.list', {}],
    ['settings.getProvider', {}],
    ['settings.detectLocal', {}],
    ['tasks.activity', {}],
  ]
  for (const projectId of [1, 2]) {
    keys.push(
      ['projects.get', { projectId }],
      ['tasks.running', { projectId }],
      ['snapshots.list', { projectId, offset: 0, limit: 50 }],
      ['snapshots.status', { projectId }],
      ['plan.show', { projectId }],
      ['chat.history', { projectId }],
      ['chat.history', { projectId, conversationId: 7 }],
      ['chat.conversations', { projectId }],
    )
  }
  for (const key of keys) queryClient.setQueryData(key, { seeded: true })
  const stale = () =>
    queryClient
      .getQueryCache()
      .getAll()
      .filter((q) => q.state.isInvalidated)
      .map((q) => JSON.stringify(q.queryKey))
      .sort()
  return { queryClient, stale }
}

function setup() {
  const fake = createFakeTransport()
  const cache = seededCache()
  const off = subscribeInvalidation(createClient(fake.transport), cache.queryClient)
  return { ...fake, ...cache, off }
}

const key = (k: QueryKey) => JSON.stringify(k)
const chatHistory = (projectId: number) => [
  key(['chat.history', { projectId }]),
  key(['chat.history', { projectId, conversationId: 7 }]),
]

describe('event invalidation', () => {
  it('has a row for every event in the contract', () => {
    expect(Object.keys(invalidations).sort()).toEqual([...eventNames].sort())
  })

  it('projects.changed makes the list and that project stale, nothing else', () => {
    const { emit, stale } = setup()
    emit('projects.changed', { projectId: 2 })
    expect(stale()).toEqual(
      [
        key(['projects.get', { projectId: 2 }]),
        key(['projects.list', {}]),
        key(['tasks.activity', {}]),
      ].sort(),
    )
  })

  it('projects.changed without a project makes every project stale', () => {
    const { emit, stale } = setup()
    emit('projects.changed', { projectId: null })
    expect(stale()).toEqual(
      [
        key(['projects.get', { projectId: 1 }]),
        key(['projects.get', { projectId: 2 }]),
        key(['projects.list', {}]),
        key(['tasks.activity', {}]),
      ].sort(),
    )
  })

  it('settings.changed refetches the provider only', () => {
    const { emit, stale } = setup()
    emit('settings.changed', { key: 'provider' })
    expect(stale()).toEqual([key(['settings.getProvider', {}])])
  })

  it("settings.changed of a project's workers refetches its workers and its Build controls' defaults", () => {
    const { emit, stale, queryClient } = setup()
    for (const projectId of [1, 2]) {
      queryClient.setQueryData(['workers.get', { projectId }], { seeded: true })
      queryClient.setQueryData(['queue.buildDefaults', { projectId }], { seeded: true })
    }
    emit('settings.changed', { key: 'workers:2' })
    expect(stale()).toEqual(
      [key(['queue.buildDefaults', { projectId: 2 }]), key(['workers.get', { projectId: 2 }])].sort(),
    )
  })

  it("snapshot.created makes that project's snapshot queries stale, whatever their paging", () => {
    const { emit, stale } = setup()
    const snapshot = {
      tag: 'manual-1',
      commit: 'abc',
      kind: 'manual' as const,
      task: null,
      message: '',
      createdAt: 1,
      added: 1,
      modified: 0,
      deleted: 0,
      skipped: [],
      skippedTotal: 0,
      durationMs: 1,
      rollbackTarget: null,
    }
    emit('snapshot.created', { projectId: 1, snapshot })
    expect(stale()).toEqual(
      [
        key(['snapshots.list', { projectId: 1, offset: 0, limit: 50 }]),
        key(['snapshots.status', { projectId: 1 }]),
      ].sort(),
    )
  })

  it('a new snapshot or a rollback makes an open rollback preview stale (the timeline’s dialog)', () => {
    for (const event of ['snapshot.created', 'snapshot.rolledBack'] as const) {
      const { emit, queryClient } = setup()
      const preview = ['snapshots.previewRollback', { projectId: 1, tag: 'task-1-pre' }]
      queryClient.setQueryData(preview, { seeded: true })
      if (event === 'snapshot.created') {
        emit(event, {
          projectId: 1,
          snapshot: { tag: 'manual-1' } as EventPayload<'snapshot.created'>['snapshot'],
        })
      } else emit(event, { projectId: 1, report: rollbackReport, undo: false })
      expect(queryClient.getQueryState(preview)?.isInvalidated).toBe(true)
    }
  })

  it('a new snapshot, a rollback or a prune makes the Compare view’s diffs and line counts stale', () => {
    for (const event of ['snapshot.created', 'snapshot.rolledBack', 'snapshot.pruned'] as const) {
      const { emit, queryClient } = setup()
      const input = { projectId: 1, target: 'task-1-pre' }
      const diffs = [
        ['snapshots.diff', input],
        ['snapshots.diffStats', { ...input, files: [{ path: 'a.txt' }] }],
        ['snapshots.fileDiff', { ...input, path: 'a.txt' }],
      ]
      for (const q of diffs) queryClient.setQueryData(q, { seeded: true })
      if (event === 'snapshot.created') {
        emit(event, {
          projectId: 1,
          snapshot: { tag: 'manual-1' } as EventPayload<'snapshot.created'>['snapshot'],
        })
      } else if (event === 'snapshot.rolledBack')
        emit(event, { projectId: 1, report: rollbackReport, undo: false })
      else emit(event, { projectId: 1, removedTags: ['manual-1'] })
      for (const q of diffs) expect(queryClient.getQueryState(q)?.isInvalidated).toBe(true)
    }
  })

  it('a rollback also refreshes what reads the working tree: the project state, the plan and the chat', () => {
    const { emit, stale } = setup()
    emit('snapshot.rolledBack', { projectId: 1, report: rollbackReport, undo: false })
    // The chat too: a task card says whether its work is still on disk (issue 37).
    expect(stale()).toEqual(
      [
        key(['chat.history', { projectId: 1 }]),
        key(['chat.history', { projectId: 1, conversationId: 7 }]),
        key(['plan.show', { projectId: 1 }]),
        key(['projects.get', { projectId: 1 }]),
        key(['snapshots.list', { projectId: 1, offset: 0, limit: 50 }]),
        key(['snapshots.status', { projectId: 1 }]),
      ].sort(),
    )
  })

  it('a loop event that adds rows to a run makes the chat stale; streamed text and retries never do', () => {
    const { emit, stale } = setup()
    emit('loop.delta', { projectId: 1, task: 1, iteration: 1, text: 'tok' })
    emit('loop.event', { projectId: 1, event: { type: 'llm.delta', task: 1, iteration: 1, text: 'tok' } })
    emit('loop.event', {
      projectId: 1,
      event: { type: 'llm.retry', task: 1, iteration: 1, attempt: 1, delayMs: 500, reason: '429' },
    })
    expect(stale()).toEqual([])
    emit('loop.event', {
      projectId: 1,
      event: {
        type: 'tool.called',
        task: 1,
        iteration: 1,
        name: 'read_file',
        args: {},
        ok: true,
        summary: 'x',
        durationMs: 1,
      },
    })
    // Every page of every conversation of that project, none of another project's; and its plan, which a tool
    // call may have written (the plan editor follows the loop's writes).
    expect(stale()).toEqual([...chatHistory(1), key(['plan.show', { projectId: 1 }])].sort())
  })

  it('plan.changed (a save) refreshes that project’s plan file, its comparisons and its state card', () => {
    const { emit, stale, queryClient } = setup()
    queryClient.setQueryData(['plan.read', { projectId: 1 }], { seeded: true })
    queryClient.setQueryData(['plan.compare', { projectId: 1, from: 'task-1-pre', to: 'working' }], {
      seeded: true,
    })
    queryClient.setQueryData(['plan.read', { projectId: 2 }], { seeded: true })
    emit('plan.changed', { projectId: 1, version: 'abc' })
    expect(stale()).toEqual(
      [
        key(['plan.compare', { projectId: 1, from: 'task-1-pre', to: 'working' }]),
        key(['plan.read', { projectId: 1 }]),
        key(['plan.show', { projectId: 1 }]),
        key(['projects.get', { projectId: 1 }]),
      ].sort(),
    )
  })

  it('a new iteration also refreshes the project state and the working copy (the last iteration wrote files)', () => {
    const { emit, stale } = setup()
    const iteration: LoopEvent = {
      type: 'iteration.started',
      task: 1,
      iteration: 1,
      phase: 'build',
      maxIterations: 5,
    }
    emit('loop.event', { projectId: 1, event: iteration })
    expect(stale()).toEqual(
      [
        key(['projects.get', { projectId: 1 }]),
        key(['snapshots.status', { projectId: 1 }]),
        ...chatHistory(1),
      ].sort(),
    )
  })

  it('task.started also refreshes the running flag and the project', () => {
    const { emit, stale } = setup()
    emit('loop.event', {
      projectId: 1,
      event: { type: 'task.started', task: 1, message: 'go', continued: false },
    })
    expect(stale()).toEqual(
      [
        key(['projects.get', { projectId: 1 }]),
        key(['tasks.running', { projectId: 1 }]),
        key(['tasks.activity', {}]),
        ...chatHistory(1),
      ].sort(),
    )
  })

  it("chat.changed refreshes that project's history and conversations; chat.delta nothing", () => {
    const { emit, stale } = setup()
    emit('chat.delta', { projectId: 2, messageId: 3, text: 'tok' })
    expect(stale()).toEqual([])
    emit('chat.changed', { projectId: 2, conversationId: 7 })
    expect(stale()).toEqual([key(['chat.conversations', { projectId: 2 }]), ...chatHistory(2)].sort())
  })

  it('loop.finished refreshes the project, its running flag, its plan, its working copy and the list', () => {
    // However the task ended (failed, stopped, capped), the files it left are in the working copy: the timeline's
    // Working copy line counts them instead of "None of your files changed" (issue 37).
    for (const status of ['complete', 'failed', 'stopped'] as const) {
      const { emit, stale } = setup()
      emit('loop.finished', { projectId: 2, task: 1, status, message: 'done' })
      expect(stale()).toContain(key(['snapshots.status', { projectId: 2 }]))
    }
    const { emit, stale } = setup()
    emit('loop.finished', { projectId: 2, task: 1, status: 'complete', message: 'done' })
    expect(stale()).toEqual(
      [
        key(['plan.show', { projectId: 2 }]),
        key(['projects.get', { projectId: 2 }]),
        key(['projects.list', {}]),
        key(['snapshots.status', { projectId: 2 }]),
        key(['tasks.activity', {}]),
        key(['tasks.running', { projectId: 2 }]),
        ...chatHistory(2),
      ].sort(),
    )
  })

  it("brainstorm.changed refreshes that project's session and ideas; an idea only the ideas; files the project", () => {
    const { emit, stale, queryClient } = setup()
    for (const projectId of [1, 2]) {
      queryClient.setQueryData(['brainstorm.get', { projectId }], { seeded: true })
      queryClient.setQueryData(['brainstorm.ideas', { projectId }], { seeded: true })
    }
    emit('brainstorm.event', { projectId: 2, event: { type: 'brainstorm.say', text: 'Hi' } })
    expect(stale()).toEqual([])
    emit('brainstorm.event', {
      projectId: 2,
      event: { type: 'brainstorm.idea', id: 'I001', title: 'T', domain: 'Core' },
    })
    expect(stale()).toEqual([key(['brainstorm.ideas', { projectId: 2 }])])
    emit('brainstorm.event', { projectId: 2, event: { type: 'brainstorm.written', files: ['VISION.md'] } })
    expect(stale()).toContain(key(['projects.get', { projectId: 2 }]))
    emit('brainstorm.changed', { projectId: 2 })
    expect(stale()).toEqual(
      [
        key(['brainstorm.get', { projectId: 2 }]),
        key(['brainstorm.ideas', { projectId: 2 }]),
        key(['projects.get', { projectId: 2 }]),
      ].sort(),
    )
  })

  it('ignores events it does not know and stops after unsubscribing', () => {
    const { emit, emitRaw, stale, off } = setup()
    emitRaw({ name: 'brainstorm.updated', payload: { projectId: 1 } })
    expect(stale()).toEqual([])
    off()
    emit('settings.changed', { key: 'provider' })
    expect(stale()).not.toContain(key(['settings.getProvider', {}]))
  })

  it('builds keys from the contract call and a partial input', () => {
    expect(callKey('projects.list')).toEqual(['projects.list'])
    expect(callKey('snapshots.list', { projectId: 3 })).toEqual(['snapshots.list', { projectId: 3 }])
  })
})
