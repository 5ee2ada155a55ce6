import type { BuildProgress, QueueCriterionVerdict, StoredVerdict } from '../../../../shared/queueBuild'
import type { VerifyOutcome } from '../../../../shared/verdicts'
import { answerWords, checkWords, kindWords, outcomeWords } from '../../../../shared/checkWords'
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

/** An outcome's meaning on hover ("Passed: every criterion met"). */
export const outcomeHint = (outcome: VerifyOutcome): string =>
  `${outcomeWords[outcome]}: ${
    outcome === 'PASS'
      ? 'every criterion and check was met.'
      : outcome === 'FAIL'
        ? 'at least one criterion or check was not met.'
        : 'no criterion failed, but at least one could not be decided: you decide.'
  }`

/** Failing verdicts first (NO, then NEEDS_HUMAN, then YES), each group in its own order. */
const rank: Record<Verdict['answer'], number> = { NO: 0, NEEDS_HUMAN: 1, YES: 2 }
export const failingFirst = <V extends Pick<Verdict, 'answer'>>(verdicts: readonly V[]): V[] =>
  verdicts
    .map((v, i) => ({ v, i }))
    .sort((a, b) => rank[a.v.answer] - rank[b.v.answer] || a.i - b.i)
    .map(({ v }) => v)

/**
 * A verdict's first line: how it is checked (command or model), the criterion's ref (a deterministic check by its
 * plain name) and text, then `children` (its answer, or "checking…").
 */
function VerdictHead({ criterion: c, children }: { criterion: Criterion; children: ReactNode }) {
  const check = /^AC\d+$/i.test(c.ref) ? null : checkWords(c.ref)
  return (
    <div className="queue-verdict-head">
      <Badge
        tone={c.kind === 'DET' ? 'info' : 'accent'}
        className="queue-chip"
        title={kindWords[c.kind].hint}
      >
        {c.kind}
      </Badge>
      {check ? (
        // A deterministic check by its plain name; what it checked exactly, and its own name, on hover.
        <span className="queue-verdict-text has-hint" title={`${c.text}. ${check.hint} (${c.ref})`}>
          {check.label}
        </span>
      ) : (
        <>
          <span className="queue-criterion-ref mono muted">{c.ref}</span>
          <span className="queue-verdict-text">{c.text}</span>
        </>
      )}
      {children}
    </div>
  )
}

/**
 * One verification's verdicts, one per criterion or deterministic check, the failing ones first: DET/LLM, the ref,
 * the answer as a chip and the reason. `pending` lists criteria whose verdict has not arrived yet.
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
      {failingFirst(verdicts).map((v, i) => (
        <li key={`${v.ref}-${i}`} className="queue-verdict" aria-label={`${v.ref} ${v.answer}`}>
          <VerdictHead criterion={v}>
            <Badge tone={answerTone(v.answer)} className="queue-answer" title={answerWords[v.answer]}>
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
