import type { ProjectState } from '../../../../shared/project'
import { Badge } from '../../ui'
import { type BuildHeadline } from '../queue'
import { ProjectDetails } from './ProjectFacts'
import { projectHeadline } from './projectStatus'
import './projectStatus.css'

/**
 * The header's word for the project (projectStatus.ts decides it) and, beside it, the one button to its details.
 * The badge is the short word a task card uses; the sentence is its tooltip and what a screen reader hears.
 */
export function ProjectStatus({
  state,
  taskRunning,
  build,
  buildRunning,
}: {
  state: ProjectState
  taskRunning: boolean
  build: BuildHeadline | null
  /** While a build runs, `taskRunning` may be its own task lock speaking: the build's words win. */
  buildRunning: boolean
}) {
  const shown = projectHeadline({ state, taskRunning, build, buildRunning })
  return (
    <>
      <span className="project-status" role="status" aria-label="Project status">
        <Badge tone={shown.tone} title={shown.sentence} aria-hidden>
          {shown.label}
        </Badge>
        {shown.detail ? (
          <span className="project-status-detail muted" title={shown.hint ?? shown.detail} aria-hidden>
            {shown.detail}
          </span>
        ) : null}
        <span className="visually-hidden" data-testid="project-status">
          {shown.sentence}
        </span>
      </span>
      <ProjectDetails state={state} taskRunning={taskRunning} />
    </>
  )
}
