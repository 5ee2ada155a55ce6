// Maps a structured task (DESIGN.md §8) to the plan sections it probably touches. The loop hands this to the
// model as mutation context: the harness guides, the model still writes the markers (seed 000 §6).
import { normalizePath } from './fileSource'
import { listSections, stringProp, walk, type PlanSection } from './sections'
import type { Plan } from './types'

export interface StructuredTaskRequirement {
  marker: 'ADD' | 'MODIFY' | 'FIX' | 'REMOVE'
  description: string
  count: number | null
}

/** The task parser's output (DESIGN.md §8), structurally; the tasks module owns the canonical type. */
export interface StructuredTask {
  type: 'fresh' | 'mutation' | 'bugfix' | 'needs-clarification'
  title: string
  requirements: StructuredTaskRequirement[]
  scope: { preserve: string[]; affectedFiles: string[] }
  clarification: string | null
}

export interface SectionMatch {
  section: PlanSection
  score: number
  reasons: string[]
}

export interface AffectedSections {
  requirements: { requirement: StructuredTaskRequirement; matches: SectionMatch[] }[]
  preserve: { phrase: string; matches: SectionMatch[] }[]
  /** Sections no requirement points at: candidates for NO CHANGES. */
  untouched: PlanSection[]
}

const stop = new Set(
  'the a an and or of to in on for with from into by at as is are be it its this that these those more new add ' +
    'make change fix remove update existing some all any each two three four five six seven eight nine ten ' +
    'less not no so too very than page section please also just'.split(' '),
)

// A few domain synonyms, so "drinks" finds a section whose items are "flavors".
const synonyms: Record<string, string[]> = {
  drink: ['flavor', 'product', 'item'],
  flavor: ['drink', 'product'],
  product: ['item', 'card', 'flavor'],
  copy: ['text', 'headline', 'hero', 'tagline'],
  headline: ['hero', 'copy', 'title'],
  signup: ['newsletter', 'subscribe', 'form'],
  newsletter: ['signup', 'subscribe'],
  menu: ['nav', 'navigation'],
  nav: ['menu', 'navigation'],
  price: ['pricing', 'plan'],
  pricing: ['price', 'plan'],
  button: ['cta', 'action'],
  review: ['testimonial'],
  testimonial: ['review', 'quote'],
  mood: ['theme'],
  theme: ['mood', 'color'],
  login: ['auth', 'signin'],
  faq: ['question'],
}

const stem = (w: string): string => {
  if (w.length > 4 && w.endsWith('ies')) return `${w.slice(0, -3)}y`
  if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) return w.slice(0, -1)
  return w
}

/** Lower-case word stems of a text, splitting camelCase, kebab-case and paths. */
export function words(text: string): string[] {
  return text
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length >= 3 && !stop.has(w))
    .map(stem)
}

function sectionWords(s: PlanSection): Set<string> {
  const parts: string[] = [s.gumdrop ?? '', ...s.files]
  for (const p of s.element.props) if (p.value.kind === 'string') parts.push(p.value.value)
  walk(s.element, (el) => {
    for (const name of ['use', 'label', 'name', 'field', 'trigger', 'intent', 'description', 'variant']) {
      const v = stringProp(el, name)
      if (v) parts.push(v)
    }
    if (el.text) parts.push(el.text)
    for (const c of el.comments) if (c.marker) parts.push(c.marker.description)
  })
  return new Set(words(parts.join(' ')))
}

function score(text: string, s: PlanSection, own: Set<string>, affectedFiles: string[]): SectionMatch {
  const reasons: string[] = []
  let total = 0
  const tokens = [...new Set(words(text))]
  const files = s.files.map(normalizePath)
  for (const f of affectedFiles.map(normalizePath)) {
    if (files.some((x) => x === f || x.endsWith(`/${f}`) || f.endsWith(`/${x}`))) {
      // The task's files apply to the whole task, not one requirement: a nudge, not a verdict.
      total += 1.5
      reasons.push(`lists ${f}, one of the task's affected files`)
    }
  }
  const gumdropWords = words(s.gumdrop ?? '')
  if (gumdropWords.length > 0 && gumdropWords.every((w) => tokens.includes(w))) {
    total += 3
    reasons.push(`gumdrop "${s.gumdrop}" is named`)
  }
  if (s.screen && words(s.screen).some((w) => tokens.includes(w))) {
    total += 2
    reasons.push(`screen "${s.screen}" is named`)
  }
  const hits = tokens.filter((t) => own.has(t) && !gumdropWords.includes(t))
  const related = tokens.filter((t) => !own.has(t) && (synonyms[t] ?? []).some((syn) => own.has(syn)))
  total += Math.min(3, hits.length) + Math.min(2, related.length) * 0.5
  if (hits.length > 0) reasons.push(`shares the words ${hits.slice(0, 4).join(', ')}`)
  if (related.length > 0) reasons.push(`related words ${related.slice(0, 3).join(', ')}`)
  return { section: s, score: total, reasons }
}

function rank(text: string, sections: PlanSection[], index: Map<PlanSection, Set<string>>, files: string[]) {
  const scored = sections
    .map((s) => score(text, s, index.get(s) ?? new Set(), files))
    .filter((m) => m.score > 0)
    .sort((a, b) => b.score - a.score || a.section.element.pos.line - b.section.element.pos.line)
  const strong = scored.filter((m) => m.score >= 2)
  // Weak word matches only when nothing better exists, and then only the best one.
  return strong.length > 0 ? strong : scored.slice(0, 1)
}

export function findAffectedSections(plan: Plan, task: StructuredTask): AffectedSections {
  const sections = listSections(plan)
  const index = new Map(sections.map((s) => [s, sectionWords(s)]))
  const files = task.scope.affectedFiles
  const requirements = task.requirements.map((requirement) => ({
    requirement,
    matches: rank(requirement.description, sections, index, files),
  }))
  const preserve = task.scope.preserve.map((phrase) => ({
    phrase,
    matches: rank(phrase, sections, index, []),
  }))
  const hit = new Set(requirements.flatMap((r) => r.matches.map((m) => m.section)))
  return { requirements, preserve, untouched: sections.filter((s) => !hit.has(s)) }
}

/** The mutation context as Markdown, for the model's prompt. */
export function describeAffectedSections(a: AffectedSections, taskNumber: number): string {
  const lines: string[] = [`## Plan sections for task ${taskNumber}`, '']
  a.requirements.forEach(({ requirement: r, matches }, i) => {
    lines.push(`${i + 1}. [${r.marker}] ${r.description}${r.count ? ` (count: ${r.count})` : ''}`)
    if (matches.length === 0)
      lines.push('   - no existing section matches: add a new <Section> with an [ADD] marker')
    for (const m of matches.slice(0, 3)) {
      const files = m.section.files.length > 0 ? `; files: ${m.section.files.join(', ')}` : ''
      lines.push(`   - ${m.section.label} (${m.reasons.join('; ')}${files})`)
    }
  })
  if (a.preserve.length > 0) {
    lines.push('', 'Preserve (mark with {/* PRESERVED — do not remove or convert */}):')
    for (const p of a.preserve) {
      lines.push(`- ${p.phrase}${p.matches[0] ? ` → ${p.matches[0].section.label}` : ''}`)
    }
  }
  if (a.untouched.length > 0) {
    lines.push('', `Not touched by this task (mark with {/* NO CHANGES for task-${taskNumber} */}):`)
    for (const s of a.untouched) lines.push(`- ${s.label}`)
  }
  return lines.join('\n')
}
