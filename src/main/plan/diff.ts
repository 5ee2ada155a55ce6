// Plan diff: the plan at task-N-pre vs now (sections matched by screen + gumdrop + position), and the plan-diff
// gate, which compares the plan with the implementation.
import { snapshotTags } from '../../shared/snapshotTags'
import { cachedSource, normalizePath, type FileSource } from './fileSource'
import { listSections, markersFor, stringProp, walk, type PlanSection } from './sections'
import type { GateResult, Marker, Plan, PlanElement, PropValue } from './types'

export interface SectionRef {
  screen: string | null
  gumdrop: string | null
  label: string
  line: number
}

export interface PropChange {
  name: string
  before: string | null
  after: string | null
}

export interface MarkerChange {
  /** The element the marker sits in: a section label, `screen "store"`, or `<Theme>`. */
  element: string
  marker: Marker
  line: number
}

export interface PlanDiff {
  screensAdded: string[]
  screensRemoved: string[]
  sectionsAdded: SectionRef[]
  sectionsRemoved: SectionRef[]
  sectionsChanged: { section: SectionRef; changes: PropChange[] }[]
  markersAdded: MarkerChange[]
  markersRemoved: MarkerChange[]
  /** True when nothing differs (comments other than markers and formatting are ignored). */
  identical: boolean
}

export function formatValue(v: PropValue): string {
  switch (v.kind) {
    case 'string':
      return JSON.stringify(v.value)
    case 'number':
    case 'boolean':
      return String(v.value)
    case 'null':
      return 'null'
    case 'array':
      return `[${v.items.map(formatValue).join(', ')}]`
    case 'object':
      return `{ ${Object.entries(v.entries)
        .map(([k, x]) => `${k}: ${formatValue(x)}`)
        .join(', ')} }`
    case 'expression':
      return v.text
  }
}

const ref = (s: PlanSection): SectionRef => ({
  screen: s.screen,
  gumdrop: s.gumdrop,
  label: s.label,
  line: s.element.pos.line,
})
const sectionKey = (s: PlanSection): string => `${s.screen}\u0000${s.gumdrop}\u0000${s.ordinal}`

function childSummary(el: PlanElement): string {
  return el.children
    .map((c) => {
      const id =
        stringProp(c, 'use') ?? stringProp(c, 'name') ?? stringProp(c, 'field') ?? stringProp(c, 'trigger')
      return id ? `${c.tag}(${id})` : c.tag
    })
    .join(', ')
}

function propChanges(a: PlanElement, b: PlanElement): PropChange[] {
  const changes: PropChange[] = []
  const names = new Set([...a.props.map((p) => p.name), ...b.props.map((p) => p.name)])
  for (const name of names) {
    const x = a.props.find((p) => p.name === name)
    const y = b.props.find((p) => p.name === name)
    const before = x ? formatValue(x.value) : null
    const after = y ? formatValue(y.value) : null
    if (before !== after) changes.push({ name, before, after })
  }
  const ca = childSummary(a)
  const cb = childSummary(b)
  if (ca !== cb) changes.push({ name: 'children', before: ca || null, after: cb || null })
  return changes
}

/** Every marker of the plan, keyed by the element it sits in. */
function markerIndex(
  plan: Plan,
): Map<string, { element: string; marker: Marker; line: number; text: string }[]> {
  const index = new Map<string, { element: string; marker: Marker; line: number; text: string }[]>()
  const sectionOf = new Map<PlanElement, PlanSection>(listSections(plan).map((s) => [s.element, s]))
  const counters = new Map<string, number>()
  for (const root of plan.roots) {
    walk(root, (el) => {
      const s = sectionOf.get(el)
      let key: string
      let label: string
      if (s) {
        key = `section:${sectionKey(s)}`
        label = s.label
      } else if (el.tag === 'Screen') {
        key = `screen:${stringProp(el, 'name')}`
        label = `screen "${stringProp(el, 'name')}"`
      } else {
        const n = counters.get(el.tag) ?? 0
        counters.set(el.tag, n + 1)
        key = `${el.tag}#${n}`
        label = `<${el.tag}>`
      }
      for (const c of el.comments) {
        if (!c.marker) continue
        const list = index.get(key) ?? []
        list.push({ element: label, marker: c.marker, line: c.pos.line, text: c.text.replace(/\s+/g, ' ') })
        index.set(key, list)
      }
    })
  }
  return index
}

function screens(plan: Plan): string[] {
  return (plan.root?.children ?? [])
    .filter((c) => c.tag === 'Screen')
    .map((c) => stringProp(c, 'name') ?? '?')
}

export function diffPlans(before: Plan, after: Plan): PlanDiff {
  const sa = screens(before)
  const sb = screens(after)
  const a = new Map(listSections(before).map((s) => [sectionKey(s), s]))
  const b = new Map(listSections(after).map((s) => [sectionKey(s), s]))
  const diff: PlanDiff = {
    screensAdded: sb.filter((s) => !sa.includes(s)),
    screensRemoved: sa.filter((s) => !sb.includes(s)),
    sectionsAdded: [...b].filter(([k]) => !a.has(k)).map(([, s]) => ref(s)),
    sectionsRemoved: [...a].filter(([k]) => !b.has(k)).map(([, s]) => ref(s)),
    sectionsChanged: [],
    markersAdded: [],
    markersRemoved: [],
    identical: false,
  }
  for (const [k, s] of b) {
    const prev = a.get(k)
    if (!prev) continue
    const changes = propChanges(prev.element, s.element)
    if (changes.length > 0) diff.sectionsChanged.push({ section: ref(s), changes })
  }
  const ma = markerIndex(before)
  const mb = markerIndex(after)
  for (const [k, list] of mb) {
    const old = new Set((ma.get(k) ?? []).map((m) => m.text))
    for (const m of list)
      if (!old.has(m.text)) diff.markersAdded.push({ element: m.element, marker: m.marker, line: m.line })
  }
  for (const [k, list] of ma) {
    const kept = new Set((mb.get(k) ?? []).map((m) => m.text))
    for (const m of list)
      if (!kept.has(m.text)) diff.markersRemoved.push({ element: m.element, marker: m.marker, line: m.line })
  }
  diff.identical =
    diff.screensAdded.length +
      diff.screensRemoved.length +
      diff.sectionsAdded.length +
      diff.sectionsRemoved.length +
      diff.sectionsChanged.length +
      diff.markersAdded.length +
      diff.markersRemoved.length ===
    0
  return diff
}

const markerText = (m: Marker): string =>
  m.kind === 'PRESERVED'
    ? m.description
    : m.kind === 'NO_CHANGES'
      ? `NO CHANGES for task-${m.task}`
      : `TASK-${m.task} [${m.kind}]: ${m.description}`

export function formatPlanDiff(d: PlanDiff): string {
  if (d.identical) return 'Plans are identical (ignoring formatting and ordinary comments).'
  const lines: string[] = []
  for (const s of d.screensAdded) lines.push(`+ screen "${s}"`)
  for (const s of d.screensRemoved) lines.push(`- screen "${s}"`)
  for (const s of d.sectionsAdded) lines.push(`+ section ${s.label}`)
  for (const s of d.sectionsRemoved) lines.push(`- section ${s.label}`)
  for (const c of d.sectionsChanged) {
    lines.push(`~ section ${c.section.label}`)
    for (const p of c.changes) lines.push(`    ${p.name}: ${p.before ?? '(none)'} → ${p.after ?? '(none)'}`)
  }
  for (const m of d.markersAdded) lines.push(`+ marker in ${m.element}: ${markerText(m.marker)}`)
  for (const m of d.markersRemoved) lines.push(`- marker in ${m.element}: ${markerText(m.marker)}`)
  return lines.join('\n')
}

export interface PlanDiffGateInput {
  plan: Plan
  task: number
  before: FileSource
  now: FileSource
}

/**
 * The plan-diff gate (informational): every Section's files exist, and sections carrying ADD/MODIFY/FIX for
 * task N had at least one of their files touched since task-N-pre.
 */
export async function planDiffGate(input: PlanDiffGateInput): Promise<GateResult[]> {
  const before = cachedSource(input.before)
  const now = cachedSource(input.now)
  const out: GateResult[] = []
  for (const s of listSections(input.plan)) {
    const active = markersFor(s, input.task).filter(
      (m) => m.kind === 'ADD' || m.kind === 'MODIFY' || m.kind === 'FIX',
    )
    const marked = markersFor(s, input.task).length > 0
    let touched = false
    for (const p of s.files) {
      const path = normalizePath(p)
      const n = await now.read(path)
      if (n === null) {
        // A section marked REMOVE may legitimately have lost its files.
        if (!markersFor(s, input.task).some((m) => m.kind === 'REMOVE')) {
          out.push({
            gate: 'plan-diff',
            severity: 'warning',
            message: `${path} is listed in the plan but does not exist${marked ? '' : ' (not built yet?)'}.`,
            file: path,
            section: s.label,
          })
        }
      }
      if (active.length > 0 && n !== (await before.read(path))) touched = true
    }
    if (active.length === 0) continue
    const kinds = [...new Set(active.map((m) => m.kind))].map((k) => `[${k}]`).join('/')
    if (s.files.length === 0) continue // validation's section-files-missing already says so
    out.push({
      gate: 'plan-diff',
      severity: touched ? 'pass' : 'warning',
      message: touched
        ? `${kinds}: the section's files changed.`
        : `The section carries ${kinds} for task ${input.task}, but none of its files ` +
          `(${s.files.join(', ')}) changed since ${snapshotTags.taskPre(input.task)}.`,
      file: null,
      section: s.label,
    })
  }
  return out
}
