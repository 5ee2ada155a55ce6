import { GitCompare, FileDiff, RotateCcw } from 'lucide-react'
import { memo, useState } from 'react'
import type { TaskCardDto } from '../../../../shared/api/chat'
import { snapshotTags } from '../../../../shared/api/snapshots'
import { Badge, Button, Markdown } from '../../ui'
import { navigate } from '../../app/useRoute'
import { usePlanUi } from '../plan'
import { useProject } from '../../app/projectQueries'
import { useRuns } from '../../app/runStore'
import { RollbackDialog } from '../timeline'
import { CommitToGitButton } from '../userGit'
import { formatDurationShort as formatDuration } from '../../../../shared/format'
import { taskTypeWords } from '../../../../shared/checkWords'
import { cardBadge, formatCached, formatCost, formatTokens, modelSpend } from './format'
import { FilesChanged } from './FilesChanged'
import { GateChips, latestGates } from './GateChips'
import { iterationCount, Iterations } from './Iterations'
import { CardFlowActions } from './CardFlowActions'
import { CardCapLine } from './CardCapLine'
import { CardQuestions } from './QuestionActions'
import { LimitWait } from './LimitWait'
import { LiveText } from './LiveText'
import { PhaseStepper } from './PhaseStepper'
import { TaskImages } from './TaskImages'
import { TaskMcpNotes } from './TaskMcpNotes'
import { TaskRequirements } from './TaskRequirements'
import { ResumeButton } from './ResumeButton'
import { RolledBackNote } from './RolledBackNote'
import { McpCallMark } from './McpCallMark'
import { MiddlePath } from './MiddlePath'
import { openTaskCompare } from './openFileDiff'
import { CommandText, EngineNote } from './EngineNote'
import { useCardEngine, useEngineLogin } from './engineTask'
import './taskCard.css'

/** Tool calls a card shows without being opened. */
const RECENT_TOOLS = 3

const NO_ANSWERS: readonly string[] = []

/** Statuses of a task that ended without its post-task snapshot: whatever it changed is still on disk. */
const LEFT_FILES: ReadonlySet<TaskCardDto['status']> = new Set(['failed', 'stopped', 'interrupted'])

const NO_PLAN = 'This project has no plan (.ralph/plan.tsx), so there are no plan changes to review.'

/** A task as one card: what the loop did and what it cost, read from the run's rows; live text while it runs. */
export const TaskCard = memo(function TaskCard({
  card,
  projectId,
  answers = NO_ANSWERS,
}: {
  card: TaskCardDto
  projectId: number
  /** The user's answers to the task's questions (their messages, folded into the card by the log). */
  answers?: readonly string[]
}) {
  const status = cardBadge(card)
  const live = card.status === 'running' || card.status === 'starting'
  // A task that ended before its parse (an engine that is not installed) never got a title.
  const untitled = live ? 'Reading the request…' : 'Request not read'
  const name = card.task === null ? 'Starting task…' : `Task ${card.task}: ${card.title ?? untitled}`
  const iterations = iterationCount(card)
  const engine = useCardEngine(card, projectId)
  const engineLogin = useEngineLogin(projectId, card.task)
  const [rollbackTag, setRollbackTag] = useState<string | null>(null)
  const duration =
    card.startedAt !== null && card.endedAt !== null ? formatDuration(card.endedAt - card.startedAt) : null
  return (
    <article
      className={`task-card task-card-${card.status}${card.rolledBack ? ' task-card-rolled-back' : ''}`}
      aria-label={name}
    >
      <header className="task-card-header">
        <h3 className="task-card-title">{name}</h3>
        <Badge tone={status.tone}>{status.label}</Badge>
      </header>
      <p className="task-card-meta">
        {card.type ? (
          <span className="has-hint" title={taskTypeWords(card.type).hint}>
            {taskTypeWords(card.type).label}
          </span>
        ) : null}
        {live ? null : (
          <span>
            {iterations} iteration{iterations === 1 ? '' : 's'}
          </span>
        )}
        {duration ? <span>{duration}</span> : null}
        <span data-testid="task-cost">{formatCost(card.cost)}</span>
        {engine ? <EngineNote engine={engine} login={engineLogin ?? card.engineLogin} /> : null}
        {card.cost.calls > 0 ? (
          <span>{formatTokens(card.cost.inputTokens + card.cost.outputTokens)} tokens</span>
        ) : null}
        {formatCached(card.cost) ? <span>{formatCached(card.cost)}</span> : null}
        {modelSpend(card.cost) ? <span data-testid="task-cost-models">{modelSpend(card.cost)}</span> : null}
      </p>
      {card.task !== null ? <PhaseStepper card={card} projectId={projectId} /> : null}
      {card.task !== null ? <TaskImages projectId={projectId} task={card.task} /> : null}
      <TaskMcpNotes projectId={projectId} task={card.task} runId={card.runId} />
      <TaskRequirements card={card} />
      <RecentTools card={card} />
      {card.gates.length ? <GateChips gates={latestGates(card.gates)} /> : null}
      <Iterations card={card} projectId={projectId} />
      {card.task !== null ? <CardCapLine card={card} projectId={projectId} /> : null}
      {live && card.task !== null ? (
        <>
          <LiveStep projectId={projectId} task={card.task} stored={card.lastIteration ?? null} />
          <LimitWait projectId={projectId} task={card.task} />
          {/* Once the run exists, its text streams inside the iterations, where it is being written. */}
          {card.runId === null ? <LiveText projectId={projectId} task={card.task} /> : null}
        </>
      ) : null}
      <CardQuestions
        card={card}
        projectId={projectId}
        answers={answers}
        question={(text) => (engine ? <CommandText text={text} /> : text)}
      />
      {/* A waiting task's words are its question, shown with the questions above. */}
      {card.status !== 'waiting' && (card.outcome || card.detail) ? (
        card.status === 'complete' ? (
          <Markdown className="task-card-outcome" text={(card.outcome ?? card.detail)!} />
        ) : (
          <p className={`task-card-outcome outcome-${card.status}`}>
            {engine ? <CommandText text={(card.outcome ?? card.detail)!} /> : (card.outcome ?? card.detail)}
          </p>
        )
      ) : null}
      {card.rolledBack && card.task !== null ? (
        <RolledBackNote projectId={projectId} task={card.task} onRestore={setRollbackTag} />
      ) : null}
      <CardFlowActions card={card} projectId={projectId} />
      {card.status === 'complete' && card.task !== null ? (
        <FilesChanged projectId={projectId} task={card.task} />
      ) : LEFT_FILES.has(card.status) && card.task !== null ? (
        <FilesChanged projectId={projectId} task={card.task} left />
      ) : null}
      {card.task !== null ? (
        <footer className="task-card-actions">
          {card.status === 'interrupted' && card.runId !== null ? (
            <ResumeButton projectId={projectId} task={card.task} runId={card.runId} />
          ) : null}
          <Button
            size="sm"
            icon={<RotateCcw size={13} aria-hidden />}
            onClick={() => card.task !== null && setRollbackTag(snapshotTags.taskPre(card.task))}
          >
            Roll back to before this task
          </Button>
          <Button
            size="sm"
            icon={<GitCompare size={13} aria-hidden />}
            title="What this task changed, in the Timeline tab"
            // task-N-pre → task-N-post; the Timeline falls back to the working copy while there is no post.
            onClick={() => openTaskCompare(projectId, card.task!)}
          >
            Compare
          </Button>
          {/* Its changes are not in the folder: there is nothing of it to commit. */}
          {card.rolledBack ? null : <CommitToGitButton projectId={projectId} card={card} />}
          <ReviewPlanButton projectId={projectId} task={card.task} done={card.status === 'complete'} />
          {/* Mounted only while open: a long conversation of cards carries no closed dialogs. */}
          {rollbackTag !== null ? (
            <RollbackDialog projectId={projectId} tag={rollbackTag} onClose={() => setRollbackTag(null)} />
          ) : null}
        </footer>
      ) : null}
    </article>
  )
})

/** The task's latest tool calls, one compact line each; all of them are in the iterations. */
function RecentTools({ card }: { card: TaskCardDto }) {
  const shown = card.toolCalls.slice(-RECENT_TOOLS)
  if (!shown.length) return null
  return (
    <ol className="task-card-tools" aria-label="Tool calls">
      {card.toolCallCount > shown.length ? (
        <li className="muted">… {card.toolCallCount - shown.length} earlier</li>
      ) : null}
      {shown.map((t, i) => (
        <li key={i} className={t.ok ? undefined : 'tool-error'}>
          {/* The mark is drawn by the stylesheet: cheaper than an icon in each line of many cards. */}
          <span className="tool-mark" role="img" aria-label={t.ok ? 'ok' : 'error'} />
          <code>{t.name}</code>
          <McpCallMark toolName={t.name} />
          {t.path ? <MiddlePath className="muted" path={t.path} /> : null}
        </li>
      ))}
    </ol>
  )
}

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
function LiveStep({
  projectId,
  task,
  stored,
}: {
  projectId: number
  task: number
  /** The run's newest iteration row: where the task is when this page has heard no event of it (a reload). */
  stored: TaskCardDto['lastIteration']
}) {
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
  const shown = step ?? (stored ? `Iteration ${stored.number} · ${stored.phase}` : null)
  return shown ? (
    <p className="task-card-step" data-testid="task-step">
      {shown}
    </p>
  ) : null
}
