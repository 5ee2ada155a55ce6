import type { Output } from '../../../../shared/api/contract'
import type { Project } from '../../../../shared/project'
import { routeHash } from '../../app/routes'
import { cx } from '../../ui'
import { timeAgo } from './timeAgo'

type Activity = Output<'tasks.activity'>[number]

const statusLabel: Record<Activity['status'], string> = {
  running: 'Running',
  waiting: 'Waiting for your answer',
  failed: 'Last task failed',
  interrupted: 'Last task interrupted',
  idle: 'Idle',
}

/** One recent project: its status dot, name and folder, and its last task with when it ran. */
export function ProjectItem({ project, activity }: { project: Project; activity: Activity | undefined }) {
  const status = activity?.status ?? 'idle'
  const last = activity?.lastTask ?? null
  return (
    <a className="project-item" href={routeHash({ page: 'project', projectId: project.id })}>
      <span className="project-name">
        <span
          className={cx('status-dot', `status-${status}`)}
          role="img"
          aria-label={statusLabel[status]}
          title={statusLabel[status]}
        />
        {project.name}
      </span>
      <span className="project-detail">
        <span className="last-task">
          {last ? `Task ${last.task}${last.title ? `: ${last.title}` : ''}` : 'No task yet'}
          {status !== 'idle' ? (
            <span className={`status-word status-${status}`}> · {statusLabel[status]}</span>
          ) : null}
        </span>
        <span className="muted path">{project.path}</span>
      </span>
      <span className="muted when">{timeAgo(last?.at ?? project.lastOpenedAt)}</span>
    </a>
  )
}
