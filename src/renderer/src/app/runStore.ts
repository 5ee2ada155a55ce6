import { create } from 'zustand'
import type { TaskOutcome } from '../../../shared/api/tasks'
import type { LoopEvent } from '../../../shared/loopEvents'
import type { Client } from '../api'

export interface Outcome {
  status: TaskOutcome
  message: string
}

/** A task's live progress as the loop reports it. Only in memory: the chat (issue 12) replays history from SQLite. */
export interface ProjectRun {
  /** null until this window has seen an event or a start; then the `tasks.running` query is the answer. */
  running: boolean | null
  task: number | null
  events: LoopEvent[]
  outcome: Outcome | null
}

const MAX_EVENTS = 500
export const emptyRun = (): ProjectRun => ({
  running: null,
  task: null,
  events: [],
  outcome: null,
})

interface RunState {
  runs: Record<number, ProjectRun>
  started(projectId: number): void
  startFailed(projectId: number): void
  onEvent(projectId: number, event: LoopEvent): void
  onFinished(projectId: number, task: number, outcome: Outcome): void
}

/** UI state of the project feature's live log, fed by `loop.*` events (subscribeRunEvents). */
export const useRuns = create<RunState>()((set) => {
  const patch = (projectId: number, fn: (run: ProjectRun) => Partial<ProjectRun>) =>
    set((s) => {
      const run = s.runs[projectId] ?? emptyRun()
      return { runs: { ...s.runs, [projectId]: { ...run, ...fn(run) } } }
    })
  return {
    runs: {},
    started: (projectId) => patch(projectId, () => ({ ...emptyRun(), running: true })),
    startFailed: (projectId) => patch(projectId, () => ({ running: false })),
    onEvent: (projectId, event) =>
      patch(projectId, (run) => ({
        running: true,
        task: event.task,
        events: [...run.events, event].slice(-MAX_EVENTS),
      })),
    onFinished: (projectId, task, outcome) => patch(projectId, () => ({ running: false, task, outcome })),
  }
})

/**
 * Feeds every project's loop events into the store (not the streamed text: the chat's card batches that itself,
 * and a store update per delta re-rendered every subscriber), whichever screen is open; returns the unsubscribe.
 */
export function subscribeRunEvents(client: Client): () => void {
  const { onEvent, onFinished } = useRuns.getState()
  const offs = [
    client.on('loop.event', ({ projectId, event }) => onEvent(projectId, event)),
    client.on('loop.finished', ({ projectId, task, status, message }) =>
      onFinished(projectId, task, { status, message }),
    ),
  ]
  return () => offs.forEach((off) => off())
}
