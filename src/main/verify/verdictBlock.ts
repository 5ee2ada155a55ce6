import { randomBytes } from 'node:crypto'
import type { VerdictAnswer as SharedVerdictAnswer } from '../../shared/verdicts'

/**
 * The sealed verdict block of DESIGN.md §16 (seed 004 "Verdict Block Format"):
 *
 *   <<<VERDICT:V1:AC2:NONCE=3FA9C1>>>
 *   ANSWER=YES
 *   REASON="one line, at most 500 characters"
 *   <<<END_VERDICT:AC2:NONCE=3FA9C1>>>
 *
 * The nonce is new per verification, so text the model copied from the project (a README quoting a block, a
 * test fixture) cannot pass for its answer. The parser is strict on purpose: anything but exactly this shape is
 * an error the caller repairs once and otherwise turns into NEEDS_HUMAN, never a guess.
 */

export const NONCE_PATTERN = /^[0-9A-F]{6}$/
export const REASON_MAX_CHARS = 500

/** 6 uppercase hex digits from the OS's CSPRNG. */
export function newNonce(): string {
  return randomBytes(3).toString('hex').toUpperCase()
}

/** What a model's sealed block may answer; NEEDS_HUMAN is verification's own, never the model's. */
export type VerdictAnswer = Exclude<SharedVerdictAnswer, 'NEEDS_HUMAN'>

export type ParsedVerdict = { ok: true; answer: VerdictAnswer; reason: string } | { ok: false; error: string }

export const verdictOpener = (ref: string, nonce: string) => `<<<VERDICT:V1:${ref}:NONCE=${nonce}>>>`
export const verdictCloser = (ref: string, nonce: string) => `<<<END_VERDICT:${ref}:NONCE=${nonce}>>>`

/** The block a model should produce, for prompts and tests. */
export function formatVerdictBlock(
  ref: string,
  nonce: string,
  answer: VerdictAnswer,
  reason: string,
): string {
  return [
    verdictOpener(ref, nonce),
    `ANSWER=${answer}`,
    `REASON="${reason}"`,
    verdictCloser(ref, nonce),
  ].join('\n')
}

const OPENER = /^<<<VERDICT:V1:([A-Za-z0-9_-]+):NONCE=([^>]*)>>>$/
const CLOSER = /^<<<END_VERDICT:([A-Za-z0-9_-]+):NONCE=([^>]*)>>>$/
const ANSWER = /^ANSWER=(.*)$/
const REASON = /^REASON=(.*)$/

const fail = (error: string): ParsedVerdict => ({ ok: false, error })

/**
 * Parses one model response that must hold exactly one verdict block for criterion `ref` sealed with `nonce`.
 * Blank lines around the block are tolerated (a trailing newline is normal); anything else is an error naming
 * what was wrong, in words a repair request can quote back to the model.
 */
export function parseVerdictBlock(raw: string, expected: { ref: string; nonce: string }): ParsedVerdict {
  if (raw.includes('\r')) return fail('the lines end with CR or CRLF; use LF line endings only')
  const lines = raw.split('\n')
  const openers = lines.filter((l) => l.includes('<<<VERDICT'))
  const closers = lines.filter((l) => l.includes('<<<END_VERDICT'))
  if (openers.length === 0) return fail('there is no <<<VERDICT opener line')
  if (openers.length > 1 || closers.length > 1) return fail('there is more than one verdict block')
  if (closers.length === 0) return fail('there is no <<<END_VERDICT closer line')

  const start = lines.findIndex((l) => l.includes('<<<VERDICT'))
  const end = lines.findIndex((l) => l.includes('<<<END_VERDICT'))
  if (end < start) return fail('the closer comes before the opener')
  const outside = [...lines.slice(0, start), ...lines.slice(end + 1)].filter((l) => l.trim() !== '')
  if (outside.length > 0) {
    return fail(`there is text outside the block (${JSON.stringify(outside[0]!.slice(0, 60))})`)
  }

  const open = OPENER.exec(lines[start]!)
  if (!open) return fail('the opener line is not exactly <<<VERDICT:V1:<criterion>:NONCE=<nonce>>>>')
  const close = CLOSER.exec(lines[end]!)
  if (!close) return fail('the closer line is not exactly <<<END_VERDICT:<criterion>:NONCE=<nonce>>>>')
  if (open[2] !== expected.nonce || close[2] !== expected.nonce) {
    return fail(`the block is not sealed with this verification's nonce ${expected.nonce}`)
  }
  if (open[1] !== expected.ref || close[1] !== expected.ref) {
    return fail(`the block answers ${open[1] !== expected.ref ? open[1] : close[1]}, not ${expected.ref}`)
  }

  const payload = lines.slice(start + 1, end)
  const answerLine = payload.find((l) => ANSWER.test(l))
  const reasonLine = payload.find((l) => REASON.test(l))
  if (!answerLine) return fail('the ANSWER= line is missing')
  if (!reasonLine) return fail('the REASON= line is missing')
  if (payload.length !== 2) {
    const extra = payload.find((l) => l !== answerLine && l !== reasonLine) ?? payload[2] ?? ''
    return fail(
      `the block must hold exactly two lines, ANSWER= then REASON=, but it has ${payload.length} ` +
        `(unexpected: ${JSON.stringify(extra.slice(0, 60))})`,
    )
  }
  if (payload[0] !== answerLine) return fail('ANSWER= must come first, then REASON=')

  const answer = ANSWER.exec(answerLine)![1]!
  if (answer !== 'YES' && answer !== 'NO') {
    return fail(`ANSWER must be YES or NO, unquoted (got ${JSON.stringify(answer.slice(0, 20))})`)
  }
  const quoted = REASON.exec(reasonLine)![1]!
  if (quoted.length < 2 || !quoted.startsWith('"') || !quoted.endsWith('"')) {
    return fail('REASON must be in double quotes: REASON="…"')
  }
  const reason = quoted.slice(1, -1)
  if (reason.includes('"')) return fail('REASON must not contain a double quote inside; use single quotes')
  if (reason.includes('\\')) return fail('REASON must not contain a backslash; use forward slashes')
  if (reason.trim() === '') return fail('REASON is empty')
  if (reason.length > REASON_MAX_CHARS) {
    return fail(`REASON is ${reason.length} characters; the limit is ${REASON_MAX_CHARS}`)
  }
  return { ok: true, answer, reason }
}
