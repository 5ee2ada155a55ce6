import { create } from 'zustand'
import { readStoredByProject, writeStoredByProject } from '../../app/localStore'
import { snapshotTags } from '../../../../shared/snapshotTags'
import { useTimelineUi } from '../timeline'
import type { WorkerBackend } from '../../../../shared/workersConfig'
import { noBudgetText, type BudgetText } from './budget'

const BUDGETS_KEY = 'ralph.queue.budgets'

const readBudgets = (): Record<number, BudgetText> =>
  readStoredByProject(BUDGETS_KEY, (value) => {
    const v = value as Partial<BudgetText> | null
    return {
      cost: typeof v?.cost === 'string' ? v.cost : '',
      minutes: typeof v?.minutes === 'string' ? v.minutes : '',
    }
  })

interface QueueUi {
  /** The Build controls' budgets per project, as typed (so a half-typed value survives a tab switch). */
  budgets: Record<number, BudgetText>
  setBudget(projectId: number, patch: Partial<BudgetText>): void
  /** The Lanes chosen per project for its next builds; absent: the project's own ("lanes.parallel"). */
  lanes: Record<number, number>
  setLanes(projectId: number, lanes: number): void
  /** The Workers chosen per project for its next builds; absent: the project's own ("workers.backend"). */
  workers: Record<number, WorkerBackend>
  setWorkers(projectId: number, workers: WorkerBackend): void
  /** The project whose attempt diff the Queue opened full size (the Timeline's Compare, shown over the Queue). */
  comparing: number | null
}

/** UI state of the Queue panel; the budgets are remembered across reloads. */
export const useQueueUi = create<QueueUi>()((set, get) => ({
  budgets: readBudgets(),
  comparing: null,
  lanes: {},
  setLanes: (projectId, lanes) => set({ lanes: { ...get().lanes, [projectId]: lanes } }),
  workers: {},
  setWorkers: (projectId, workers) => set({ workers: { ...get().workers, [projectId]: workers } }),
  setBudget(projectId, patch) {
    const budgets = {
      ...get().budgets,
      [projectId]: { ...(get().budgets[projectId] ?? noBudgetText), ...patch },
    }
    writeStoredByProject(BUDGETS_KEY, budgets) // when not remembered, still applied
    set({ budgets })
  },
}))

export const useBudgetText = (projectId: number): BudgetText =>
  useQueueUi((s) => s.budgets[projectId] ?? noBudgetText)

/**
 * Opens what a build attempt changed (its lifecycle task's task-N-pre → task-N-post) in the Timeline's Compare,
 * full size over the Queue, with `file` chosen; closing it leaves the Queue as it was.
 */
export function openAttemptCompare(projectId: number, task: number, file: string | null): void {
  const timeline = useTimelineUi.getState()
  timeline.openCompare(projectId, { from: snapshotTags.taskPre(task), to: snapshotTags.taskPost(task) })
  timeline.setFile(file)
  timeline.setFullSize(true)
  useQueueUi.setState({ comparing: projectId })
}
