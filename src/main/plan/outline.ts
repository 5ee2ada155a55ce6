// The editor's Outline: screens → sections, with their marker kinds and files, each with the line to jump to.
import type { OutlineScreen } from '../../shared/api/plan'
import { listSections, markersFor, stringProp, walk } from './sections'
import type { Plan } from './types'

export function planOutline(plan: Plan, task: number | null): OutlineScreen[] {
  const screens = new Map<string | null, OutlineScreen>()
  for (const root of plan.roots) {
    walk(root, (el) => {
      if (el.tag !== 'Screen') return
      const name = stringProp(el, 'name')
      if (screens.has(name)) return
      screens.set(name, {
        name,
        line: el.pos.line,
        markers: el.comments.flatMap((c) => (c.marker ? [c.marker.kind] : [])),
        sections: [],
      })
    })
  }
  for (const s of listSections(plan)) {
    let screen = screens.get(s.screen)
    if (!screen) {
      screen = { name: s.screen, line: s.element.pos.line, markers: [], sections: [] }
      screens.set(s.screen, screen)
    }
    const markers = task === null ? [...s.ownMarkers, ...s.inheritedMarkers] : markersFor(s, task)
    screen.sections.push({
      gumdrop: s.gumdrop,
      line: s.element.pos.line,
      files: s.files,
      markers: [...new Set(markers.map((m) => m.kind))],
    })
  }
  return [...screens.values()].sort((a, b) => a.line - b.line)
}
