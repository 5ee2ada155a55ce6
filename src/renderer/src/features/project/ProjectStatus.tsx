import { useId } from 'react'
import { Badge } from '../../ui'
import { ProjectDetails } from './ProjectFacts'
import { projectHeadline, type HeadlineInput } from './projectStatus'
import './projectStatus.css'

/**
 * The header's word for the project (projectStatus.ts decides it) and, beside it, the one button to its details.
 * The badge is the short word a task card uses; the whole sentence is its tooltip and the details button's
 * description.
 */
export function ProjectStatus(input: HeadlineInput) {
  const shown = projectHeadline(input)
  const sentenceId = useId()
  return (
    <>
      <span className="project-status" role="status" aria-label="Project status">
        <Badge tone={shown.tone} title={shown.sentence}>
          {shown.label}
        </Badge>
        {shown.detail ? (
          <span className="project-status-detail muted" title={shown.hint ?? shown.detail}>
            {shown.detail}
          </span>
        ) : null}
      </span>
      {/* The whole sentence describes the details button (the status region keeps the card's short word). */}
      <span id={sentenceId} className="visually-hidden" data-testid="project-status">
        {shown.sentence}
      </span>
      <ProjectDetails state={input.state} taskRunning={input.taskRunning} describedBy={sentenceId} />
    </>
  )
}
