import type { Criterion } from '../../shared/queue'
import type { ChangedFile, Hunk } from './changes'
import type { CheckVerdict, DeterministicResult } from './checks'

/**
 * The evidence bundle of one LLM criterion (seed 004 verify_task stage 2): the criterion, the task, the changed
 * files, the check results and output, and the hunks most relevant to this criterion, within about 4K tokens.
 * Whatever is cut is said, and whether the cut hunks may be decisive, so the judge can answer "insufficient
 * evidence" instead of guessing.
 */

export interface EvidenceTask {
  id: string
  name: string
  notes?: string
}

export interface EvidenceInput {
  criterion: Criterion
  task: EvidenceTask
  files: readonly ChangedFile[]
  checks: readonly CheckVerdict[]
  outputs: DeterministicResult['outputs']
  /** Total size in characters (≈ 4 per token). Default 16,000 (about 4K tokens). */
  budgetChars?: number
}

export interface Evidence {
  text: string
  /** Some hunks (or parts of them) were left out. */
  truncated: boolean
  /** Hunks that match the criterion were among those left out: the judge must not answer YES on this bundle. */
  decisiveCut: boolean
}

export const EVIDENCE_BUDGET_CHARS = 16_000
const NOTES_CAP = 1500
const FILE_LIST_CAP = 60
const OUTPUTS_CAP = 2400

const STOPWORDS = new Set(
  'the and for with that this from into when then than are was were has have had not but all any each its can may must should will shall does did use uses used file files code task new add adds added make makes only also'.split(
    ' ',
  ),
)
const WIRING =
  /(^|\/)(index|main|app|cli|router|routes|registry|config|settings)\.[a-z]+$|(^|\/)package\.json$/i

/** Words and path-like tokens of the criterion that could appear in a diff. */
export function keywords(text: string): string[] {
  const tokens = text.toLowerCase().match(/[a-z0-9_./-]{3,}/g) ?? []
  const out = new Set<string>()
  for (const t of tokens) {
    const clean = t.replace(/^[./-]+|[./-]+$/g, '')
    if (clean.length >= 3 && !STOPWORDS.has(clean)) out.add(clean)
    // "src/auth.py" also matches a hunk mentioning "auth".
    for (const part of clean.split(/[./-]/)) if (part.length >= 4 && !STOPWORDS.has(part)) out.add(part)
  }
  return [...out]
}

interface ScoredHunk {
  file: ChangedFile
  hunk: Hunk
  order: number
  score: number
}

function score(words: readonly string[], file: ChangedFile, hunk: Hunk): number {
  const path = file.path.toLowerCase()
  const body = hunk.lines.join('\n').toLowerCase()
  let s = 0
  for (const w of words) {
    if (path.includes(w)) s += 3
    if (body.includes(w)) s += 1
  }
  return s
}

const renderHunk = (h: ScoredHunk) =>
  `--- ${h.file.oldPath ?? h.file.path}\n+++ ${h.file.path}\n${h.hunk.header}\n${h.hunk.lines.join('\n')}\n`

function fileLine(f: ChangedFile): string {
  const from = f.oldPath ? `${f.oldPath} → ` : ''
  const size = f.opaque ? 'binary or too large to show' : `+${f.additions} -${f.deletions}`
  return `- ${from}${f.path} (${f.status}, ${size})`
}

function checkLine(v: CheckVerdict): string {
  return `- ${v.ref}: ${v.answer === 'YES' ? 'pass' : v.answer === 'NO' ? 'FAIL' : 'not checked'} — ${v.reason.split('\n')[0]!.slice(0, 200)}`
}

export function buildEvidence(input: EvidenceInput): Evidence {
  const budget = input.budgetChars ?? EVIDENCE_BUDGET_CHARS
  const { criterion, task } = input
  const notes = task.notes?.trim()
  const cutNotes = notes && notes.length > NOTES_CAP ? `${notes.slice(0, NOTES_CAP)} [… notes cut]` : notes
  const files = input.files
  const listed = files.slice(0, FILE_LIST_CAP).map(fileLine)
  if (files.length > FILE_LIST_CAP) listed.push(`- … and ${files.length - FILE_LIST_CAP} more files`)

  let outputs = ''
  for (const o of input.outputs) {
    const block = `$ ${o.command}  (${o.ok ? 'passed' : 'FAILED'})\n${o.output || '(no output)'}\n`
    if (outputs.length + block.length > OUTPUTS_CAP) {
      outputs += `$ ${o.command}  (${o.ok ? 'passed' : 'FAILED'}) [output cut]\n`
    } else outputs += block
  }

  const head = [
    `## Criterion ${criterion.ref}`,
    criterion.text,
    '',
    `## Task ${task.id}: ${task.name}`,
    cutNotes ? `Notes: ${cutNotes}` : 'Notes: (none)',
    '',
    `## Changed files (${files.length})`,
    listed.length ? listed.join('\n') : '(no file outside .ralph/ changed)',
    '',
    '## Deterministic checks',
    input.checks.length ? input.checks.map(checkLine).join('\n') : '(none ran)',
    ...(outputs ? ['', '## Check output', outputs.trimEnd()] : []),
    '',
  ].join('\n')

  const words = keywords(`${criterion.text}`)
  const all: ScoredHunk[] = []
  files.forEach((file) =>
    file.hunks.forEach((hunk) => {
      const base = score(words, file, hunk)
      all.push({ file, hunk, order: all.length, score: base + (base > 0 && WIRING.test(file.path) ? 1 : 0) })
    }),
  )
  const anyMatch = all.some((h) => h.score > 0)
  // Relevant hunks first; with no match at all every hunk is a candidate, in diff order.
  const ranked = [...all].sort((a, b) => b.score - a.score || a.order - b.order)

  const tailReserve = 600
  let room = budget - head.length - tailReserve
  const shown: ScoredHunk[] = []
  const omitted: ScoredHunk[] = []
  let partial: ScoredHunk | null = null
  for (const h of ranked) {
    const text = renderHunk(h)
    if (text.length <= room) {
      shown.push(h)
      room -= text.length
    } else if (!partial && room > 400 && (h.score > 0 || !anyMatch)) {
      partial = h
      room = 0
    } else omitted.push(h)
  }
  shown.sort((a, b) => a.order - b.order)

  let hunksText = shown.map(renderHunk).join('\n')
  if (partial) {
    const text = renderHunk(partial)
    const keep = Math.max(0, budget - head.length - tailReserve - hunksText.length - 80)
    hunksText += `\n${text.slice(0, keep)}\n[… this hunk was cut here]\n`
  }
  const truncated = omitted.length > 0 || partial !== null || files.some((f) => f.opaque)
  const decisiveCut =
    partial !== null || omitted.some((h) => h.score > 0) || (!anyMatch && omitted.length > 0)

  const opaque = files.filter((f) => f.opaque).map((f) => f.path)
  const notice: string[] = []
  if (omitted.length || partial) {
    const names = [...new Set([...omitted, ...(partial ? [partial] : [])].map((h) => h.file.path))]
    notice.push(
      `${omitted.length + (partial ? 1 : 0)} of ${all.length} hunks were cut or left out to fit the budget (in ${names.slice(0, 10).join(', ')}${names.length > 10 ? ' …' : ''}).`,
    )
  }
  if (opaque.length) notice.push(`Not shown (binary or too large): ${opaque.slice(0, 10).join(', ')}.`)
  notice.push(
    decisiveCut
      ? 'DECISIVE HUNKS WERE CUT: hunks that match this criterion are missing from this bundle.'
      : truncated
        ? 'The hunks that were cut do not match this criterion.'
        : 'Nothing was cut: this is the whole diff.',
  )

  const text = [
    head,
    `## Relevant diff hunks (${shown.length + (partial ? 1 : 0)} of ${all.length})`,
    hunksText.trimEnd() || '(no text changes)',
    '',
    '## Truncation',
    notice.join('\n'),
  ].join('\n')
  return { text, truncated, decisiveCut }
}
