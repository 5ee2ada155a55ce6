// What `.ralph/plan.tsx` contributes to a prompt: the whole plan while it is small, a bounded excerpt when it is
// not. The model writes the plan, so its size is the model's to choose: a 5.9 MB plan once made every
// iteration's request 1.2 MB. The excerpt keeps what the model needs first (the sections this task touches, in
// full), then an outline of the rest, and says what it left out and how to read it.
import type { StructuredTask } from '../../shared/task'
import { findAffectedSections } from './affected'
import { parsePlan } from './parse'
import { listSections, markersFor, type PlanSection } from './sections'
import type { Plan } from './types'

/**
 * The plan's share of one prompt, in characters (about 7,000 tokens): the iteration prompt, the plan tool's
 * `show`, and anything else that quotes the plan stay within it (DESIGN.md §7, "Bounded prompts").
 */
export const PLAN_PROMPT_CHARS = 28_000

/** One affected section's source never takes more than this share of the budget, so several fit. */
const SECTION_SHARE = 4
/** The affected sections take at most this share of the budget; the outline gets the rest. */
const AFFECTED_SHARE = 0.6
const READ_HINT_LINES = 200

const markerList = (s: PlanSection, task: number): string => {
  const kinds = [...new Set((task > 0 ? markersFor(s, task) : s.ownMarkers).map((m) => m.kind))]
  return kinds.length > 0 ? `  [${kinds.join(', ')}]` : ''
}

function outlineLine(s: PlanSection, task: number): string {
  const { pos, end } = s.element
  const files = s.files.length > 0 ? `  files: ${s.files.join(', ').slice(0, 200)}` : ''
  return `- lines ${pos.line}-${end.line}  ${s.screen ?? '(no screen)'} › ${s.gumdrop ?? '(no gumdrop)'}${files}${markerList(s, task)}`
}

/** The sections a task most likely touches: those the task's words and files point at, and those marked for it. */
function affectedSections(plan: Plan, sections: PlanSection[], task: StructuredTask | null, n: number) {
  // By element: findAffectedSections lists the sections afresh, so its section objects are not these.
  const picked = new Set<PlanSection['element']>()
  if (task) {
    const a = findAffectedSections(plan, task)
    for (const r of a.requirements) for (const m of r.matches.slice(0, 3)) picked.add(m.section.element)
  }
  if (n > 0) {
    for (const s of sections) if (s.ownMarkers.some((m) => m.task === n)) picked.add(s.element)
  }
  return sections.filter((s) => picked.has(s.element))
}

/** The first lines of `text` that fit in `max` characters (for a plan that does not parse). */
function headLines(text: string, max: number): { text: string; lines: number } {
  let end = 0
  let lines = 0
  while (end < text.length) {
    const nl = text.indexOf('\n', end)
    const next = nl === -1 ? text.length : nl + 1
    if (next > max) break
    end = next
    lines++
  }
  // A first line longer than the budget (minified text): its start, cut mid-line.
  if (lines === 0 && text.length > 0) return { text: `${text.slice(0, max)}…`, lines: 0 }
  return { text: text.slice(0, end).replace(/\n$/, ''), lines }
}

/**
 * The plan for a prompt, at most `max` characters (plus a short note). Under the budget it is the plan itself;
 * over it, the affected sections' source, an outline of every section that fits, and a note naming what was
 * left out and how to read it with read_file (offset = first line, limit = lines).
 */
export function planForPrompt(
  text: string,
  opts: { task?: StructuredTask | null; taskNumber?: number; max?: number; parsed?: Plan | null } = {},
): string {
  const max = opts.max ?? PLAN_PROMPT_CHARS
  const trimmed = text.trim()
  if (trimmed.length <= max) return trimmed
  const n = opts.taskNumber ?? 0
  const lineCount = text.split('\n').length
  const size = `.ralph/plan.tsx is ${text.length} characters in ${lineCount} lines, more than the ${max} a prompt holds`
  const readHint =
    `Read any part with read_file {path: ".ralph/plan.tsx", offset: <first line>, limit: ${READ_HINT_LINES}}; ` +
    'plan {action: "validate"} and {action: "diff"} check the whole file.'

  // The parser reports what does not parse in `errors` (it does not throw): the loop's own parse of the same text
  // (context.ts) runs without a guard.
  const plan: Plan = opts.parsed ?? parsePlan(text)
  const sections = plan && plan.errors.length === 0 ? listSections(plan) : []
  if (!plan || sections.length === 0) {
    const head = headLines(text, max)
    return (
      `${head.text}\n[${size}: shown ${head.lines > 0 ? `are lines 1-${head.lines}` : 'is the start of line 1'}` +
      `${plan && plan.errors.length > 0 ? ' (the plan does not parse, so no outline)' : ''}. ${readHint.replace('<first line>', String(Math.max(1, head.lines + 1)))}]`
    )
  }

  const parts: string[] = []
  let used = 0
  const affected = affectedSections(plan, sections, opts.task ?? null, n)
  const shownInFull: PlanSection[] = []
  for (const s of affected) {
    const src = text.slice(s.element.pos.offset, s.element.end.offset)
    const block = `{/* lines ${s.element.pos.line}-${s.element.end.line} */}\n${src}`
    if (block.length > max / SECTION_SHARE || used + block.length > max * AFFECTED_SHARE) continue
    parts.push(block)
    used += block.length + 1
    shownInFull.push(s)
  }
  const outline: string[] = []
  let outlined = 0
  for (const s of sections) {
    const line = outlineLine(s, n)
    if (used + line.length + 1 > max) break
    outline.push(line)
    used += line.length + 1
    outlined++
  }
  const lines: string[] = []
  if (parts.length > 0) {
    lines.push(`Sections this task most likely affects (${shownInFull.length}, in full):`, ...parts, '')
  }
  lines.push(`Outline (${outlined} of ${sections.length} sections, in file order):`, ...outline)
  const leftOut = [
    `the full text of ${sections.length - shownInFull.length} section(s)`,
    outlined < sections.length
      ? `the outline of the last ${sections.length - outlined} (from line ${sections[outlined]!.element.pos.line})`
      : null,
  ].filter((x): x is string => x !== null)
  lines.push(`[${size}. Left out: ${leftOut.join(', and ')}. ${readHint}]`)
  return lines.join('\n')
}

/** Clips a block of lines to `max` characters at a line end, saying how many lines were left out and why. */
export function clipLines(text: string, max: number, why: string): string {
  if (text.length <= max) return text
  const head = headLines(text, max)
  const total = text.split('\n').length
  return `${head.text}\n… (${total - head.lines} more lines left out: ${why})`
}

/** The last `max` characters of a log, cut at a line start, saying how much earlier text was left out. */
export function tailChars(text: string, max: number, what: string): string {
  const trimmed = text.trim()
  if (trimmed.length <= max) return trimmed
  let start = trimmed.length - max
  const nl = trimmed.indexOf('\n', start)
  if (nl !== -1 && nl < trimmed.length - 1) start = nl + 1
  return `… (${what} left out: ${start} characters; read the file with read_file for them)\n${trimmed.slice(start)}`
}
