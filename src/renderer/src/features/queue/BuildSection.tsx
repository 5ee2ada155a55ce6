import type { BuildBudgetStatus } from '../../../../shared/api/queue'
import type { BuildProgress } from '../../../../shared/queueBuild'
import { ActionButton, Badge, Banner } from '../../ui'
import { forTheApp } from './appText'
import { BudgetLine } from './BudgetLine'
import { useVerifications } from './queries'
import { UserEditsQuestion } from './UserEditsQuestion'
import { buildTaskTone, fromStored, outcomeHint, outcomeTone, VerdictList } from './VerdictList'
import { buildModeWords } from '../../../../shared/checkWords'
import { formatSpend, formatWhen } from '../../../../shared/format'
import type { Verification } from '../../../../shared/queueBuild'
import { timeAgo } from '../projects'
import { AttemptChanges } from './AttemptChanges'
import { RejectReason } from './RejectReason'
import { LanesView } from './LanesView'

const resultTone = (status: NonNullable<BuildProgress['result']>['status']): 'info' | 'warn' =>
  status === 'complete' || status === 'stopped' ? 'info' : 'warn'

/**
 * The panel's build (DESIGN.md §16): while it runs, the task, its attempt and step, and the verification's
 * verdicts as they arrive; afterwards how it ended and each task it touched with its latest stored verification.
 */
export function BuildSection({
  projectId,
  progress,
  onApprove,
  onReject,
  answering,
  names,
}: {
  projectId: number
  progress: BuildProgress & { budget?: BuildBudgetStatus }
  /** Returns the answer's promise: Accept and Decide later stay busy until it settles. */
  onApprove(approve: boolean): Promise<unknown>
  /** Rejects the task the build asks about, with the reason its next attempt reads (one step). */
  onReject(taskId: string, reason: string): Promise<unknown>
  answering: boolean
  /** Task names by id, for the core's messages (which name tasks by id, for the CLI). */
  names: ReadonlyMap<string, string>
}) {
  const say = (text: string) => forTheApp(text, names)
  const { running, current, verification, result, approval } = progress
  if (!running && !result) return null
  const live = verification && (!running || verification.taskId === current?.taskId) ? verification : null
  const arrived = new Set(live?.verdicts.map((v) => v.ref))
  // A parallel build shows its lanes side by side (LanesView) instead of one current task.
  const lanes = progress.lanes.length > 0
  return (
    <section className="queue-section queue-build" aria-label="Build progress">
      <h3 className="queue-section-title">
        {running ? 'Build running' : 'Last build'}
        {progress.mode ? (
          <span className="muted queue-build-mode has-hint" title={buildModeWords[progress.mode].hint}>
            {' '}
            · {buildModeWords[progress.mode].label}
          </span>
        ) : null}
      </h3>
      {running && !lanes ? (
        current ? (
          <div className="queue-build-current">
            <div className="queue-build-task">
              <span className="queue-task-name">{current.name}</span>
              <span className="queue-task-id mono">{current.taskId}</span>
            </div>
            <div className="queue-build-meta">
              <Badge tone="accent">
                Attempt {current.attempt} of {progress.maxAttempts}
              </Badge>
              <span className="queue-build-step" aria-live="polite">
                {current.step}
              </span>
            </div>
          </div>
        ) : (
          <p className="muted queue-note">Starting: reading the queue and taking the baseline…</p>
        )
      ) : result ? (
        <Banner tone={resultTone(result.status)}>
          <strong>
            {result.status === 'budget' ? 'Build stopped at its budget.' : `Build ${result.status}.`}
          </strong>{' '}
          {say(result.message)} ({formatSpend(result.costUsd)}, {Math.round(result.durationMs / 1000)} s)
        </Banner>
      ) : null}
      <LanesView lanes={progress.lanes} maxAttempts={progress.maxAttempts} names={names} />
      {progress.budget ? (
        <BudgetLine
          budget={progress.budget}
          startedAt={progress.startedAt}
          running={running}
          durationMs={running ? null : (result?.durationMs ?? null)}
        />
      ) : null}
      {approval ? (
        <div className="queue-approval" role="group" aria-label="Approval">
          <p>{say(approval.question)}</p>
          {/* What the attempt changed, beside its verdicts (issue 37): the diff before the decision. */}
          {approval.taskId ? <ApprovalChanges projectId={projectId} taskId={approval.taskId} /> : null}
          <div className="queue-approval-actions">
            <ActionButton
              size="sm"
              variant="primary"
              disabledReason={answering ? 'Answering…' : null}
              onAction={() => onApprove(true)}
            >
              Accept
            </ActionButton>
            <ActionButton
              size="sm"
              variant="ghost"
              title="Pause the build with the task done: accept or reject it later, from its row in the queue"
              disabledReason={answering ? 'Answering…' : null}
              onAction={() => onApprove(false)}
            >
              Decide later
            </ActionButton>
          </div>
          {approval.taskId ? (
            <RejectReason
              name={names.get(approval.taskId) ?? approval.taskId}
              blocked={answering ? 'Answering…' : null}
              onReject={(reason) => onReject(approval.taskId!, reason)}
            />
          ) : null}
          <p className="muted queue-note">
            Reject sends the task back with your reason for its next attempt; Build again goes on with the
            queue.
          </p>
        </div>
      ) : null}
      {live && running && !lanes ? (
        <div className="queue-build-verify">
          <p className="queue-build-verify-title">
            Verification of {names.get(live.taskId) ?? live.taskId}{' '}
            {live.outcome ? (
              <Badge tone={outcomeTone(live.outcome)} title={outcomeHint(live.outcome)}>
                {live.outcome}
              </Badge>
            ) : null}
            <Nonce nonce={live.nonce} />
          </p>
          <VerdictList
            label="Live verdicts"
            verdicts={live.verdicts}
            pending={live.criteria.filter((c) => !arrived.has(c.ref))}
          />
        </div>
      ) : null}
      {progress.userEdits ? <UserEditsQuestion projectId={projectId} question={progress.userEdits} /> : null}
      {progress.tasks.length > 0 ? (
        <ul className="queue-build-tasks" aria-label="Built tasks">
          {progress.tasks.map((t) => (
            <li key={t.taskId} className="queue-build-done" aria-label={t.name}>
              <div className="queue-build-task">
                <span className="queue-task-name">{t.name}</span>
                <Badge tone={buildTaskTone[t.state]}>{t.state}</Badge>
                <span className="muted">
                  {t.attempts} attempt{t.attempts === 1 ? '' : 's'}
                </span>
                <span className="queue-task-id mono">{t.taskId}</span>
              </div>
              {t.state !== 'building' &&
              t.state !== 'verifying' &&
              !(live && running && live.taskId === t.taskId) ? (
                <LatestVerification projectId={projectId} taskId={t.taskId} />
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}
      {progress.log.length > 0 ? (
        <details className="queue-build-log">
          <summary>What happened ({progress.log.length})</summary>
          <ol aria-label="Build log">
            {progress.log.map((line, i) => (
              <li key={i}>{say(line)}</li>
            ))}
          </ol>
        </details>
      ) : null}
    </section>
  )
}

/** The verification's nonce, explained on hover (the verdicts a model gives must carry it to count). */
function Nonce({ nonce }: { nonce: string }) {
  return (
    <span
      className="mono muted"
      title="A one-time code for this verification: a model's verdict counts only when it carries this code, so text inside the project cannot pose as one"
    >
      {' '}
      nonce {nonce}
    </span>
  )
}

/** The attempt the build asks about: what its latest stored verification's task changed. */
function ApprovalChanges({ projectId, taskId }: { projectId: number; taskId: string }) {
  const task = useVerifications(projectId, taskId).data?.verifications[0]?.task ?? null
  return task !== null ? <AttemptChanges projectId={projectId} task={task} /> : null
}

/**
 * A task's verifications, one per attempt, newest first: the latest with its verdicts (failing first) and what it
 * changed; earlier attempts on demand. Nothing when it was never verified.
 */
export function LatestVerification({ projectId, taskId }: { projectId: number; taskId: string }) {
  const query = useVerifications(projectId, taskId)
  const [latest, ...earlier] = query.data?.verifications ?? []
  if (!latest) return null
  return (
    <div className="queue-verification" aria-label={`Verification of ${taskId}`} role="group">
      <Attempt projectId={projectId} verification={latest} />
      {earlier.length > 0 ? (
        <details className="queue-earlier-attempts">
          <summary className="muted">
            {earlier.length} earlier attempt{earlier.length === 1 ? '' : 's'}
          </summary>
          {earlier.map((v) => (
            <Attempt key={v.nonce} projectId={projectId} verification={v} />
          ))}
        </details>
      ) : null}
    </div>
  )
}

/** One attempt's verification: its outcome, its verdicts and what it changed. */
function Attempt({ projectId, verification: v }: { projectId: number; verification: Verification }) {
  return (
    <div className="queue-attempt">
      <p className="queue-build-verify-title">
        Verification{' '}
        <Badge tone={outcomeTone(v.outcome)} title={outcomeHint(v.outcome)}>
          {v.outcome}
        </Badge>
        <time className="muted" dateTime={new Date(v.at).toISOString()} title={formatWhen(v.at)}>
          {' '}
          {timeAgo(v.at)}
        </time>
        <Nonce nonce={v.nonce} />
      </p>
      <VerdictList verdicts={v.verdicts.map(fromStored)} />
      {v.task != null ? <AttemptChanges projectId={projectId} task={v.task} /> : null}
    </div>
  )
}
