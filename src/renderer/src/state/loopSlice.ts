import type { StateCreator } from 'zustand'
import type { LoopEvent } from '../../../shared/loopEvents'
import { client } from '../api'

export interface ProjectRun {
  running: boolean
  events: LoopEvent[]
  /** The model's streamed text in the current iteration. */
  liveText: string
  outcome: { status: string; message: string } | null
  error: string | null
}

export interface LoopSlice {
  runs: Record<number, ProjectRun>
  startTask(projectId: number, message: string): Promise<boolean>
  stopTask(projectId: number): Promise<void>
  refreshRunning(projectId: number): Promise<void>
  onLoopEvent(projectId: number, event: LoopEvent): void
  onLoopDelta(projectId: number, text: string): void
  onLoopFinished(projectId: number, outcome: { status: string; message: string }): void
}

const empty = (): ProjectRun => ({ running: false, events: [], liveText: '', outcome: null, error: null })
const MAX_EVENTS = 500

export const createLoopSlice: StateCreator<LoopSlice, [], [], LoopSlice> = (set, get) => {
  const patch = (projectId: number, fn: (run: ProjectRun) => Partial<ProjectRun>) =>
    set((s) => {
      const run = s.runs[projectId] ?? empty()
      return { runs: { ...s.runs, [projectId]: { ...run, ...fn(run) } } }
    })
  return {
    runs: {},
    async startTask(projectId, message) {
      patch(projectId, () => ({ ...empty(), running: true }))
      try {
        await client.call('tasks.start', { projectId, message })
        return true
      } catch (err) {
        patch(projectId, () => ({ running: false, error: err instanceof Error ? err.message : String(err) }))
        return false
      }
    },
    async stopTask(projectId) {
      await client.call('tasks.stop', { projectId })
    },
    async refreshRunning(projectId) {
      const { running } = await client.call('tasks.running', { projectId })
      if (running !== (get().runs[projectId]?.running ?? false)) patch(projectId, () => ({ running }))
    },
    onLoopEvent(projectId, event) {
      patch(projectId, (run) => ({
        running: true,
        events: [...run.events, event].slice(-MAX_EVENTS),
        liveText: event.type === 'iteration.started' ? '' : run.liveText,
      }))
    },
    onLoopDelta(projectId, text) {
      patch(projectId, (run) => ({ liveText: (run.liveText + text).slice(-4000) }))
    },
    onLoopFinished(projectId, outcome) {
      patch(projectId, () => ({ running: false, outcome, liveText: '' }))
    },
  }
}
