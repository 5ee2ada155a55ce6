// Tree helpers: walking, prop access, and the Section view the gates, markers and diff work on.
import type { Marker, Plan, PlanElement, PropValue } from './types'

export function walk(el: PlanElement, visit: (el: PlanElement, ancestors: PlanElement[]) => void): void {
  const stack: PlanElement[] = []
  const go = (e: PlanElement): void => {
    visit(e, stack)
    stack.push(e)
    for (const c of e.children) go(c)
    stack.pop()
  }
  go(el)
}

export function prop(el: PlanElement, name: string): PropValue | undefined {
  return el.props.find((p) => p.name === name)?.value
}

export function stringProp(el: PlanElement, name: string): string | null {
  const v = prop(el, name)
  return v?.kind === 'string' ? v.value : null
}

/** A string[] prop; a single string is accepted as a one-element list. */
export function stringListProp(el: PlanElement, name: string): string[] | null {
  const v = prop(el, name)
  if (!v) return null
  if (v.kind === 'string') return [v.value]
  if (v.kind !== 'array') return null
  return v.items.flatMap((i) => (i.kind === 'string' ? [i.value] : []))
}

export interface PlanSection {
  element: PlanElement
  /** Name of the enclosing <Screen>, or null. */
  screen: string | null
  gumdrop: string | null
  files: string[]
  /** 0-based index among the sections of the same screen with the same gumdrop (diff matching). */
  ordinal: number
  label: string
  /** Markers written on the section itself. */
  ownMarkers: Marker[]
  /** Markers inherited from the enclosing Screen/Content/Aside (NO CHANGES and PRESERVED only). */
  inheritedMarkers: Marker[]
}

export function sectionLabel(screen: string | null, gumdrop: string | null, line: number): string {
  return `${screen ?? '(no screen)'} › ${gumdrop ?? '(no gumdrop)'} (line ${line})`
}

const inheritable = new Set(['NO_CHANGES', 'PRESERVED'])

/** Every <Section> of the plan in document order. */
export function listSections(plan: Plan): PlanSection[] {
  const out: PlanSection[] = []
  const ordinals = new Map<string, number>()
  for (const root of plan.roots) {
    walk(root, (el, ancestors) => {
      if (el.tag !== 'Section') return
      const screenEl = [...ancestors].reverse().find((a) => a.tag === 'Screen')
      const screen = screenEl ? stringProp(screenEl, 'name') : null
      const gumdrop = stringProp(el, 'gumdrop')
      const key = `${screen}\u0000${gumdrop}`
      const ordinal = ordinals.get(key) ?? 0
      ordinals.set(key, ordinal + 1)
      const inherited = ancestors
        .filter((a) => a.tag === 'Screen' || a.tag === 'Content' || a.tag === 'Aside')
        .flatMap((a) =>
          a.comments.flatMap((c) => (c.marker && inheritable.has(c.marker.kind) ? [c.marker] : [])),
        )
      out.push({
        element: el,
        screen,
        gumdrop,
        files: stringListProp(el, 'files') ?? [],
        ordinal,
        label: sectionLabel(screen, gumdrop, el.pos.line),
        ownMarkers: el.comments.flatMap((c) => (c.marker ? [c.marker] : [])),
        inheritedMarkers: inherited,
      })
    })
  }
  return out
}

/**
 * The markers that apply to a section for task N. PRESERVED carries no number and applies to whichever task
 * is current. Inherited markers count only when the section has none of its own for this task, so a section
 * marked [ADD] inside a screen marked NO CHANGES is still in scope.
 */
export function markersFor(section: PlanSection, task: number): Marker[] {
  const own = section.ownMarkers.filter((m) => m.task === task || m.task === null)
  const hasNumbered = own.some((m) => m.task === task)
  if (hasNumbered) return own
  const inherited = section.inheritedMarkers.filter((m) => m.task === task || m.task === null)
  return [...own, ...inherited]
}
