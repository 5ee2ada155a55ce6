import type { TaskCardStatus } from '../../../../shared/api/chat'
import type { ProjectDetail } from '../../../../shared/project'
import { useCall } from '../../app/queries'
import { Badge, type Tone } from '../../ui'
import { statusWord } from '../chat'
import { type BuildHeadline } from '../queue'
import './projectStatus.css'

/** The project's own words (idle, ready between tasks); the rest are a task's status words. */
const statusBadge: Record<ProjectDetail['state']['status'], { tone: Tone; label: string }> = {
  idle: { tone: 'neutral', label: 'Idle' },
  waiting: { tone: 'neutral', label: 'Ready' },
  running: statusWord.running,
  complete: statusWord.complete,
  failed: statusWord.failed,
  interrupted: statusWord.interrupted,
}

/**
 * The header's word for the project: a panel build while it runs (or ended needing the user) comes first, then a
 * chat task running, then what `.ralph/status` says. A build's task is named beside the badge.
 */
export function ProjectStatus({
  projectId,
  state,
  taskRunning,
  build,
  buildRunning,
}: {
  /** Given, a task that ended is named as its run row says, as its card does (Stopped, not `.ralph/`'s failed). */
  projectId?: number
  state: ProjectDetail['state']
  taskRunning: boolean
  build: BuildHeadline | null
  /** While a build runs, `taskRunning` may be its own task lock speaking: the build's words win. */
  buildRunning: boolean
}) {
  const lastRun = useLastRunStatus(projectId)
  const ended =
    state.status !== 'idle' && state.status !== 'running' && !(state.status === 'waiting' && !state.taskCount)
  const shown: BuildHeadline =
    build && (buildRunning || !taskRunning)
      ? build
      : {
          ...(taskRunning
            ? statusBadge.running
            : ended && lastRun
              ? statusWord[lastRun]
              : state.status === 'waiting' && state.taskCount > 0
                ? statusWord.waiting
                : statusBadge[state.status]),
          detail: null,
          hint: null,
        }
  return (
    <span className="project-status" role="status" aria-label="Project status">
      <Badge tone={shown.tone}>{shown.label}</Badge>
      {shown.detail ? (
        <span className="project-status-detail muted" title={shown.hint ?? shown.detail}>
          {shown.detail}
        </span>
      ) : null}
    </span>
  )
}

/** How the project's newest task run ended, from its run row (the source every task card reads). */
export function useLastRunStatus(projectId: number | undefined): TaskCardStatus | null {
  const activity = useCall('tasks.activity', {}, { enabled: projectId !== undefined })
  const status = activity.data?.find((a) => a.projectId === projectId)?.lastTask?.status
  return status && status !== 'running' && status in statusWord ? (status as TaskCardStatus) : null
}
