import type { QueryClient, QueryKey } from '@tanstack/react-query'
import type { CallName, EventName, EventPayload, Input } from '../../../shared/api/contract'
import type { Client } from '../api'
import { callKey } from './queries'

type Invalidates = { [N in EventName]: (payload: EventPayload<N>) => QueryKey[] }

/** The calls whose input names a project. */
type ProjectCall = { [N in CallName]: Input<N> extends { projectId: number } ? N : never }[CallName]

/** These calls' queries for one project. */
const ofProject = (projectId: number, calls: ProjectCall[]): QueryKey[] =>
  calls.map((name) => callKey(name, { projectId }))

/** Everything the snapshot store answers for one project. */
const snapshotQueries = (projectId: number): QueryKey[] =>
  ofProject(projectId, [
    'snapshots.list',
    'snapshots.status',
    'snapshots.diff',
    'snapshots.fileDiff',
    'snapshots.diffStats',
    'snapshots.usage',
    // What a rollback would do depends on the store and the working tree alike.
    'snapshots.previewRollback',
  ])

/** What reads .ralph/plan.tsx: the editor's file and its diff review. */
const planQueries = (projectId: number): QueryKey[] =>
  ofProject(projectId, ['plan.read', 'plan.show', 'plan.validate', 'plan.diff', 'plan.compare'])

/**
 * The snapshot store's answers that compare against the working tree (the timeline's Working copy line, Compare
 * with "Working copy", what a rollback would change): stale whenever the files change, not only with the store.
 */
const workingCopyQueries = (projectId: number): QueryKey[] =>
  ofProject(projectId, [
    'snapshots.status',
    'snapshots.diff',
    'snapshots.fileDiff',
    'snapshots.diffStats',
    'snapshots.previewRollback',
  ])

/**
 * What reads the project's files: its state (the header), the plan, and diffs against the working tree. A task that
 * failed, was stopped or hit its cap leaves its files too: the Working copy line must count them.
 */
const workingTreeQueries = (projectId: number): QueryKey[] => [
  callKey('projects.get', { projectId }),
  ...planQueries(projectId),
  ...workingCopyQueries(projectId),
  // The user's own repository sees the same files (the header's state, what "Commit to my git" would commit).
  ...ofProject(projectId, ['userGit.status', 'userGit.previewCommit']),
]

/** The chat's pages: a task card reads its run's rows, so loop progress makes them stale too. */
const chatQueries = (projectId: number): QueryKey[] =>
  ofProject(projectId, ['chat.history', 'chat.taskDetail'])

/**
 * The one table from contract events to the queries they make stale (DESIGN.md §15). Typed over every event
 * name, so a new event in the contract does not compile until it has a row here.
 */
export const invalidations: Invalidates = {
  'projects.changed': ({ projectId }) =>
    projectId === null
      ? [callKey('projects.list'), callKey('projects.get'), callKey('tasks.activity')]
      : [callKey('projects.list'), callKey('projects.get', { projectId }), callKey('tasks.activity')],
  // `engine:<projectId>`: a project's engine (Settings, the header's chip, the status bar). `workers:<projectId>`:
  // its workers (Settings → Workers, and the Build controls' default).
  'settings.changed': ({ key }) => {
    if (key.startsWith('engine:')) return [callKey('engines.list'), callKey('engines.project')]
    const workers = /^workers:(\d+)$/.exec(key)
    if (workers) {
      const projectId = Number(workers[1])
      return [callKey('workers.get', { projectId }), callKey('queue.buildDefaults', { projectId })]
    }
    return [callKey('settings.getProvider')]
  },
  'snapshot.created': ({ projectId }) => snapshotQueries(projectId),
  // A rollback rewrites the working tree: its state, its plan and every diff against it.
  // …and which tasks' work it took off disk (or an Undo brought back): the cards say so.
  'snapshot.rolledBack': ({ projectId }) => [
    ...snapshotQueries(projectId),
    ...workingTreeQueries(projectId),
    ...chatQueries(projectId),
  ],
  'snapshot.pruned': ({ projectId }) => snapshotQueries(projectId),
  // Progress is shown from the event itself (features/timeline/queries.ts); the end brings the new baseline.
  'snapshot.baselineProgress': () => [],
  'snapshot.baselineFinished': ({ projectId }) => [
    ...snapshotQueries(projectId),
    callKey('snapshots.baselineState', { projectId }),
  ],
  'loop.event': ({ projectId, event }) => {
    switch (event.type) {
      case 'task.started':
        return [
          callKey('tasks.running', { projectId }),
          callKey('tasks.activity'),
          callKey('projects.get', { projectId }),
          ...chatQueries(projectId),
        ]
      case 'snapshot.created':
        return snapshotQueries(projectId)
      // The header (phase, the run's row) reads .ralph/ and the run rows, which the task has written by now; the
      // previous iteration's writes are in the working copy.
      case 'iteration.started':
        return [
          callKey('projects.get', { projectId }),
          ...chatQueries(projectId),
          ...workingCopyQueries(projectId),
        ]
      case 'phase.changed':
        return [callKey('projects.get', { projectId }), ...chatQueries(projectId)]
      // A tool call may have written the plan: the editor follows the loop's writes while the task runs.
      case 'tool.called':
        return [...chatQueries(projectId), ...planQueries(projectId)]
      case 'llm.delta':
      case 'llm.retry':
        // Streamed text and retries are shown live from the event itself (app/runStore).
        return []
      default:
        // Iterations, tool calls, gates and outcomes are rows of the run that the task card reads back.
        return chatQueries(projectId)
    }
  },
  // Saved through the editor (this window or another): the file and its comparisons.
  'plan.changed': ({ projectId }) => [callKey('projects.get', { projectId }), ...planQueries(projectId)],
  // Streamed text has its own subscription, so a token re-renders one line, not a query.
  'loop.delta': () => [],
  'loop.finished': ({ projectId }) => [
    callKey('tasks.running', { projectId }),
    callKey('tasks.activity'),
    callKey('projects.list'),
    ...workingTreeQueries(projectId),
    ...chatQueries(projectId),
  ],
  'chat.changed': ({ projectId }) => [
    ...chatQueries(projectId),
    callKey('chat.conversations', { projectId }),
  ],
  // An Ask answer's tokens go to features/chat/liveAnswers, one line each; the stored answer comes with chat.changed.
  'chat.delta': () => [],
  // The wizard re-reads its session on `changed`; an idea grows the ledger, written files change the project.
  'brainstorm.event': ({ projectId, event }) =>
    event.type === 'brainstorm.idea'
      ? [callKey('brainstorm.ideas', { projectId })]
      : event.type === 'brainstorm.written'
        ? [callKey('projects.get', { projectId })]
        : [],
  // .ralph/plan.jsonl changed: a queue call, a build, or an outside writer the core's watcher saw.
  'queue.changed': ({ projectId }) => [callKey('queue.state', { projectId })],
  'queue.notificationsChanged': ({ projectId }) => [callKey('queue.notifications', { projectId })],
  // A panel build: its progress, the verdicts it stored, the snapshots it took, the notes it wrote.
  'queue.buildEvent': ({ projectId, event }) => [
    callKey('queue.buildStatus', { projectId }),
    ...(event.type === 'verify.completed' ? [callKey('queue.verdicts', { projectId })] : []),
    ...(event.type === 'snapshot.created' || event.type === 'build.rollback'
      ? snapshotQueries(projectId)
      : []),
    ...(event.type === 'build.notification' ? [callKey('queue.notifications', { projectId })] : []),
    ...(event.type === 'build.finished' ? workingTreeQueries(projectId) : []),
    // The project's state card (status, task count, phase) reads .ralph/, which the build's task writes.
    ...(event.type === 'task.started' ||
    event.type === 'phase.changed' ||
    event.type === 'task.completed' ||
    event.type === 'task.failed'
      ? [callKey('projects.get', { projectId })]
      : []),
    // A build's task that ended (well or not) left its files in the working copy.
    ...(event.type === 'task.completed' || event.type === 'task.failed' ? workingCopyQueries(projectId) : []),
    // The build holds the project's task lock: whether a task runs, and the project's state, change with it.
    ...(event.type === 'build.started' || event.type === 'build.finished'
      ? [
          callKey('tasks.running', { projectId }),
          callKey('tasks.activity'),
          callKey('projects.get', { projectId }),
        ]
      : []),
  ],
  // Raised on the desktop by app/notifications.ts (web) or the main process (desktop app).
  'queue.notice': () => [],
  'brainstorm.changed': ({ projectId }) => [
    callKey('brainstorm.get', { projectId }),
    callKey('brainstorm.ideas', { projectId }),
  ],
}

/** The query keys one event makes stale; [] for an event name this renderer does not know. */
export function keysFor(name: string, payload: unknown): QueryKey[] {
  if (!Object.prototype.hasOwnProperty.call(invalidations, name)) return []
  const rule = invalidations[name as EventName] as (payload: unknown) => QueryKey[]
  return rule(payload)
}

/** Invalidates the matching queries whenever an event arrives; returns the unsubscribe. */
export function subscribeInvalidation(client: Client, queryClient: QueryClient): () => void {
  return client.onAny(({ name, payload }) => {
    for (const queryKey of keysFor(name, payload)) void queryClient.invalidateQueries({ queryKey })
  })
}
