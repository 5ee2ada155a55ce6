import { AlertTriangle, Hammer, ListTodo, Square, X } from 'lucide-react'
import type { BuildProgress } from '../../../../shared/queueBuild'
import { workingLanes } from '../../../../shared/buildLanes'
import { FieldError } from '../../app/FieldError'
import { navigate } from '../../app/useRoute'
import { Badge, Button } from '../../ui'
import {
  buildPosition,
  buildTaskTone,
  forTheApp,
  LanesView,
  outcomeHint,
  outcomeTone,
  taskNames,
  type ProjectBuild,
  useBuildControl,
  useVerifications,
} from '../queue'
import { useProjectUi } from '../../app/projectUi'
import { plural } from '../../../../shared/format'
import './buildStrip.css'

type BuiltTask = BuildProgress['tasks'][number]

const endWords: Record<NonNullable<BuildProgress['result']>['status'], string> = {
  complete: 'Build complete',
  stopped: 'Build stopped',
  escalated: 'Build escalated',
  paused: 'Build paused',
  budget: 'Build paused at its budget',
  failed: 'Build failed',
}

/** Opens the Queue tab beside the chat, unfolding the side panel if it was folded away. */
export function openQueue(projectId: number) {
  useProjectUi.getState().setSidePanelCollapsed(false)
  navigate({ page: 'project', projectId, panel: 'queue' }, { replace: true })
}

/**
 * A build started from the Queue panel, pinned above the composer (not a conversation row: a build is not a
 * message, and the virtual list keeps only what SQLite stores). While it runs: the task, its attempt and step, each
 * task's last verification, Stop; after an ending that needs the user (escalated, paused): why, until dismissed.
 */
export function BuildStrip({ projectId, build }: { projectId: number; build: ProjectBuild }) {
  const control = useBuildControl(projectId)
  const p = build.progress
  if (!p || !build.headline) return null
  const at = buildPosition(p)
  // A parallel build: one live card per task in a lane, instead of the one current task.
  const lanes = p.running ? workingLanes(p.lanes) : []
  // A task in a lane has its card above: the list says the others (merged, accepted, escalated …).
  const inLanes = new Set(lanes.map((l) => l.taskId))
  const shownTasks = p.tasks.filter((t) => !inLanes.has(t.taskId))
  const waitingIds = p.order.filter((id) => !p.tasks.some((t) => t.taskId === id))
  // The core's words are the CLI's too: the app's say what to click and name the task (#26).
  const ended =
    !p.running && p.result
      ? { ...p.result, message: forTheApp(p.result.message, taskNames(undefined, p)) }
      : null
  return (
    <section className={`build-strip${ended ? ' build-strip-ended' : ''}`} aria-label="Queue build">
      <div className="build-strip-head">
        {ended ? (
          <AlertTriangle size={15} aria-hidden className="build-strip-icon" />
        ) : (
          <Hammer size={15} aria-hidden className="build-strip-icon build-strip-working" />
        )}
        <p
          className="build-strip-title"
          title={ended ? `${endWords[ended.status]}: ${ended.message}` : undefined}
        >
          {ended ? (
            <>
              <strong>{endWords[ended.status]}</strong> <span className="muted">{ended.message}</span>
            </>
          ) : lanes.length > 0 ? (
            <>
              <strong>Build running</strong>
              <span className="muted"> · {plural(lanes.length, 'lane')} at once</span>
            </>
          ) : p.current && at ? (
            <>
              <strong>Build running</strong>
              <span className="muted">
                {' '}
                · task {at.index} of {at.total}:
              </span>{' '}
              <span className="build-strip-task">{p.current.name}</span>
            </>
          ) : (
            <>
              <strong>Build running</strong>
              <span className="muted"> · reading the queue and taking the baseline…</span>
            </>
          )}
        </p>
        <div className="build-strip-actions">
          <Button
            size="sm"
            variant="ghost"
            icon={<ListTodo size={14} aria-hidden />}
            onClick={() => openQueue(projectId)}
          >
            Open Queue
          </Button>
          {ended ? (
            <Button size="sm" variant="ghost" icon={<X size={14} aria-hidden />} onClick={build.dismiss}>
              Dismiss
            </Button>
          ) : (
            <Button
              size="sm"
              icon={<Square size={13} aria-hidden />}
              disabledReason={control.stop.isPending ? 'Stopping the build…' : null}
              onClick={() => control.stop.mutate()}
            >
              Stop build
            </Button>
          )}
        </div>
      </div>
      {p.running && p.approval ? (
        <p className="build-strip-step build-strip-approval">
          Waiting for your approval: {forTheApp(p.approval.question, taskNames(undefined, p))} Answer it in
          the Queue.
        </p>
      ) : lanes.length > 0 ? (
        <LanesView
          lanes={lanes}
          maxAttempts={p.maxAttempts}
          names={taskNames(undefined, p)}
          label="Running lanes"
        />
      ) : p.running && p.current ? (
        <p className="build-strip-step">
          <Badge tone="accent">
            Attempt {p.current.attempt} of {p.maxAttempts}
          </Badge>{' '}
          <span className="muted" aria-live="polite">
            {p.current.step}
          </span>
        </p>
      ) : null}
      {shownTasks.length > 0 ? (
        <ul className="build-strip-tasks" aria-label="Build tasks">
          {shownTasks.map((t) => (
            <BuiltTaskItem key={t.taskId} projectId={projectId} task={t} progress={p} />
          ))}
          {waitingIds.length > 0 ? (
            <li className="muted build-strip-more">{waitingIds.length} more waiting</li>
          ) : null}
        </ul>
      ) : null}
      <FieldError error={control.stop.error} />
    </section>
  )
}

/** One task the build touched: its state, and its last verification's outcome (live, else the stored one). */
function BuiltTaskItem({
  projectId,
  task,
  progress,
}: {
  projectId: number
  task: BuiltTask
  progress: BuildProgress
}) {
  const stored = useVerifications(projectId, task.taskId).data?.verifications[0]?.outcome ?? null
  const live = progress.verification?.taskId === task.taskId ? progress.verification : null
  // While its verification runs, the verdicts so far; afterwards what was stored (the live one, until it is).
  const outcome = live && !live.outcome ? null : (stored ?? live?.outcome ?? null)
  const name = `${task.name}: ${task.state}${outcome ? `, last verification ${outcome}` : ''}`
  return (
    <li className="build-strip-item" aria-label={name}>
      <span className="build-strip-item-name">{task.name}</span>
      <Badge tone={buildTaskTone[task.state]}>{task.state}</Badge>
      {live && !live.outcome ? (
        <span className="muted">
          {/* The verdicts include deterministic checks (tests, lint …) beside the criteria: count criteria only. */}
          {live.criteria.filter((c) => live.verdicts.some((v) => v.ref === c.ref)).length} of{' '}
          {plural(live.criteria.length, 'criterion', 'criteria')} checked
        </span>
      ) : outcome ? (
        <Badge tone={outcomeTone(outcome)} title={outcomeHint(outcome)}>
          {outcome}
        </Badge>
      ) : null}
    </li>
  )
}
