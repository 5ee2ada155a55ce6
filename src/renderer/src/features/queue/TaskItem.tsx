import { ArrowDown, ArrowUp, Pencil, RotateCcw, RotateCw, Trash2 } from 'lucide-react'
import type { QueueEscalation } from '../../../../shared/api/queue'
import type { QueueView } from '../../../../shared/queue'
import type { ReactElement } from 'react'
import { errorMessage } from '../../app/queries'
import { ActionButton, Badge, Button, Tooltip, cx, toast, useSingleFlight } from '../../ui'
import { forTheApp, taskNames } from './appText'
import { LatestVerification } from './BuildSection'
import { RejectReason } from './RejectReason'
import { useEscalationControl, useEscalations } from './queries'
import { depName } from './taskForm'
import { priorityTone, type TaskRow } from './taskRows'

export interface TaskActions {
  /** A change in flight: every control waits for it. */
  busy: boolean
  /** A change returns its call's promise: the button that started it stays busy until it settles. */
  onMove(id: string, direction: 'up' | 'down'): Promise<unknown>
  onEdit(id: string): void
  onRemove(id: string): void
  onAccept(id: string): Promise<unknown>
  /** Rejects a done task with the reason its next attempt reads (one step, issue 37). */
  onReject(id: string, reason: string): Promise<unknown>
  /**
   * An escalated task was retried: the panel starts a build (with its mode and budget) unless one runs, which then
   * reaches the task itself. Resolves to whether a build was started.
   */
  onRetried(id: string): Promise<boolean>
  /** The tasks the build is working on (one, or one per lane): unchangeable until the build moves on or stops. */
  building: ReadonlySet<string>
}

/** One task of the "Work queue" list: status, priority, dependencies by name, criteria as DET/LLM chips. */
export function TaskItem({
  projectId,
  row,
  state,
  actions,
}: {
  projectId: number
  row: TaskRow
  state: QueueView
  actions: TaskActions
}) {
  const { task, status, place } = row
  const escalations = useEscalations(projectId)
  const control = useEscalationControl(projectId)
  const busy = actions.building.has(task.id)
    ? 'The build is working on it: wait, or stop the build first'
    : actions.busy || control.retry.isPending || control.replan.isPending
      ? 'Another change is being saved'
      : null
  const done = task.status === 'done'
  const escalation = done ? null : (escalations.data?.items.find((e) => e.taskId === task.id) ?? null)
  const failed = (what: string) => (err: unknown) =>
    toast.error(`Could not ${what}: ${forTheApp(errorMessage(err), taskNames(state, undefined))}`)
  const name = `“${task.name}”`
  const replan = () =>
    control.replan
      .mutateAsync(task.id)
      .then(
        () => toast.success(`${name} is pending again, to be re-planned (not counted as a failure)`),
        failed(`re-plan ${name}`),
      )
  const retry = () =>
    control.retry.mutateAsync(task.id).then(
      async () => {
        const started = await actions.onRetried(task.id)
        toast.success(
          started
            ? `${name} is no longer escalated: building it now`
            : `${name} is no longer escalated: the build starts it afresh when its turn comes`,
        )
      },
      failed(`retry ${name}`),
    )
  return (
    <li className={cx('queue-task', done && 'queue-task-done')} aria-label={task.name}>
      <div className="queue-task-head">
        <span className="queue-task-place" aria-hidden>
          {place ?? ''}
        </span>
        <span className="queue-task-name">{task.name}</span>
        <div className="queue-task-actions">
          {done ? (
            <>
              <ActionButton
                size="sm"
                variant="primary"
                disabledReason={busy}
                onAction={() => actions.onAccept(task.id)}
              >
                Accept
              </ActionButton>
              <Tooltip
                content={
                  busy
                    ? `Re-plan: ${busy}`
                    : 'Back to pending, with a note asking the next attempt for a fresh plan (not counted as a failure)'
                }
              >
                <ActionButton
                  size="sm"
                  variant="ghost"
                  icon={<RotateCcw size={14} />}
                  aria-disabled={busy ? true : undefined}
                  onAction={() => (busy ? undefined : replan())}
                >
                  Re-plan
                </ActionButton>
              </Tooltip>
            </>
          ) : (
            <>
              {escalation ? (
                <ActionButton
                  size="sm"
                  variant="primary"
                  icon={<RotateCw size={14} />}
                  disabledReason={busy}
                  title="End the escalation: the next build starts this task again, with fresh attempts"
                  onAction={retry}
                >
                  Retry
                </ActionButton>
              ) : null}
              <RowAction
                label="Move up"
                icon={<ArrowUp size={14} />}
                blocked={busy ?? row.cannotMoveUp}
                onClick={() => actions.onMove(task.id, 'up')}
              />
              <RowAction
                label="Move down"
                icon={<ArrowDown size={14} />}
                blocked={busy ?? row.cannotMoveDown}
                onClick={() => actions.onMove(task.id, 'down')}
              />
            </>
          )}
          <RowAction
            label="Edit"
            icon={<Pencil size={14} />}
            blocked={busy}
            onClick={() => actions.onEdit(task.id)}
          />
          <RowAction
            label="Remove"
            icon={<Trash2 size={14} />}
            blocked={busy ?? row.cannotRemove}
            onClick={() => actions.onRemove(task.id)}
          />
        </div>
      </div>
      <div className="queue-task-meta">
        {actions.building.has(task.id) ? (
          <Badge tone="accent" className="queue-task-status">
            Building
          </Badge>
        ) : escalation ? (
          <>
            <Badge tone="bad" className="queue-task-status">
              Escalated
            </Badge>
            <span className="muted">waits for you: no build starts it</span>
          </>
        ) : (
          <>
            <Badge tone={status.tone} className="queue-task-status">
              {status.word}
            </Badge>
            {status.detail ? <span className="muted">{status.detail}</span> : null}
          </>
        )}
        <Badge tone={priorityTone(task.priority)}>{task.priority} priority</Badge>
        <span className="queue-task-id mono" title="The task’s id in the queue file (.ralph/plan.jsonl)">
          {task.id}
        </span>
      </div>
      {task.notes ? <p className="queue-task-notes">{task.notes}</p> : null}
      {task.deps.length > 0 ? (
        <p className="queue-task-deps">
          <span className="muted">After </span>
          {task.deps.map((d, i) => (
            <span key={d}>
              {i > 0 ? ', ' : null}
              <span className={cx(task.blockedBy.includes(d) && 'queue-dep-open')}>{depName(state, d)}</span>
            </span>
          ))}
        </p>
      ) : null}
      {task.accept.length > 0 ? (
        <ul className="queue-criteria" aria-label="Acceptance criteria">
          {task.accept.map((c) => (
            <li key={c.ref} className="queue-criterion">
              <Badge
                tone={c.kind === 'DET' ? 'info' : 'accent'}
                className="queue-chip"
                title={
                  c.kind === 'DET'
                    ? 'Deterministic: a command checks it'
                    : c.tagged
                      ? 'A model judges it'
                      : 'No tag: counts as LLM (a model judges it)'
                }
              >
                {c.kind}
              </Badge>
              <span className="queue-criterion-ref mono muted">{c.ref}</span>
              <span className="queue-criterion-text">{c.text}</span>
            </li>
          ))}
        </ul>
      ) : (
        <p className="queue-task-nocriteria muted">
          No acceptance criteria: verification has nothing to check.
        </p>
      )}
      {/* The task the build works on shows its verification live in the build's progress. */}
      {actions.building.has(task.id) ? null : <LatestVerification projectId={projectId} taskId={task.id} />}
      {done ? (
        <RejectReason
          name={task.name}
          blocked={busy}
          onReject={(reason) => actions.onReject(task.id, reason)}
        />
      ) : null}
      {escalation ? <EscalationNote escalation={escalation} names={taskNames(state, undefined)} /> : null}
      {task.reject && !done ? (
        <p className="queue-task-feedback">
          <span className="queue-warn">Rejected before:</span> {task.reject}
        </p>
      ) : null}
    </li>
  )
}

/** Why the build handed the task to the user, and what its rollback kept (the reason in full on demand). */
function EscalationNote({
  escalation: e,
  names,
}: {
  escalation: QueueEscalation
  names: ReadonlyMap<string, string>
}) {
  const what =
    e.kind === 'stuck'
      ? 'Got stuck again after a re-plan from scratch'
      : `Failed ${e.failures} time${e.failures === 1 ? '' : 's'}`
  const rollback = e.rolledBackTo
    ? `; the project was rolled back to ${e.rolledBackTo}${e.safetyTag ? ` (the abandoned work is in ${e.safetyTag})` : ''}`
    : ''
  return (
    <div className="queue-task-escalation">
      <p className="queue-task-feedback">
        <span className="queue-warn">Escalated:</span> {what}
        {rollback}. Retry starts it afresh; editing its notes or criteria also ends the escalation.
      </p>
      <details>
        <summary className="muted">What happened</summary>
        <p className="queue-task-notes">{forTheApp(e.message, names)}</p>
      </details>
    </div>
  )
}

/** An icon button whose one tooltip says what it does, or why it cannot be used now (it stays focusable). */
function RowAction({
  label,
  icon,
  blocked,
  onClick,
}: {
  label: string
  icon: ReactElement
  blocked: string | null
  /** A change returns its promise: the button acts once until it settles (single flight). */
  onClick(): unknown
}) {
  const { run, busy } = useSingleFlight(onClick)
  return (
    <Tooltip content={blocked ? `${label}: ${blocked}` : label}>
      <Button
        variant="ghost"
        size="sm"
        aria-label={label}
        icon={icon}
        aria-disabled={blocked || busy ? true : undefined}
        aria-busy={busy || undefined}
        onClick={(event) => (blocked || busy ? event.preventDefault() : void run())}
      />
    </Tooltip>
  )
}
