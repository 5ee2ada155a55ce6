// What each marker's gate will check, in words and with numbers, for the editor's hovers: "[ADD] 2: the features
// section must grow from 8 to 10 flavors". Counts come from the same item counter the scope gates use, read at
// task-N-pre when that snapshot exists (that is what the gates compare with), else from the working tree.
import { countOf } from '../../shared/format'
import type { MarkerHint } from '../../shared/api/plan'
import { snapshotTags } from '../snapshots'
import { countItems } from './count'
import { cachedSource, normalizePath, type FileSource } from './fileSource'
import { listSections, markersFor, walk, type PlanSection } from './sections'
import type { Marker, Plan } from './types'

/** The snapshot a NO CHANGES marker is checked against (an unnumbered marker: the running task's). */
const preTag = (task: number | null): string =>
  task === null ? "the task's pre-task snapshot" : snapshotTags.taskPre(task)

/** Items in a section's files: the largest list of each file, each list once. Null when none can be counted. */
async function countSection(s: PlanSection, source: FileSource) {
  let total = 0
  let found = false
  let name: string | null = null
  const seen = new Set<string>()
  for (const p of s.files) {
    const path = normalizePath(p)
    const text = await source.read(path)
    if (text === null) continue
    const c = await countItems(path, text, source)
    if (!c.ok || !c.best) continue
    const id = `${c.best.origin}\u0000${c.best.key}`
    if (seen.has(id)) continue
    seen.add(id)
    found = true
    total += c.best.count
    name ??= c.best.name
  }
  return found ? { count: total, name } : null
}

function hintFor(
  m: Marker,
  s: PlanSection,
  counted: { count: number; name: string | null } | null,
  where: string,
): string {
  const noun = m.noun ?? counted?.name ?? 'items'
  const section = `the ${s.gumdrop ?? '(no gumdrop)'} section`
  const files = s.files.length
    ? countOf(s.files.length, 'files')
    : 'no files (add files={[…]} so it can be checked)'
  switch (m.kind) {
    case 'ADD':
      if (m.count === null)
        return `[ADD]: new content must appear in ${section}'s ${files}; without a number only a warning checks it.`
      return counted
        ? `[ADD] ${m.count}: ${section} must grow from ${counted.count} to ${counted.count + m.count} ${noun} (${where}); ` +
            `unchanged or fewer fails, another number warns.`
        : `[ADD] ${m.count}: ${section} must grow by ${m.count} ${noun}; its files' items cannot be counted yet.`
    case 'PRESERVED':
      return counted
        ? `PRESERVED: none of the ${counted.count} ${noun} in ${section} may go or be converted (${where}).`
        : `PRESERVED: nothing in ${section}'s ${files} may be removed or converted.`
    case 'MODIFY':
      return `[MODIFY]: ${section} must still exist with gumdrop "${s.gumdrop}", and one of its ${files} should change.`
    case 'FIX':
      return `[FIX]: one of ${section}'s ${files} must change (the plan-diff gate checks it).`
    case 'REMOVE':
      return `[REMOVE]: the target must be gone from ${section}'s ${files} (fewer items, or its name no longer there).`
    case 'NO_CHANGES':
      return `NO CHANGES: ${section}'s ${files} must stay byte-identical to ${preTag(m.task)}.`
  }
}

/**
 * One hint per marker line. Markers on sections speak about that section; NO CHANGES and PRESERVED on a Screen,
 * Content or Aside speak about every section they cover; markers elsewhere (Theme) say no scope gate reads them.
 */
export async function markerHints(
  plan: Plan,
  task: number | null,
  source: FileSource,
  where: string,
): Promise<MarkerHint[]> {
  const src = cachedSource(source)
  const sections = listSections(plan)
  const bySection = new Map(sections.map((s) => [s.element, s]))
  const hints: MarkerHint[] = []
  for (const root of plan.roots) {
    const visits: Promise<void>[] = []
    walk(root, (el) => {
      for (const c of el.comments) {
        const m = c.marker
        if (!m) continue
        const line = c.pos.line
        const own = bySection.get(el)
        visits.push(
          (async () => {
            if (own) {
              const applies = task === null || markersFor(own, task).includes(m) || m.task === null
              const counted = m.kind === 'ADD' || m.kind === 'PRESERVED' ? await countSection(own, src) : null
              const stale =
                !applies && m.task !== null
                  ? ` This marker is for task ${m.task}, not ${task}: it is stale.`
                  : ''
              hints.push({ line, kind: m.kind, message: hintFor(m, own, counted, where) + stale })
              return
            }
            const covered = sections.filter((s) => s.inheritedMarkers.includes(m))
            if (covered.length > 0 && (m.kind === 'NO_CHANGES' || m.kind === 'PRESERVED')) {
              const files = new Set(covered.flatMap((s) => s.files)).size
              const what =
                m.kind === 'NO_CHANGES'
                  ? `must stay byte-identical to ${preTag(m.task)}`
                  : 'may lose no items'
              hints.push({
                line,
                kind: m.kind,
                message: `${m.kind === 'NO_CHANGES' ? 'NO CHANGES' : 'PRESERVED'}: covers ${countOf(covered.length, 'sections')}; their ${countOf(files, 'files')} ${what} (unless a section carries its own marker).`,
              })
              return
            }
            hints.push({
              line,
              kind: m.kind,
              message:
                `${m.kind === 'NO_CHANGES' ? 'NO CHANGES' : m.kind === 'PRESERVED' ? 'PRESERVED' : `[${m.kind}]`} on <${el.tag}>: ` +
                'no scope gate reads files here (gates check Sections); it tells the model what the task is about.',
            })
          })(),
        )
      }
    })
    await Promise.all(visits)
  }
  return hints.sort((a, b) => a.line - b.line)
}
