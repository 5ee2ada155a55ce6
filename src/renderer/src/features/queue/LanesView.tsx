import { workingLaneStates, type BuildLane, type LaneState } from '../../../../shared/buildLanes'
import { formatSpend } from '../../../../shared/format'
import { Badge, type Tone } from '../../ui'
import { forTheApp } from './appText'
import './lanes.css'

/** A lane's merge state in words, its tone, and what it means (the badge's hint). */
export const laneStateWords: Record<LaneState, { label: string; tone: Tone; hint: string }> = {
  building: { label: 'Building', tone: 'accent', hint: 'Its loop works in the lane, a copy of the project.' },
  verifying: { label: 'Verifying', tone: 'info', hint: 'Its acceptance criteria are checked in the lane.' },
  waiting: {
    label: 'Waiting to merge',
    tone: 'neutral',
    hint: 'Verified in its lane: it merges into the project when its turn comes, one task at a time.',
  },
  'verifying-merged': {
    label: 'Verifying on merged tree',
    tone: 'info',
    hint: 'Merged cleanly with the tasks merged before it: verified again there, with a new nonce, before it counts.',
  },
  merged: { label: 'Merged', tone: 'ok', hint: 'Applied to your project between its own snapshots.' },
  rerun: {
    label: 'Rerun',
    tone: 'warn',
    hint: 'The merged tree failed verification: the task runs again on the new base, with the reasons.',
  },
  conflict: {
    label: 'Conflict',
    tone: 'warn',
    hint: 'Its changes conflicted with work merged before it: the task runs again on the new base.',
  },
  rejected: {
    label: 'Rejected',
    tone: 'bad',
    hint: 'Its verification in the lane failed: the task is tried again with the reasons.',
  },
  escalated: { label: 'Escalated', tone: 'bad', hint: 'It waits for you: see the queue.' },
  failed: { label: 'Failed', tone: 'bad', hint: 'The attempt ended without a result.' },
  stopped: { label: 'Stopped', tone: 'neutral', hint: 'The build stopped while it was in this lane.' },
}

/**
 * A parallel build's lanes side by side (DESIGN.md §18): per lane its task, the task number it will have in the
 * timeline, its attempt, iteration and step, what it has spent, and where its merge stands. Each lane is an
 * `article` named "Lane N: <task name>", in a `list` "Lanes".
 */
export function LanesView({
  lanes,
  maxAttempts,
  names,
  label = 'Lanes',
}: {
  lanes: readonly BuildLane[]
  maxAttempts: number
  /** Task names by id, for the core's reasons (which name tasks by id). */
  names: ReadonlyMap<string, string>
  label?: string
}) {
  if (lanes.length === 0) return null
  return (
    <ul className="lanes" aria-label={label}>
      {lanes.map((l) => (
        <li key={l.lane} className="lanes-item">
          <LaneCard lane={l} maxAttempts={maxAttempts} names={names} />
        </li>
      ))}
    </ul>
  )
}

function LaneCard({
  lane: l,
  maxAttempts,
  names,
}: {
  lane: BuildLane
  maxAttempts: number
  names: ReadonlyMap<string, string>
}) {
  const state = laneStateWords[l.state]
  const reason = l.reason ? forTheApp(l.reason, names) : null
  return (
    <article className={`lane lane-${l.state}`} aria-label={`Lane ${l.lane}: ${l.name}`}>
      <header className="lane-head">
        <span className="lane-number" title={`Lane ${l.lane}`} aria-hidden>
          {l.lane}
        </span>
        <span className="lane-name" title={`${l.name} (${l.taskId})`}>
          {l.name}
        </span>
        {l.spentUsd !== null ? (
          <span className="lane-spend mono" title="What this attempt has spent so far">
            {formatSpend(l.spentUsd)}
          </span>
        ) : null}
      </header>
      <div className="lane-state">
        <Badge tone={state.tone} title={state.hint}>
          {state.label}
        </Badge>
        <LaneWhere lane={l} />
      </div>
      <p className="lane-facts">
        <span title="Its number in the timeline once merged (task-N-pre, task-N-post)">Task {l.task}</span>
        {' · '}
        <span>
          Attempt {l.attempt} of {maxAttempts}
        </span>
        {l.iteration !== null ? (
          <>
            {' · '}
            <span>
              Iteration {l.iteration}
              {l.maxIterations !== null ? ` of ${l.maxIterations}` : ''}
            </span>
          </>
        ) : null}
      </p>
      <p className="lane-step" title={l.step}>
        {l.step}
      </p>
      {reason ? (
        <p className="lane-reason" title={reason}>
          {reason}
        </p>
      ) : null}
      {l.retryOf && isWorking(l) ? (
        <p className="lane-reason lane-retry-reason" title={retryWords(l.retryOf)}>
          {retryWords(l.retryOf)}
        </p>
      ) : null}
    </article>
  )
}

const isWorking = (l: BuildLane) => workingLaneStates.includes(l.state)

const retryWords = (r: NonNullable<BuildLane['retryOf']>) => `Retried after ${r.where} failed: ${r.fault}`

/** Where the lane's attempt runs (`local`, `docker: host`, `k8s: namespace/job`), and a retry as such. */
function LaneWhere({ lane: l }: { lane: BuildLane }) {
  if (l.where === null) return null
  const hint = l.retryOf
    ? `This attempt runs again on ${l.where}: ${l.retryOf.where} failed (${l.retryOf.fault}).`
    : `This attempt runs on ${l.where}; its result is merged and verified on this machine.`
  return (
    <span className={`lane-where mono${l.retryOf ? ' lane-where-retry' : ''}`} title={hint}>
      {l.retryOf ? `retry on ${l.where}` : l.where}
    </span>
  )
}
