import type { BuildBudgetStatus } from '../../../../shared/api/queue'
import type { BuildProgress } from '../../../../shared/queueBuild'
import { Badge, Banner, Button } from '../../ui'
import { BudgetLine } from './BudgetLine'
import { useVerifications } from './queries'
import { buildTaskTone, fromStored, outcomeTone, VerdictList } from './VerdictList'

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
  answering,
}: {
  projectId: number
  progress: BuildProgress & { budget?: BuildBudgetStatus }
  onApprove(approve: boolean): void
  answering: boolean
}) {
  const { running, current, verification, result, approval } = progress
  if (!running && !result) return null
  const live = verification && (!running || verification.taskId === current?.taskId) ? verification : null
  const arrived = new Set(live?.verdicts.map((v) => v.ref))
  return (
    <section className="queue-section queue-build" aria-label="Build progress">
      <h3 className="queue-section-title">
        {running ? 'Build running' : 'Last build'}
        {progress.mode ? <span className="muted queue-build-mode"> · {progress.mode}</span> : null}
      </h3>
      {running ? (
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
          {result.message} (${result.costUsd.toFixed(4)}, {Math.round(result.durationMs / 1000)} s)
        </Banner>
      ) : null}
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
          <p>{approval.question}</p>
          <div className="queue-approval-actions">
            <Button
              size="sm"
              variant="primary"
              disabledReason={answering ? 'Answering…' : null}
              onClick={() => onApprove(true)}
            >
              Accept
            </Button>
            <Button
              size="sm"
              disabledReason={answering ? 'Answering…' : null}
              onClick={() => onApprove(false)}
            >
              Reject
            </Button>
          </div>
          <p className="muted queue-note">
            Reject pauses the build with the task done: then reject it with a reason, or re-plan it.
          </p>
        </div>
      ) : null}
      {live && running ? (
        <div className="queue-build-verify">
          <p className="queue-build-verify-title">
            Verification of {live.taskId}{' '}
            {live.outcome ? <Badge tone={outcomeTone(live.outcome)}>{live.outcome}</Badge> : null}
            <span
              className="mono muted"
              title="A one-time code for this verification: the verifier's answer must be sealed with it, so an earlier answer (or text the checked model wrote) cannot pass for this one."
            >
              {' '}
              nonce {live.nonce}
            </span>
          </p>
          <VerdictList
            label="Live verdicts"
            verdicts={live.verdicts}
            pending={live.criteria.filter((c) => !arrived.has(c.ref))}
          />
        </div>
      ) : null}
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
              <li key={i}>{line}</li>
            ))}
          </ol>
        </details>
      ) : null}
    </section>
  )
}

/** A task's latest stored verification with a verdict per criterion; nothing when it was never verified. */
export function LatestVerification({ projectId, taskId }: { projectId: number; taskId: string }) {
  const query = useVerifications(projectId, taskId)
  const latest = query.data?.verifications[0]
  if (!latest) return null
  const count = query.data?.verifications.length ?? 0
  return (
    <div className="queue-verification" aria-label={`Verification of ${taskId}`} role="group">
      <p className="queue-build-verify-title">
        Verification <Badge tone={outcomeTone(latest.outcome)}>{latest.outcome}</Badge>
        <span className="mono muted"> nonce {latest.nonce}</span>
        {count > 1 ? <span className="muted"> · {count - 1} earlier</span> : null}
      </p>
      <VerdictList verdicts={latest.verdicts.map(fromStored)} />
    </div>
  )
}
