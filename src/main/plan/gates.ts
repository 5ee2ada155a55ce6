// Scope gates (PLAN_LANGUAGE.md "Scope gates", seed 000 §7): for each Section with markers for task N, compare
// its files at task-N-pre with now. They catch "converted 4 instead of adding 2" and "removed items".
import { countOf } from '../../shared/format'
import { countItems, matchList, type ItemList } from './count'
import { cachedSource, normalizePath, type FileSource } from './fileSource'
import { listSections, markersFor, type PlanSection } from './sections'
import type { GateResult, GateSeverity, Marker, Plan } from './types'

export const scopeGateIds = [
  'scope-add',
  'scope-preserved',
  'scope-modify',
  'scope-remove',
  'scope-no-changes',
  'scope-count',
  'scope-files',
] as const

export interface ScopeGateInput {
  plan: Plan
  task: number
  /** Files at task-N-pre (the snapshot engine's `show`). */
  before: FileSource
  /** Files now (the working tree). */
  now: FileSource
  /** The plan at task-N-pre, when known: lets [MODIFY] check that the section kept its gumdrop. */
  beforePlan?: Plan | null
}

interface FileState {
  path: string
  before: string | null
  now: string | null
}

interface Tally {
  /** False when a file could not be counted (syntax error, unsupported type): count checks are skipped. */
  known: boolean
  found: boolean
  before: number
  now: number
  beforeItems: string[]
  nowItems: string[]
  name: string | null
  file: string | null
}

const shortList = (items: string[], max = 6): string => {
  const cut = items.map((i) => (i.length > 40 ? `${i.slice(0, 37)}…` : i))
  return cut.length > max ? `${cut.slice(0, max).join(', ')} and ${cut.length - max} more` : cut.join(', ')
}

/** Items of `before` missing from `now`, counted as a multiset so duplicates are not double-matched. */
export function missingItems(before: string[], now: string[]): string[] {
  const left = new Map<string, number>()
  for (const i of now) left.set(i, (left.get(i) ?? 0) + 1)
  const missing: string[] = []
  for (const i of before) {
    const n = left.get(i) ?? 0
    if (n > 0) left.set(i, n - 1)
    else missing.push(i)
  }
  return missing
}

async function tally(
  files: FileState[],
  before: FileSource,
  now: FileSource,
  out: GateResult[],
  s: PlanSection,
) {
  const t: Tally = {
    known: true,
    found: false,
    before: 0,
    now: 0,
    beforeItems: [],
    nowItems: [],
    name: null,
    file: null,
  }
  const seen = new Set<string>()
  for (const f of files) {
    const bc = f.before === null ? null : await countItems(f.path, f.before, before)
    const nc = f.now === null ? null : await countItems(f.path, f.now, now)
    for (const [c, when] of [
      [bc, 'at task-N-pre'],
      [nc, 'now'],
    ] as const) {
      if (c && !c.ok) {
        if (c.reason === 'syntax') t.known = false
        out.push(result('scope-count', 'warning', `Could not count items ${when}: ${c.message}.`, f.path, s))
      }
    }
    const bl: ItemList | null = bc?.ok ? bc.best : null
    const nl: ItemList | null = nc ? matchList(bl, nc) : null
    const ref = bl ?? nl
    if (!ref) continue
    const id = `${ref.origin}\u0000${ref.key}`
    if (seen.has(id)) continue // a component's .map() and its data file count the same items once
    seen.add(id)
    t.found = true
    t.before += bl?.count ?? 0
    t.now += nl?.count ?? 0
    t.beforeItems.push(...(bl?.items ?? []))
    t.nowItems.push(...(nl?.items ?? []))
    t.name ??= ref.name
    t.file ??= ref.origin
  }
  return t
}

function result(gate: string, severity: GateSeverity, message: string, file: string | null, s: PlanSection) {
  return { gate, severity, message, file, section: s.label }
}

/** Index of each section within its screen, for matching against the plan at task-N-pre. */
function screenIndex(sections: PlanSection[], s: PlanSection): number {
  return sections.filter((x) => x.screen === s.screen).indexOf(s)
}

export async function runScopeGates(input: ScopeGateInput): Promise<GateResult[]> {
  const before = cachedSource(input.before)
  const now = cachedSource(input.now)
  const out: GateResult[] = []
  const sections = listSections(input.plan)
  const beforeSections = input.beforePlan ? listSections(input.beforePlan) : null

  for (const s of sections) {
    const markers = markersFor(s, input.task)
    if (markers.length === 0) continue
    if (s.files.length === 0) {
      out.push(
        result(
          'scope-files',
          'warning',
          `Section has markers for task ${input.task} but no files, so its scope cannot be checked: add files={[…]}.`,
          null,
          s,
        ),
      )
      continue
    }
    const files: FileState[] = await Promise.all(
      s.files.map(async (p) => {
        const path = normalizePath(p)
        return { path, before: await before.read(path), now: await now.read(path) }
      }),
    )
    const kinds = new Set(markers.map((m) => m.kind))
    const needsCount = kinds.has('ADD') || kinds.has('PRESERVED') || kinds.has('REMOVE')
    const t = needsCount ? await tally(files, before, now, out, s) : null
    const changed = files.filter((f) => f.before !== f.now)

    if (t) {
      const adds = markers.filter((m) => m.kind === 'ADD')
      if (adds.length > 0) out.push(...addGate(adds, markers, t, changed.length > 0, input.task, s))
      if (kinds.has('PRESERVED')) out.push(preservedGate(markers, t, files, s))
      if (kinds.has('REMOVE')) {
        out.push(
          removeGate(
            markers.filter((m) => m.kind === 'REMOVE'),
            t,
            files,
            changed.length > 0,
            s,
          ),
        )
      }
    }
    if (kinds.has('MODIFY')) out.push(modifyGate(s, files, beforeSections, sections, input.task))
    if (kinds.has('NO_CHANGES')) {
      if (changed.length === 0) {
        out.push(
          result(
            'scope-no-changes',
            'pass',
            `NO CHANGES: ${countOf(files.length, 'files')} unchanged.`,
            null,
            s,
          ),
        )
      }
      for (const f of changed) {
        const what = f.before === null ? 'was created' : f.now === null ? 'was deleted' : 'was modified'
        out.push(
          result(
            'scope-no-changes',
            'warning',
            `${f.path} ${what}, but the plan marks its section "NO CHANGES for task-${input.task}". Undo the ` +
              'change unless it was needed for a marked section.',
            f.path,
            s,
          ),
        )
      }
    }
  }
  return out
}

function nounFor(markers: Marker[], t: Tally): string {
  return (
    markers.find((m) => m.kind === 'ADD' && m.noun)?.noun ??
    markers.find((m) => m.kind === 'PRESERVED' && m.noun)?.noun ??
    t.name ??
    'items'
  )
}

function addGate(
  adds: Marker[],
  markers: Marker[],
  t: Tally,
  anyChange: boolean,
  task: number,
  s: PlanSection,
): GateResult[] {
  const noun = nounFor(markers, t)
  const counted = adds.filter((m) => m.count !== null)
  const expected = counted.reduce((sum, m) => sum + (m.count ?? 0), 0)
  if (counted.length === 0 || !t.known || !t.found) {
    const grew = t.found && t.known && t.now > t.before
    if (grew || anyChange) {
      const note = counted.length > 0 ? ' (items could not be counted, so the number was not checked)' : ''
      return [result('scope-add', 'pass', `ADD: new content found${note}.`, t.file, s)]
    }
    return [
      result(
        'scope-add',
        'warning',
        `ADD marker (TASK-${task}) but nothing new in the section's files: add the new ${noun}.`,
        t.file,
        s,
      ),
    ]
  }
  const delta = t.now - t.before
  const target = t.before + expected
  const spec = `ADD marker specified ${expected} new ${noun}`
  if (delta === expected) {
    return [result('scope-add', 'pass', `${spec}: ${t.before} → ${t.now}.`, t.file, s)]
  }
  if (delta === 0) {
    return [
      result(
        'scope-add',
        'failure',
        `${spec}; count unchanged (${t.before}). Add ${expected} new ${noun} next to the existing ones ` +
          `(expected ${target}) instead of changing existing ones.`,
        t.file,
        s,
      ),
    ]
  }
  if (delta < 0) {
    return [
      result(
        'scope-add',
        'failure',
        `${spec}, but the count went down from ${t.before} to ${t.now} (expected ${target}).`,
        t.file,
        s,
      ),
    ]
  }
  return [result('scope-add', 'warning', `${spec}: expected ${target}, found ${t.now}.`, t.file, s)]
}

function preservedGate(markers: Marker[], t: Tally, files: FileState[], s: PlanSection): GateResult {
  const noun = nounFor(markers, t)
  const deleted = files.filter((f) => f.before !== null && f.now === null)
  if (deleted.length > 0) {
    return result(
      'scope-preserved',
      'failure',
      `PRESERVED violation: ${deleted.map((f) => f.path).join(', ')} was deleted. Restore it.`,
      deleted[0]?.path ?? null,
      s,
    )
  }
  if (!t.known || !t.found) {
    return result('scope-preserved', 'pass', 'PRESERVED: no countable items; files still exist.', t.file, s)
  }
  const missing = missingItems(t.beforeItems, t.nowItems)
  if (t.now < t.before) {
    return result(
      'scope-preserved',
      'failure',
      `PRESERVED violation: had ${t.before} ${noun}, now ${t.now}` +
        (missing.length > 0 ? ` (removed: ${shortList(missing)})` : '') +
        `. Restore the pre-task ${noun}.`,
      t.file,
      s,
    )
  }
  if (missing.length > 0) {
    return result(
      'scope-preserved',
      'failure',
      `PRESERVED violation: ${missing.length} of the ${t.before} pre-task ${noun} are gone or were converted ` +
        `(${shortList(missing)}), although the count is ${t.now}. Restore them and add new ${noun} next to them.`,
      t.file,
      s,
    )
  }
  return result(
    'scope-preserved',
    'pass',
    `PRESERVED: all ${t.before} pre-task ${noun} still present.`,
    t.file,
    s,
  )
}

function removeGate(removes: Marker[], t: Tally, files: FileState[], anyChange: boolean, s: PlanSection) {
  if (files.every((f) => f.now === null)) {
    return result('scope-remove', 'pass', 'REMOVE: the section files are gone.', null, s)
  }
  if (t.known && t.found && t.now < t.before) {
    return result('scope-remove', 'pass', `REMOVE: ${t.before - t.now} item(s) removed.`, t.file, s)
  }
  if (!anyChange) {
    return result(
      'scope-remove',
      'warning',
      `REMOVE marker ("${removes[0]?.description}") but the section's files are unchanged: remove the target.`,
      null,
      s,
    )
  }
  for (const m of removes) {
    for (const target of removeTargets(m.description)) {
      const f = files.find((x) => x.now !== null && x.now.toLowerCase().includes(target.toLowerCase()))
      if (f) {
        return result('scope-remove', 'warning', `REMOVE: "${target}" still appears in ${f.path}.`, f.path, s)
      }
    }
  }
  return result(
    'scope-remove',
    'pass',
    'REMOVE: the section changed and the target no longer appears.',
    null,
    s,
  )
}

/** Quoted names in a REMOVE description, else the whole description when it is a short name. */
function removeTargets(description: string): string[] {
  const quoted = [...description.matchAll(/["'“‘`]([^"'”’`]{2,60})["'”’`]/g)].map((m) => m[1] ?? '')
  if (quoted.length > 0) return quoted
  const bare = description.replace(/\(.*?\)/g, '').trim()
  return bare.split(/\s+/).length <= 4 && bare.length >= 3 ? [bare] : []
}

function modifyGate(
  s: PlanSection,
  files: FileState[],
  beforeSections: PlanSection[] | null,
  sections: PlanSection[],
  task: number,
): GateResult {
  const deleted = files.filter((f) => f.before !== null && f.now === null)
  if (deleted.length > 0) {
    return result(
      'scope-modify',
      'warning',
      `MODIFY keeps the section, but ${deleted.map((f) => f.path).join(', ')} was deleted.`,
      deleted[0]?.path ?? null,
      s,
    )
  }
  if (beforeSections) {
    const idx = screenIndex(sections, s)
    const prev = beforeSections.filter((x) => x.screen === s.screen)[idx]
    if (prev && prev.gumdrop !== s.gumdrop) {
      return result(
        'scope-modify',
        'warning',
        `MODIFY (TASK-${task}) changes content, not structure, but the section's gumdrop changed from ` +
          `"${prev.gumdrop}" to "${s.gumdrop}".`,
        null,
        s,
      )
    }
  }
  return result('scope-modify', 'pass', `MODIFY: section still exists with gumdrop "${s.gumdrop}".`, null, s)
}
