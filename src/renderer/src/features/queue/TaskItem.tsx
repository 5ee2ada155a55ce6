import { ArrowDown, ArrowUp, Pencil, RotateCcw, Trash2 } from 'lucide-react'
import type { QueueView } from '../../../../shared/queue'
import type { ReactElement } from 'react'
import { Badge, Button, Tooltip, cx } from '../../ui'
import { LatestVerification } from './BuildSection'
import { depName } from './taskForm'
import { priorityTone, type TaskRow } from './taskRows'

export interface TaskActions {
  /** A change in flight: every control waits for it. */
  busy: boolean
  onMove(id: string, direction: 'up' | 'down'): void
  onEdit(id: string): void
  onRemove(id: string): void
  onAccept(id: string): void
  onReject(id: string): void
  /** Back to pending with a note asking for a fresh plan (a rejection whose reason says so). */
  onReplan(id: string): void
  /** The task the build is working on: it cannot be changed until the build moves on or stops. */
  building: string | null
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
  const busy =
    actions.building === task.id
      ? 'The build is working on it: wait, or stop the build first'
      : actions.busy
        ? 'Another change is being saved'
        : null
  const done = task.status === 'done'
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
              <Button
                size="sm"
                variant="primary"
                disabledReason={busy}
                onClick={() => actions.onAccept(task.id)}
              >
                Accept
              </Button>
              <Button size="sm" disabledReason={busy} onClick={() => actions.onReject(task.id)}>
                Reject
              </Button>
              <Tooltip content="Back to pending, with a note asking the next attempt for a fresh plan">
                <Button
                  size="sm"
                  variant="ghost"
                  icon={<RotateCcw size={14} />}
                  aria-disabled={busy ? true : undefined}
                  onClick={(event) => (busy ? event.preventDefault() : actions.onReplan(task.id))}
                >
                  Re-plan
                </Button>
              </Tooltip>
            </>
          ) : (
            <>
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
        {actions.building === task.id ? (
          <Badge tone="accent" className="queue-task-status">
            Building
          </Badge>
        ) : (
          <>
            <Badge tone={status.tone} className="queue-task-status">
              {status.word}
            </Badge>
            {status.detail ? <span className="muted">{status.detail}</span> : null}
          </>
        )}
        <Badge tone={priorityTone(task.priority)}>{task.priority} priority</Badge>
        <span className="queue-task-id mono">{task.id}</span>
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
      {actions.building === task.id ? null : <LatestVerification projectId={projectId} taskId={task.id} />}
      {task.reject && !done ? (
        <p className="queue-task-feedback">
          <span className="queue-warn">Rejected before:</span> {task.reject}
        </p>
      ) : null}
    </li>
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
  onClick(): void
}) {
  return (
    <Tooltip content={blocked ? `${label}: ${blocked}` : label}>
      <Button
        variant="ghost"
        size="sm"
        aria-label={label}
        icon={icon}
        aria-disabled={blocked ? true : undefined}
        onClick={(event) => (blocked ? event.preventDefault() : onClick())}
      />
    </Tooltip>
  )
}
