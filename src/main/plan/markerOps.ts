// Marker helpers for the loop: list a task's markers per section, and strip stale markers of other tasks
// (the harness does this at the start of each mutation task, before the model writes new ones).
import { parsePlan } from './parse'
import { listSections, markersFor, walk, type PlanSection } from './sections'
import type { Marker, Plan, PlanComment, PlanElement } from './types'

export interface SectionMarkers {
  section: PlanSection
  markers: Marker[]
}

/** The sections that carry markers for task N (own or inherited from their screen), in document order. */
export function listMarkers(plan: Plan, task: number): SectionMarkers[] {
  return listSections(plan)
    .map((section) => ({ section, markers: markersFor(section, task) }))
    .filter((s) => s.markers.length > 0)
}

export interface StaleMarker {
  text: string
  line: number
  task: number | null
}

export interface StripOptions {
  /**
   * PRESERVED markers carry no task number. By default one is stripped only when it sits next to numbered
   * markers that are all stale; set this to strip every PRESERVED that has no current-task marker beside it
   * (right at the start of a new task, when no marker can be current yet).
   */
  stripUnnumbered?: boolean
}

function isStale(c: PlanComment, siblings: PlanComment[], task: number, opts: StripOptions): boolean {
  const m = c.marker
  if (!m) return false
  if (m.task !== null) return m.task !== task
  const numbered = siblings.filter((s) => s.marker?.task != null)
  const current = numbered.some((s) => s.marker?.task === task)
  if (current) return false
  return numbered.length > 0 || opts.stripUnnumbered === true
}

/** Removes the stale markers from the plan text, deleting lines that become empty; everything else is kept. */
export function stripStaleMarkers(
  plan: Plan,
  task: number,
  opts: StripOptions = {},
): { text: string; removed: StaleMarker[] } {
  const doomed: PlanComment[] = []
  const visit = (el: PlanElement): void => {
    for (const c of el.comments) if (isStale(c, el.comments, task, opts)) doomed.push(c)
  }
  for (const r of plan.roots) walk(r, visit)
  for (const c of plan.looseComments) if (isStale(c, plan.looseComments, task, opts)) doomed.push(c)
  if (doomed.length === 0) return { text: plan.source, removed: [] }

  const src = plan.source
  const cuts: [number, number][] = doomed.map((c) => {
    let start = c.pos.offset
    let end = c.end.offset
    // `{/* … */}` holding only this comment: remove the braces too.
    let a = start - 1
    while (a >= 0 && /[ \t\r\n]/.test(src[a] ?? '')) a--
    let b = end
    while (b < src.length && /[ \t\r\n]/.test(src[b] ?? '')) b++
    if (src[a] === '{' && src[b] === '}') {
      start = a
      end = b + 1
    }
    // Whole line of its own: take the line and its newline.
    const lineStart = src.lastIndexOf('\n', start - 1) + 1
    const nl = src.indexOf('\n', end)
    const lineEnd = nl === -1 ? src.length : nl
    if (src.slice(lineStart, start).trim() === '' && src.slice(end, lineEnd).trim() === '') {
      start = lineStart
      end = nl === -1 ? lineEnd : nl + 1
    }
    return [start, end]
  })
  cuts.sort((x, y) => y[0] - x[0])
  let text = src
  let lastStart = Infinity
  for (const [s, e] of cuts) {
    if (e > lastStart) continue // overlapping cut (two comments in one brace pair): already covered
    text = text.slice(0, s) + text.slice(e)
    lastStart = s
  }
  return {
    text,
    removed: doomed.map((c) => ({ text: c.text, line: c.pos.line, task: c.marker?.task ?? null })),
  }
}

/**
 * plan.tsx text without other tasks' markers, as a task's start leaves it (PRESERVED markers without a marker of
 * this task beside them go too). Text that does not parse is returned unchanged. Pure: the loop's stale-marker
 * step and a lane's merge (lanes/mergeLane.ts) both use it.
 */
export function planWithoutStaleMarkers(text: string, task: number): string {
  if (!text.trim()) return text
  const plan = parsePlan(text)
  if (plan.errors.length) return text
  return stripStaleMarkers(plan, task, { stripUnnumbered: true }).text
}
