import { Hammer, ListTodo, Plus, Square } from 'lucide-react'
import { useMemo, useState } from 'react'
import type { QueueView, Stage, TaskView } from '../../../../shared/queue'
import type { BuildProgress, QueueBuildMode } from '../../../../shared/queueBuild'
import { workingLanes } from '../../../../shared/buildLanes'
import { errorMessage } from '../../app/queries'
import { ActionButton, Banner, Button, ConfirmDialog, EmptyState, toast, useSingleFlight } from '../../ui'
import { BudgetFields } from './BudgetFields'
import { checkBudget } from './budget'
import { forTheApp, taskNames } from './appText'
import { BuildSection } from './BuildSection'
import { QueueCompare } from './AttemptChanges'
import { IssuesSection } from './IssuesSection'
import { LanesChoice, useLanesChoice } from './LanesChoice'
import { useWorkersChoice, WorkersChoice } from './WorkersChoice'
import { NotificationsSection } from './NotificationsSection'
import { TaskDialog } from './TaskDialog'
import type { TaskActions } from './TaskItem'
import { plural } from '../../../../shared/format'
import { buildModeWords } from '../../../../shared/checkWords'
import { TaskList } from './TaskList'
import { useBuildControl, useBuildStatus, useQueueMutation, useQueueState, useRejectAsked } from './queries'
import { useBudgetText } from './queueUi'
import { taskRows } from './taskRows'
import './queue.css'

function stageHint(state: QueueView): Record<Stage, string> {
  const done = state.tasks.filter((t) => t.status === 'done').length
  const waiting = done > 0 ? ` ${plural(done, 'done task')} wait${done === 1 ? 's' : ''} for a decision.` : ''
  return {
    PLAN: state.spec === null ? 'No spec is set yet.' : 'No tasks yet.',
    BUILD: `${plural(state.order.length, 'task')} to build, in this order.${waiting}`,
    VERIFY: 'Done tasks wait for verification: accept or reject them.',
    INVESTIGATE: 'Every task is accepted; open issues remain.',
    COMPLETE: 'Everything is accepted and no issue is open.',
  }
}

/** Why Build cannot start now (`ralph build` would refuse the same), or null. */
function cannotBuild(state: QueueView): string | null {
  const done = state.tasks.filter((t) => t.status === 'done').length
  if (done > 0)
    return `Accept or reject the ${plural(done, 'done task')} first: the build goes on after your decision`
  if (state.spec === null) return 'Nothing to build yet: add a first task'
  if (state.order.length === 0)
    return state.tasks.some((t) => t.status === 'pending')
      ? 'No pending task can start: break the dependency cycle first (Edit)'
      : 'Nothing to build: the queue has no pending task'
  return null
}

/** The tasks a running build works on: one per working lane in a parallel build, else the current one. */
function buildingIds(progress: BuildProgress | undefined): ReadonlySet<string> {
  if (!progress?.running) return new Set()
  if (progress.lanes.length > 0) return new Set(workingLanes(progress.lanes).map((l) => l.taskId))
  return new Set(progress.current ? [progress.current.taskId] : [])
}

const buildModes: QueueBuildMode[] = ['hybrid', 'yolo', 'interactive']
/**
 * The Queue tab (DESIGN.md §15, §16): the stage, the "Work queue" list in build order with add, edit, reorder,
 * remove, accept and reject, then issues and notifications.
 */
export function QueuePanel({ projectId }: { projectId: number }) {
  const query = useQueueState(projectId)
  const state = query.data
  // The task as it was when its dialog opened: if `ralph build` takes it away meanwhile, the dialog keeps it and
  // the core's answer says what happened (never an edit that turns into an add).
  const [dialog, setDialog] = useState<{ task: TaskView | null } | null>(null)
  const [removing, setRemoving] = useState<TaskView | null>(null)
  const reorder = useQueueMutation(projectId, 'queue.reorder')
  const remove = useQueueMutation(projectId, 'queue.removeTask')
  const accept = useQueueMutation(projectId, 'queue.accept')
  const reject = useQueueMutation(projectId, 'queue.reject')
  const rejectAsked = useRejectAsked(projectId)
  const build = useBuildStatus(projectId)
  const control = useBuildControl(projectId)
  const progress = build.data
  const running = progress?.running === true
  const [mode, setMode] = useState<QueueBuildMode>('hybrid')
  const lanes = useLanesChoice(projectId)
  const workers = useWorkersChoice(projectId)
  const budgetText = useBudgetText(projectId)
  const budget = useMemo(() => checkBudget(budgetText), [budgetText])
  const budgetError = budget.errors.cost ?? budget.errors.minutes
  const rows = useMemo(() => (state ? taskRows(state) : []), [state])
  // The panel scrolls as a whole; the virtualized list renders the rows near its viewport.
  const [scroller, setScroller] = useState<HTMLDivElement | null>(null)
  const find = (id: string) => state?.tasks.find((t) => t.id === id) ?? null

  const names = useMemo(() => taskNames(state, progress), [state, progress])
  const failed = (what: string) => (err: unknown) =>
    toast.error(`Could not ${what}: ${forTheApp(errorMessage(err), names)}`)
  /** A task by its name in the words the user sees (its id only when it has left the queue). */
  const named = (id: string) => {
    const name = find(id)?.name
    return name ? `“${name}”` : id
  }
  /** Runs a change; its failure is a toast saying what could not be done (the button's flight then ends). */
  const act = async <T,>(what: string, call: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await call()
    } catch (err) {
      failed(what)(err)
      return undefined
    }
  }
  const building = useMemo(() => buildingIds(progress), [progress])
  const actions: TaskActions = {
    busy: reorder.isPending || remove.isPending || accept.isPending || reject.isPending,
    building,
    onMove: (id, direction) => act(`move ${named(id)}`, () => reorder.mutateAsync({ id, direction })),
    onEdit: (id) => {
      const task = find(id)
      if (task) setDialog({ task })
    },
    onRemove: (id) => setRemoving(find(id)),
    onAccept: async (id) => {
      const name = named(id)
      const done = await act(`accept ${name}`, () => accept.mutateAsync({ ids: [id] }))
      if (done) toast.success(`Accepted ${name}`)
    },
    onReject: async (id, reason) => {
      const name = named(id)
      const done = await act(`reject ${name}`, () => reject.mutateAsync({ id, reason }))
      if (done) toast.success(`Rejected ${name}: it is pending again, with your reason for its next attempt`)
      return done !== undefined
    },
    // Retry means "try it now" (issue 37): a build starts unless one runs (it reaches the task by itself).
    onRetried: async () => {
      if (running || budgetError) return false
      const started = await act('start the build', () =>
        control.start.mutateAsync({ mode, ...budget.limits, ...lanes.input, ...workers.input }),
      )
      return started !== undefined
    },
  }
  const removeFlight = useSingleFlight((task: TaskView) =>
    act(`remove “${task.name}”`, () => remove.mutateAsync({ id: task.id })),
  )

  if (query.isPending) {
    return (
      <div className="queue">
        <p className="muted queue-note">Reading the work queue…</p>
      </div>
    )
  }
  if (!state) {
    return (
      <div className="queue">
        <Banner tone="error">Could not read .ralph/plan.jsonl: {errorMessage(query.error)}</Banner>
      </div>
    )
  }

  const toRemove = removing
  const empty = state.tasks.length === 0
  return (
    <div className="queue" ref={setScroller}>
      <div className="queue-toolbar">
        <div className="queue-stage-box">
          <span className="caps-label queue-stage-label">Stage</span>
          <span
            role="status"
            aria-label="Stage"
            className={`queue-stage queue-stage-${state.stage.toLowerCase()}`}
          >
            {state.stage}
          </span>
        </div>
        <div className="queue-toolbar-actions">
          {running ? (
            <ActionButton
              size="sm"
              variant="danger"
              icon={<Square size={14} />}
              disabledReason={control.stop.isPending ? 'Stopping…' : null}
              onAction={() => act('stop the build', () => control.stop.mutateAsync())}
            >
              Stop
            </ActionButton>
          ) : (
            <ActionButton
              size="sm"
              icon={<Hammer size={14} />}
              disabledReason={
                control.start.isPending
                  ? 'Starting…'
                  : !progress
                    ? 'Reading the build state…'
                    : (cannotBuild(state) ?? (budgetError ? `Fix the budget first: ${budgetError}` : null))
              }
              onAction={() =>
                act('start the build', () =>
                  control.start.mutateAsync({ mode, ...budget.limits, ...lanes.input, ...workers.input }),
                )
              }
            >
              Build
            </ActionButton>
          )}
          <select
            className="queue-mode"
            aria-label="Build mode"
            title={buildModeWords[mode].hint}
            value={mode}
            disabled={running}
            onChange={(e) => setMode(e.target.value as QueueBuildMode)}
          >
            {buildModes.map((m) => (
              <option key={m} value={m} title={buildModeWords[m].hint}>
                {buildModeWords[m].label}
              </option>
            ))}
          </select>
          <LanesChoice projectId={projectId} choice={lanes} running={running} />
          <WorkersChoice projectId={projectId} choice={workers} running={running} />
          <Button
            size="sm"
            variant="primary"
            icon={<Plus size={14} />}
            onClick={() => setDialog({ task: null })}
          >
            Add task
          </Button>
        </div>
      </div>
      {empty ? null : <BudgetFields projectId={projectId} check={budget} running={running} />}
      <p className="queue-hint muted" hidden={empty && state.stage === 'PLAN'}>
        {stageHint(state)[state.stage]}
        {state.spec ? (
          <>
            {' '}
            Spec: <span className="mono">{state.spec}</span>
          </>
        ) : null}
      </p>
      {query.error ? (
        <Banner tone="warn">Showing the last state read: {errorMessage(query.error)}</Banner>
      ) : null}
      <QueueProblems state={state} names={names} />
      {progress ? (
        <BuildSection
          projectId={projectId}
          progress={progress}
          onApprove={(approve) =>
            act(approve ? 'accept the task' : 'answer', () => control.approve.mutateAsync(approve))
          }
          onReject={(id, reason) => act(`reject ${named(id)}`, () => rejectAsked.mutateAsync({ id, reason }))}
          answering={control.approve.isPending || rejectAsked.isPending}
          names={names}
        />
      ) : null}
      {empty ? (
        <EmptyState
          icon={<ListTodo size={22} />}
          title={state.stage === 'COMPLETE' ? 'Every task is accepted' : 'The work queue is empty'}
          className="queue-empty"
        >
          <p>
            The queue holds the tasks Build works through one at a time, in dependency order, each checked
            against its acceptance criteria before it is accepted.
          </p>
          <p>
            Add a task here (the dialog can write its spec too), or use the Brainstorm button at the top of
            the project: its last step can create the queue from the roadmap it writes.
          </p>
          <Button variant="primary" icon={<Plus size={14} />} onClick={() => setDialog({ task: null })}>
            Add a first task
          </Button>
        </EmptyState>
      ) : (
        scroller && (
          <TaskList projectId={projectId} rows={rows} state={state} actions={actions} scroller={scroller} />
        )
      )}
      {!empty || state.issues.length > 0 ? <IssuesSection projectId={projectId} state={state} /> : null}
      <NotificationsSection projectId={projectId} />
      <QueueCompare projectId={projectId} />

      <TaskDialog
        projectId={projectId}
        state={state}
        task={dialog?.task ?? null}
        open={dialog !== null}
        onOpenChange={(open) => (open ? undefined : setDialog(null))}
      />
      <ConfirmDialog
        open={toRemove !== null}
        onOpenChange={(open) => (open ? undefined : setRemoving(null))}
        title={toRemove ? `Remove ${toRemove.name}?` : 'Remove task?'}
        description="It leaves the queue without being done; the queue's history keeps it, shown as cancelled."
        confirmLabel="Remove"
        onConfirm={() => {
          if (toRemove) void removeFlight.run(toRemove)
        }}
      />
    </div>
  )
}

/** Lines of plan.jsonl that are not records (left in place, never dropped) and what else needs a person. */
function QueueProblems({ state, names }: { state: QueueView; names: ReadonlyMap<string, string> }) {
  if (state.malformed.length === 0 && state.warnings.length === 0) return null
  return (
    <Banner tone="warn" className="queue-problems">
      <ul aria-label="Queue problems">
        {state.malformed.map((m) => (
          <li key={`m${m.line}`}>
            Line {m.line} of .ralph/plan.jsonl is not a record ({m.error}); it is kept as it is until you fix
            it.
          </li>
        ))}
        {state.warnings.map((w, i) => (
          <li key={`w${i}`}>
            {w.line !== null ? `Line ${w.line}: ` : null}
            {forTheApp(w.message, names)}
          </li>
        ))}
      </ul>
    </Banner>
  )
}
