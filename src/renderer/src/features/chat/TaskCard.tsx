import { CircleCheck, CircleX, GitCompare, FileDiff, RotateCcw } from 'lucide-react'
import { memo, useState } from 'react'
import type { TaskCardDto } from '../../../../shared/api/chat'
import { Badge, Button } from '../../ui'
import { navigate } from '../../app/useRoute'
import { usePlanUi } from '../plan'
import { useProject } from '../project/queries'
import { useRuns } from '../project/runStore'
import { RollbackDialog, useTimelineUi } from '../timeline'
import { formatCost, formatDuration, formatTokens, statusWord } from './format'
import { LimitWait } from './LimitWait'
import { PhaseStepper } from './PhaseStepper'
import { TaskRequirements } from './TaskRequirements'
import { ResumeButton } from './ResumeButton'

const NO_PLAN = 'This project has no plan (.ralph/plan.tsx), so there are no plan changes to review.'

/** A task as one card: what the loop did and what it cost, read from the run's rows; live text while it runs. */
export const TaskCard = memo(function TaskCard({
  card,
  projectId,
}: {
  card: TaskCardDto
  projectId: number
}) {
  const status = statusWord[card.status]
  const name =
    card.task === null ? 'Starting task…' : `Task ${card.task}: ${card.title ?? 'Reading the request…'}`
  const live = card.status === 'running' || card.status === 'starting'
  const [rollbackTag, setRollbackTag] = useState<string | null>(null)
  const duration =
    card.startedAt !== null && card.endedAt !== null ? formatDuration(card.endedAt - card.startedAt) : null
  return (
    <article className={`task-card task-card-${card.status}`} aria-label={name}>
      <header className="task-card-header">
        <h3 className="task-card-title">{name}</h3>
        <Badge tone={status.tone}>{status.label}</Badge>
      </header>
      <p className="task-card-meta">
        {card.type ? <span>{card.type}</span> : null}
        {live ? null : (
          <span>
            {card.iterations} iteration{card.iterations === 1 ? '' : 's'}
          </span>
        )}
        {duration ? <span>{duration}</span> : null}
        <span data-testid="task-cost">{formatCost(card.cost)}</span>
        {card.cost.calls > 0 ? (
          <span>{formatTokens(card.cost.inputTokens + card.cost.outputTokens)} tokens</span>
        ) : null}
      </p>
      {card.task !== null ? <PhaseStepper card={card} projectId={projectId} /> : null}
      <TaskRequirements card={card} />
      {card.toolCalls.length ? (
        <ol className="task-card-tools" aria-label="Tool calls">
          {card.toolCallCount > card.toolCalls.length ? (
            <li className="muted">… {card.toolCallCount - card.toolCalls.length} earlier</li>
          ) : null}
          {card.toolCalls.map((t, i) => (
            <li key={i} className={t.ok ? undefined : 'tool-error'}>
              {t.ok ? <CircleCheck size={12} aria-label="ok" /> : <CircleX size={12} aria-label="error" />}
              <code>{t.name}</code>
              {t.path ? <span className="muted">{t.path}</span> : null}
            </li>
          ))}
        </ol>
      ) : null}
      {card.gates.length ? (
        <ul className="task-card-gates" aria-label="Gate results">
          {card.gates.map((g, i) => (
            <li key={i} className={`gate gate-${g.severity}`} title={g.message}>
              {g.gate}: {g.severity === 'pass' ? 'pass' : g.severity === 'warning' ? 'warn' : 'fail'}
            </li>
          ))}
        </ul>
      ) : null}
      {live && card.task !== null ? (
        <>
          <LiveStep projectId={projectId} task={card.task} />
          <LimitWait projectId={projectId} task={card.task} />
          <LiveLine projectId={projectId} task={card.task} />
        </>
      ) : null}
      {card.outcome || card.detail ? (
        <p className={`task-card-outcome outcome-${card.status}`}>
          {card.status === 'waiting' ? 'Ralph asks: ' : null}
          {card.outcome ?? card.detail}
          {card.status === 'waiting' ? ' Answer below to continue this task.' : null}
        </p>
      ) : null}
      {card.task !== null ? (
        <footer className="task-card-actions">
          {card.status === 'interrupted' && card.runId !== null ? (
            <ResumeButton projectId={projectId} task={card.task} runId={card.runId} />
          ) : null}
          <Button
            size="sm"
            icon={<RotateCcw size={13} aria-hidden />}
            onClick={() => setRollbackTag(`task-${card.task}-pre`)}
          >
            Roll back to before this task
          </Button>
          <Button
            size="sm"
            icon={<GitCompare size={13} aria-hidden />}
            title="What this task changed, in the Timeline tab"
            onClick={() => {
              // task-N-pre → task-N-post; the Timeline falls back to the working copy while there is no post.
              useTimelineUi.getState().openTaskCompare(projectId, card.task!)
              navigate({ page: 'project', projectId, panel: 'timeline' })
            }}
          >
            Compare
          </Button>
          <ReviewPlanButton projectId={projectId} task={card.task} done={card.status === 'complete'} />
          <RollbackDialog projectId={projectId} tag={rollbackTag} onClose={() => setRollbackTag(null)} />
        </footer>
      ) : null}
    </article>
  )
})

/** Opens the Plan tab's diff review on this task: its pre-task snapshot against its post-task one. */
function ReviewPlanButton({ projectId, task, done }: { projectId: number; task: number; done: boolean }) {
  const hasPlan = useProject(projectId).data?.state.hasPlan ?? false
  return (
    <Button
      size="sm"
      icon={<FileDiff size={13} aria-hidden />}
      disabledReason={hasPlan ? null : NO_PLAN}
      onClick={() => {
        // A task without a post-task snapshot yet (running, failed) is compared with the working copy.
        usePlanUi.getState().openTaskDiff(task, done)
        navigate({ page: 'project', projectId, panel: 'plan' })
      }}
    >
      Review plan changes
    </Button>
  )
}

/** Where the running task is, from the loop's latest events (a string, so tokens do not re-render it). */
function LiveStep({ projectId, task }: { projectId: number; task: number }) {
  const step = useRuns((s) => {
    const run = s.runs[projectId]
    if (!run || run.task !== task) return null
    for (let i = run.events.length - 1; i >= 0; i--) {
      const e = run.events[i]!
      if (e.type === 'iteration.started') return `Iteration ${e.iteration}/${e.maxIterations} · ${e.phase}`
      if (e.type === 'checkpoint.written') {
        const full = Math.round((100 * e.usedTokens) / e.windowTokens)
        return `Context ${full}% full: checkpoint written; the next iteration continues from it`
      }
      if (e.type === 'task.parsed') return 'Planning'
      if (e.type === 'task.started') return 'Reading the request'
    }
    return null
  })
  return step ? (
    <p className="task-card-step" data-testid="task-step">
      {step}
    </p>
  ) : null
}

/** The model's streamed text for the running task: the only thing a token re-renders. */
function LiveLine({ projectId, task }: { projectId: number; task: number }) {
  const text = useRuns((s) => {
    const run = s.runs[projectId]
    return run && run.task === task ? run.liveText : ''
  })
  return text ? (
    <p className="task-card-live" aria-live="off" data-testid="task-live">
      {text}
    </p>
  ) : null
}
