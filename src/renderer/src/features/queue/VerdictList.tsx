import type { BuildProgress, QueueCriterionVerdict, StoredVerdict } from '../../../../shared/queueBuild'
import type { VerifyOutcome } from '../../../../shared/verdicts'
import { Badge, type Tone } from '../../ui'
import type { ReactNode } from 'react'

type Verdict = Pick<QueueCriterionVerdict, 'ref' | 'kind' | 'answer' | 'reason'> & { text: string }

export const answerTone = (answer: Verdict['answer']): Tone =>
  answer === 'YES' ? 'ok' : answer === 'NO' ? 'bad' : 'warn'

export const outcomeTone = (outcome: VerifyOutcome): Tone =>
  outcome === 'PASS' ? 'ok' : outcome === 'FAIL' ? 'bad' : 'warn'

/** A task's state in a build, as the panel and the chat's build strip colour it. */
export const buildTaskTone: Record<BuildProgress['tasks'][number]['state'], Tone> = {
  building: 'accent',
  verifying: 'info',
  'awaiting approval': 'warn',
  accepted: 'ok',
  rejected: 'bad',
  paused: 'warn',
  escalated: 'bad',
  'rolled back': 'bad',
  stopped: 'neutral',
  skipped: 'warn',
}

/** A stored verdict in the list's shape (the table calls the criterion's text `criterion`). */
export const fromStored = (v: StoredVerdict): Verdict => ({ ...v, text: v.criterion })

type Criterion = Pick<Verdict, 'ref' | 'kind' | 'text'>

/** A verdict's first line: DET/LLM, the criterion's ref and text, then `children` (its answer, or "checking…"). */
function VerdictHead({ criterion: c, children }: { criterion: Criterion; children: ReactNode }) {
  return (
    <div className="queue-verdict-head">
      <Badge tone={c.kind === 'DET' ? 'info' : 'accent'} className="queue-chip">
        {c.kind}
      </Badge>
      <span className="queue-criterion-ref mono muted">{c.ref}</span>
      <span className="queue-verdict-text">{c.text}</span>
      {children}
    </div>
  )
}

/**
 * One verification's verdicts, one per criterion or deterministic check: DET/LLM, the ref, the answer as a chip
 * and the reason. `pending` lists criteria whose verdict has not arrived yet.
 */
export function VerdictList({
  verdicts,
  pending = [],
  label = 'Verdicts',
}: {
  verdicts: readonly Verdict[]
  pending?: readonly Criterion[]
  label?: string
}) {
  return (
    <ul className="queue-verdicts" aria-label={label}>
      {verdicts.map((v, i) => (
        <li key={`${v.ref}-${i}`} className="queue-verdict" aria-label={`${v.ref} ${v.answer}`}>
          <VerdictHead criterion={v}>
            <Badge tone={answerTone(v.answer)} className="queue-answer">
              {v.answer}
            </Badge>
          </VerdictHead>
          <p className="queue-verdict-reason">{v.reason}</p>
        </li>
      ))}
      {pending.map((c) => (
        <li
          key={`p-${c.ref}`}
          className="queue-verdict queue-verdict-pending"
          aria-label={`${c.ref} waiting`}
        >
          <VerdictHead criterion={c}>
            <span className="muted queue-answer">checking…</span>
          </VerdictHead>
        </li>
      ))}
    </ul>
  )
}
