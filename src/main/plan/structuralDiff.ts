// The structural plan diff the editor's "Plan diff" review and `ralph plan diff --from --to` show: screens matched
// by name, then by position (a rename); sections matched by gumdrop (and their order among equal gumdrops), then
// by position; each with its prop changes (its own and its non-section descendants') and its markers added or
// removed. `diffPlans` (diff.ts) stays the loop's flat summary; this is the tree a reviewer walks.
import type { DiffStatus, PlanDiffNodeDto, StructuralDiff } from '../../shared/api/plan'
import { formatValue } from './diff'
import { stringProp } from './sections'
import type { Marker, Plan, PlanElement } from './types'

type Node = PlanDiffNodeDto
type DiffMarker = Marker & { line: number }

/** One side of a matched pair: the element and what it owns (descendants that are not screens or sections). */
interface Part {
  el: PlanElement
  name: string | null
  /** Descendant signatures: `Tag(id)` paths → their props, text included. */
  sig: Map<string, string>
  markers: { key: string; marker: DiffMarker }[]
}

const idOf = (el: PlanElement): string | null =>
  stringProp(el, 'name') ??
  stringProp(el, 'use') ??
  stringProp(el, 'field') ??
  stringProp(el, 'trigger') ??
  stringProp(el, 'label') ??
  stringProp(el, 'gumdrop')

const range = (el: PlanElement) => ({ line: el.pos.line, endLine: el.end.line })

/** What an element owns, stopping at the elements that get nodes of their own (`stop`). */
function partOf(el: PlanElement, name: string | null, stop: (e: PlanElement) => boolean): Part {
  const sig = new Map<string, string>()
  const markers: Part['markers'] = []
  const seen = new Map<string, number>()
  const visit = (e: PlanElement, path: string, own: boolean): void => {
    if (!own) {
      const props = e.props.map((p) => `${p.name}=${formatValue(p.value)}`).join(' ')
      sig.set(path, [props, e.text ? `"${e.text}"` : ''].filter(Boolean).join(' '))
    } else {
      for (const p of e.props) sig.set(p.name, formatValue(p.value))
    }
    for (const c of e.comments) {
      if (c.marker)
        markers.push({ key: c.text.replace(/\s+/g, ' ').trim(), marker: { ...c.marker, line: c.pos.line } })
    }
    for (const child of e.children) {
      if (stop(child)) continue
      const base = `${path ? `${path} › ` : ''}${child.tag}${idOf(child) ? `(${idOf(child)})` : ''}`
      const n = seen.get(base) ?? 0
      seen.set(base, n + 1)
      visit(child, n === 0 ? base : `${base}#${n + 1}`, false)
    }
  }
  visit(el, '', true)
  return { el, name, sig, markers }
}

function propChanges(a: Part, b: Part): Node['props'] {
  const out: Node['props'] = []
  for (const key of new Set([...a.sig.keys(), ...b.sig.keys()])) {
    const before = a.sig.get(key) ?? null
    const after = b.sig.get(key) ?? null
    if (before !== after) out.push({ name: key, before, after })
  }
  return out
}

/** Markers present on one side only, as multisets of their normalised text. */
function markerChanges(a: Part['markers'], b: Part['markers']): [DiffMarker[], DiffMarker[]] {
  const minus = (x: Part['markers'], y: Part['markers']): DiffMarker[] => {
    const left = new Map<string, number>()
    for (const m of y) left.set(m.key, (left.get(m.key) ?? 0) + 1)
    return x.flatMap((m) => {
      const n = left.get(m.key) ?? 0
      if (n > 0) {
        left.set(m.key, n - 1)
        return []
      }
      return [m.marker]
    })
  }
  return [minus(b, a), minus(a, b)]
}

/**
 * Pairs two lists: first by key (the n-th of a key with the n-th), then the rest by position. Returns the pairs
 * in the order of `after`, plus what stayed unmatched on either side.
 */
function match<T>(before: T[], after: T[], key: (x: T) => string | null) {
  const pairs = new Map<number, number>() // after index → before index
  const byKey = new Map<string, number[]>()
  before.forEach((x, i) => {
    const k = key(x)
    if (k !== null) byKey.set(k, [...(byKey.get(k) ?? []), i])
  })
  const used = new Set<number>()
  after.forEach((x, j) => {
    const k = key(x)
    const i = k === null ? undefined : byKey.get(k)?.shift()
    if (i !== undefined) {
      pairs.set(j, i)
      used.add(i)
    }
  })
  const restBefore = before.map((_, i) => i).filter((i) => !used.has(i))
  const restAfter = after.map((_, j) => j).filter((j) => !pairs.has(j))
  const n = Math.min(restBefore.length, restAfter.length)
  for (let k = 0; k < n; k++) pairs.set(restAfter[k]!, restBefore[k]!)
  return {
    pairs,
    byPosition: new Set(restAfter.slice(0, n)),
    removed: restBefore.slice(n),
    added: restAfter.slice(n),
  }
}

/** After-indices whose partner is out of order: everything outside the longest increasing run of partners. */
function movedOf(pairs: Map<number, number>): Set<number> {
  const js = [...pairs.keys()].sort((a, b) => a - b)
  const seq = js.map((j) => pairs.get(j)!)
  // O(n log n) longest increasing subsequence, keeping predecessors to recover it.
  const tails: number[] = []
  const prev: number[] = new Array<number>(seq.length).fill(-1)
  for (let i = 0; i < seq.length; i++) {
    let lo = 0
    let hi = tails.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (seq[tails[mid]!]! < seq[i]!) lo = mid + 1
      else hi = mid
    }
    if (lo > 0) prev[i] = tails[lo - 1]!
    tails[lo] = i
  }
  const keep = new Set<number>()
  for (let i = tails[tails.length - 1] ?? -1; i >= 0; i = prev[i]!) keep.add(js[i]!)
  return new Set(js.filter((j) => !keep.has(j)))
}

function oneSided(kind: Node['kind'], part: Part, status: 'added' | 'removed', label: string): Node {
  const markers = part.markers.map((m) => m.marker)
  return {
    kind,
    name: part.name,
    previousName: null,
    label,
    status,
    before: status === 'removed' ? range(part.el) : null,
    after: status === 'added' ? range(part.el) : null,
    props: [],
    markersAdded: status === 'added' ? markers : [],
    markersRemoved: status === 'removed' ? markers : [],
    children: [],
  }
}

function paired(kind: Node['kind'], a: Part, b: Part, label: string, moved: boolean, children: Node[]): Node {
  const props = propChanges(a, b)
  const [markersAdded, markersRemoved] = markerChanges(a.markers, b.markers)
  const renamed = kind === 'screen' && a.name !== b.name
  let status: DiffStatus = 'unchanged'
  if (renamed) status = 'renamed'
  else if (props.length > 0 || children.some((c) => c.status !== 'unchanged')) status = 'changed'
  else if (moved) status = 'moved'
  return {
    kind,
    name: b.name,
    previousName: a.name !== b.name ? a.name : null,
    label,
    status,
    before: range(a.el),
    after: range(b.el),
    props,
    markersAdded,
    markersRemoved,
    children,
  }
}

const isScreen = (e: PlanElement) => e.tag === 'Screen'
const isSection = (e: PlanElement) => e.tag === 'Section'
const gumdropOf = (e: PlanElement) => stringProp(e, 'gumdrop')

/** Screens anywhere under the root, and the sections of each (nearest Screen ancestor); the rest are loose. */
function shape(plan: Plan) {
  const screens: { el: PlanElement; sections: PlanElement[] }[] = []
  const loose: PlanElement[] = []
  const go = (e: PlanElement, screen: { sections: PlanElement[] } | null): void => {
    for (const c of e.children) {
      if (isScreen(c)) {
        const s = { el: c, sections: [] as PlanElement[] }
        screens.push(s)
        go(c, s)
      } else if (isSection(c)) (screen?.sections ?? loose).push(c)
      else go(c, screen)
    }
  }
  for (const r of plan.roots) go(r, null)
  return { root: plan.root ?? plan.roots[0] ?? null, screens, loose }
}

function sectionNodes(screen: string | null, before: PlanElement[], after: PlanElement[]): Node[] {
  // The n-th section of a gumdrop matches the n-th of the same gumdrop (match() shifts them in order).
  const m = match(before, after, (e) => gumdropOf(e) ?? null)
  const moved = movedOf(m.pairs)
  const label = (e: PlanElement) => `${screen ?? '(no screen)'} › ${gumdropOf(e) ?? '(no gumdrop)'}`
  const part = (e: PlanElement) => partOf(e, gumdropOf(e), () => false)
  const nodes: { order: number; node: Node }[] = []
  after.forEach((e, j) => {
    const i = m.pairs.get(j)
    nodes.push({
      order: j,
      node:
        i === undefined
          ? oneSided('section', part(e), 'added', label(e))
          : paired('section', part(before[i]!), part(e), label(e), moved.has(j), []),
    })
  })
  // A removed section sits where it was, among the ones around it.
  for (const i of m.removed)
    nodes.push({ order: i - 0.5, node: oneSided('section', part(before[i]!), 'removed', label(before[i]!)) })
  return nodes.sort((x, y) => x.order - y.order).map((x) => x.node)
}

/** The structural diff of two parsed plans. */
export function structuralDiff(before: Plan, after: Plan): StructuralDiff {
  const a = shape(before)
  const b = shape(after)
  const nodes: Node[] = []
  const screenPart = (e: PlanElement) => partOf(e, stringProp(e, 'name'), (c) => isScreen(c) || isSection(c))
  const appPart = (e: PlanElement) => partOf(e, stringProp(e, 'name'), (c) => isScreen(c) || isSection(c))

  const loose = sectionNodes(null, a.loose, b.loose)
  if (a.root && b.root) nodes.push(paired('app', appPart(a.root), appPart(b.root), '<App>', false, loose))
  else if (b.root) nodes.push({ ...oneSided('app', appPart(b.root), 'added', '<App>'), children: loose })
  else if (a.root) nodes.push({ ...oneSided('app', appPart(a.root), 'removed', '<App>'), children: loose })

  const m = match(a.screens, b.screens, (s) => stringProp(s.el, 'name'))
  const moved = movedOf(m.pairs)
  const screenNodes: { order: number; node: Node }[] = []
  b.screens.forEach((s, j) => {
    const i = m.pairs.get(j)
    const label = `screen "${stringProp(s.el, 'name') ?? '?'}"`
    if (i === undefined) {
      const node = oneSided('screen', screenPart(s.el), 'added', label)
      node.children = sectionNodes(node.name, [], s.sections)
      screenNodes.push({ order: j, node })
    } else {
      const prev = a.screens[i]!
      const children = sectionNodes(stringProp(s.el, 'name'), prev.sections, s.sections)
      screenNodes.push({
        order: j,
        node: paired('screen', screenPart(prev.el), screenPart(s.el), label, moved.has(j), children),
      })
    }
  })
  for (const i of m.removed) {
    const s = a.screens[i]!
    const node = oneSided(
      'screen',
      screenPart(s.el),
      'removed',
      `screen "${stringProp(s.el, 'name') ?? '?'}"`,
    )
    node.children = sectionNodes(node.name, s.sections, [])
    screenNodes.push({ order: i - 0.5, node })
  }
  nodes.push(...screenNodes.sort((x, y) => x.order - y.order).map((x) => x.node))

  const counts = {
    added: 0,
    removed: 0,
    renamed: 0,
    moved: 0,
    changed: 0,
    markersAdded: 0,
    markersRemoved: 0,
  }
  const tally = (n: Node): void => {
    if (n.status !== 'unchanged') counts[n.status]++
    counts.markersAdded += n.markersAdded.length
    counts.markersRemoved += n.markersRemoved.length
    n.children.forEach(tally)
  }
  nodes.forEach(tally)
  const identical = Object.values(counts).every((n) => n === 0)
  return { nodes, counts, identical }
}

const markerWords = (m: Marker): string =>
  m.kind === 'PRESERVED'
    ? `PRESERVED (${m.description})`
    : m.kind === 'NO_CHANGES'
      ? `NO CHANGES for task-${m.task}`
      : `TASK-${m.task} [${m.kind}]: ${m.description}`

/** The diff as text: one line per element that differs (the CLI's human output). */
export function formatStructuralDiff(d: StructuralDiff): string {
  if (d.identical) return 'The two plans are structurally identical.'
  const sign: Record<DiffStatus, string> = {
    added: '+',
    removed: '-',
    renamed: '→',
    moved: '↕',
    changed: '~',
    unchanged: '=',
  }
  const lines: string[] = []
  const go = (n: Node, depth: number): void => {
    const pad = '  '.repeat(depth)
    const interesting = n.status !== 'unchanged' || n.markersAdded.length + n.markersRemoved.length > 0
    if (interesting) {
      const was = n.previousName && n.status === 'renamed' ? ` (was "${n.previousName}")` : ''
      lines.push(`${pad}${sign[n.status]} ${n.label} ${n.status}${was}`)
      for (const p of n.props)
        lines.push(`${pad}    ${p.name}: ${p.before ?? '(none)'} → ${p.after ?? '(none)'}`)
      for (const m of n.markersAdded) lines.push(`${pad}    + marker ${markerWords(m)}`)
      for (const m of n.markersRemoved) lines.push(`${pad}    - marker ${markerWords(m)}`)
    }
    for (const c of n.children) go(c, interesting ? depth + 1 : depth)
  }
  for (const n of d.nodes) go(n, 0)
  return lines.join('\n')
}
