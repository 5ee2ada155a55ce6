import {
  documentsSchema,
  facilitationSchema,
  reviewSchema,
  type BrainstormDocuments,
  type Facilitation,
  type Finding,
} from '../../shared/brainstorm'
import type { z } from 'zod'
import { isAppError } from '../../shared/errors'
import { type ModelConfig, callJson, type JsonCallResult, type RetryPolicy, type TurnUsage } from '../llm'
import { validateDocuments } from './documents'

export interface CallOptions {
  model: ModelConfig
  signal: AbortSignal
  retry?: Partial<RetryPolicy>
  /** Tokens per call, for the caller's usage records. */
  onUsage?: (purpose: 'facilitate' | 'output' | 'review', usage: TurnUsage, durationMs: number) => void
}

/**
 * callJson, asked once more when the model answered but not with JSON of the right shape (small local models
 * slip into prose now and then). Transport errors are callJson's own retries' business.
 */
async function jsonTurn<T>(
  opts: CallOptions,
  call: { system: string; prompt: string; schema: z.ZodType<T>; timeoutMs: number; maxOutputTokens: number },
): Promise<JsonCallResult<T>> {
  const once = (prompt: string) =>
    callJson({
      model: opts.model,
      system: call.system,
      prompt,
      schema: call.schema,
      signal: opts.signal,
      retry: opts.retry,
      timeoutMs: call.timeoutMs,
      maxOutputTokens: call.maxOutputTokens,
    })
  try {
    return await once(call.prompt)
  } catch (err) {
    const answered = isAppError(err, 'provider') && (err.details as { usage?: unknown } | undefined)?.usage
    if (!answered) throw err
    return once(
      `${call.prompt}\n\n## Your previous answer was refused\n${(err as Error).message}\nAnswer with the JSON object only.`,
    )
  }
}

export async function facilitate(
  opts: CallOptions,
  prompt: { system: string; prompt: string },
): Promise<Facilitation> {
  const result = await jsonTurn(opts, {
    ...prompt,
    schema: facilitationSchema,
    timeoutMs: 90_000,
    maxOutputTokens: 2000,
  })
  opts.onUsage?.('facilitate', result.usage, result.durationMs)
  return result.value
}

export type DocumentsResult =
  | { ok: true; docs: BrainstormDocuments }
  | { ok: false; docs: BrainstormDocuments; problems: string[] }

function problemsNote(docs: BrainstormDocuments, problems: string[]): string {
  return [
    '## Your previous answer was refused. Fix every problem below and answer with both whole documents again.',
    ...problems.map((p) => `- ${p}`),
    `## Your previous VISION.md\n${docs.vision}`,
    `## Your previous ROADMAP.md\n${docs.roadmap}`,
  ].join('\n')
}

type Refused = { docs: BrainstormDocuments; problems: string[] }

/** What the harness makes of an answer: accepted, or refused with the note the second ask carries. */
type Checked<A, R> = { ok: true; value: A } | { ok: false; value: R; note: string }

/**
 * A call whose answer the harness checks: an answer the check refuses goes back once with its note. Gives the
 * first accepted answer, or the second refusal.
 */
async function checkedTurn<T, A, R>(
  opts: CallOptions,
  purpose: 'output' | 'review',
  call: { system: string; prompt: string; schema: z.ZodType<T>; timeoutMs: number; maxOutputTokens: number },
  check: (value: T) => Checked<A, R>,
): Promise<Checked<A, R>> {
  let extra = ''
  let last: Checked<A, R> | null = null
  for (let attempt = 0; attempt < 2; attempt++) {
    const result = await jsonTurn(opts, {
      ...call,
      prompt: extra ? `${call.prompt}\n\n${extra}` : call.prompt,
    })
    opts.onUsage?.(purpose, result.usage, result.durationMs)
    last = check(result.value)
    if (last.ok) return last
    extra = last.note
  }
  return last!
}

/**
 * The OUTPUT call, validated (schema, YAML, line limits) before anything is written. An invalid answer goes back
 * once with the exact problems; a second invalid answer is returned with its problems for the user to see.
 */
export async function draftDocuments(
  opts: CallOptions,
  prompt: { system: string; prompt: string },
): Promise<DocumentsResult> {
  const call = { ...prompt, schema: documentsSchema, timeoutMs: 180_000, maxOutputTokens: 8000 }
  const result = await checkedTurn(opts, 'output', call, (docs): Checked<BrainstormDocuments, Refused> => {
    const problems = validateDocuments(docs)
    if (!problems.length) return { ok: true, value: docs }
    return { ok: false, value: { docs, problems }, note: problemsNote(docs, problems) }
  })
  return result.ok ? { ok: true, docs: result.value } : { ok: false, ...result.value }
}

export const MIN_FINDINGS = 5
export const MAX_FINDINGS = 15
const severityRank = { HIGH: 0, MED: 1, LOW: 2 } as const

export type ReviewResult = { ok: true; findings: Finding[] } | { ok: false; problems: string[] }

/**
 * The forced review: fewer than five findings is refused and asked again once ("looks good" is not allowed).
 * More than fifteen keeps the fifteen most severe.
 */
export async function reviewDocuments(
  opts: CallOptions,
  prompt: { system: string; prompt: string },
): Promise<ReviewResult> {
  const call = { ...prompt, schema: reviewSchema, timeoutMs: 120_000, maxOutputTokens: 4000 }
  const result = await checkedTurn(opts, 'review', call, ({ findings }): Checked<Finding[], number> => {
    const count = findings.length
    if (count >= MIN_FINDINGS) {
      return {
        ok: true,
        value:
          count > MAX_FINDINGS
            ? [...findings]
                .sort((a, b) => severityRank[a.severity] - severityRank[b.severity])
                .slice(0, MAX_FINDINGS)
            : findings,
      }
    }
    return {
      ok: false,
      value: count,
      note: `## Your previous answer was refused: it had ${count} finding${count === 1 ? '' : 's'}. A review must list between ${MIN_FINDINGS} and ${MAX_FINDINGS} findings. Look again, harder.`,
    }
  })
  if (result.ok) return { ok: true, findings: result.value }
  const count = result.value
  return {
    ok: false,
    problems: [
      `The review gave ${count} finding${count === 1 ? '' : 's'} twice; at least ${MIN_FINDINGS} are required.`,
    ],
  }
}
