// validatePlan: every rule id of PLAN_LANGUAGE.md "Validation". Failures block the PLAN → BUILD transition,
// warnings inform. Messages are written for the model: they say where and what to do.
import { commonGumdrops, componentNames, components, endpointPatterns } from './components'
import { parsePlan } from './parse'
import { listSections, prop, stringListProp, stringProp, walk } from './sections'
import { didYouMean } from './suggest'
import type { Finding, Plan, PlanComment, PlanElement, Position, Severity } from './types'

export const failureRules = [
  'parseable',
  'has-app-root',
  'has-screens',
  'sections-have-gumdrops',
  'no-empty-screens',
  'known-components',
  'required-props',
  'schema-endpoint-match',
  'valid-markers',
  'valid-gumdrops',
] as const
export const warningRules = [
  'has-theme',
  'missing-nav',
  'low-diversity',
  'adjacent-grids',
  'section-files-missing',
] as const
export type RuleId = (typeof failureRules)[number] | (typeof warningRules)[number]

export interface ValidateOptions {
  /** The current task. Markers for any other number fail valid-markers. Default: the highest number used. */
  taskNumber?: number | null
  /** Allowed gumdrop names from .ralph/gumdrops.json; valid-gumdrops runs only when given. */
  gumdrops?: readonly string[] | null
  /** Project-relative existence check for Section files; without it, existence is not checked. */
  fileExists?: (path: string) => boolean
}

export interface ValidationResult {
  valid: boolean
  /** The task number the markers were checked against (given or inferred), or null. */
  taskNumber: number | null
  findings: Finding[]
  failures: Finding[]
  warnings: Finding[]
}

const severityOf = (rule: RuleId): Severity =>
  (failureRules as readonly string[]).includes(rule) ? 'failure' : 'warning'

class Collector {
  readonly findings: Finding[] = []
  add(rule: RuleId, message: string, pos: Position, end?: Position): void {
    this.findings.push({
      rule,
      severity: severityOf(rule),
      message,
      line: pos.line,
      column: pos.column,
      ...(end ? { endLine: end.line, endColumn: end.column } : {}),
    })
  }
  at(rule: RuleId, el: PlanElement, message: string): void {
    this.add(rule, message, el.tagPos, el.tagEnd)
  }
}

const tagAt = (el: PlanElement): string => `<${el.tag}> at line ${el.pos.line}`
const quote = (s: string): string => `<${s}>`

function result(findings: Finding[], taskNumber: number | null): ValidationResult {
  findings.sort((a, b) => a.line - b.line || a.column - b.column)
  const failures = findings.filter((f) => f.severity === 'failure')
  const warnings = findings.filter((f) => f.severity === 'warning')
  return { valid: failures.length === 0, taskNumber, findings, failures, warnings }
}

function inferTask(plan: Plan): number | null {
  let max: number | null = null
  const visit = (c: PlanComment): void => {
    const t = c.marker?.task
    if (t != null && (max === null || t > max)) max = t
  }
  plan.looseComments.forEach(visit)
  for (const r of plan.roots) walk(r, (el) => el.comments.forEach(visit))
  return max
}

export function validatePlan(input: Plan | string, options: ValidateOptions = {}): ValidationResult {
  const plan = typeof input === 'string' ? parsePlan(input) : input
  const c = new Collector()
  const taskNumber = options.taskNumber === undefined ? inferTask(plan) : options.taskNumber

  // parseable: nothing else is trustworthy on a tree the parser had to guess at.
  if (plan.errors.length > 0) {
    for (const e of plan.errors) {
      c.add(
        'parseable',
        `Syntax error at line ${e.pos.line}, column ${e.pos.column}: ${e.message}. Fix the TSX so the plan ` +
          'parses: close every tag and write comments as {/* … */}.',
        e.pos,
      )
    }
    return result(c.findings, taskNumber)
  }

  const origin: Position = plan.rootPos ?? { line: 1, column: 1, offset: 0 }
  if (!checkRoot(plan, c, origin)) {
    checkMarkers(plan, c, taskNumber, options)
    return result(c.findings, taskNumber)
  }
  const app = plan.root as PlanElement

  checkComponents(app, c)
  checkScreens(app, c)
  checkSections(plan, app, c)
  checkData(app, c)
  checkMarkers(plan, c, taskNumber, options)
  if (options.gumdrops) checkGumdrops(app, c, options.gumdrops)
  checkSectionFiles(plan, c, taskNumber, options)
  return result(c.findings, taskNumber)
}

function checkRoot(plan: Plan, c: Collector, origin: Position): boolean {
  if (plan.source.trim() === '') {
    c.add(
      'has-app-root',
      'plan.tsx is empty. Write the plan as export default ( <App name="…"> <Theme … /> <Screen name="…"> … ' +
        '</Screen> </App> ).',
      origin,
    )
    return false
  }
  if (plan.roots.length === 0) {
    c.add(
      'has-app-root',
      'No plan tree found: the file must export the plan as export default ( <App name="…"> … </App> ).',
      origin,
    )
    return false
  }
  if (plan.roots.length > 1) {
    const tags = plan.roots.map((r) => `${quote(r.tag)} (line ${r.pos.line})`).join(', ')
    c.add(
      'has-app-root',
      `The plan has ${plan.roots.length} top-level elements (${tags}); a plan has a single <App> root. ` +
        'Wrap everything in one <App name="…">.',
      origin,
    )
    return false
  }
  const root = plan.roots[0] as PlanElement
  if (root.tag !== 'App') {
    c.at(
      'has-app-root',
      root,
      `The root element is <${root.tag}> (line ${root.pos.line}); a plan's root must be <App name="…">. ` +
        'Wrap the plan in <App> or rename the root.',
    )
    return false
  }
  return true
}

function checkComponents(app: PlanElement, c: Collector): void {
  walk(app, (el, ancestors) => {
    const spec = components[el.tag]
    if (!spec) {
      const hint = didYouMean(el.tag, componentNames, quote)
      const html = /^[a-z]/.test(el.tag) ? ' Plans use plan components, not HTML tags.' : ''
      c.at(
        'known-components',
        el,
        `Unknown component <${el.tag}> at line ${el.pos.line}.${hint || html} Known components: ` +
          `${componentNames.join(', ')}.`,
      )
      return
    }
    checkRequired(el, c)
    const parent = ancestors[ancestors.length - 1]
    if (!parent) return
    if (spec.parents === null) {
      c.at('known-components', el, `<${el.tag}> at line ${el.pos.line} must be the plan's root, not nested.`)
    } else if (components[parent.tag] && !spec.parents.includes(parent.tag)) {
      c.at(
        'known-components',
        el,
        `${tagAt(el)} cannot be inside <${parent.tag}>: put it inside ` +
          `${spec.parents.map(quote).join(' or ')}.`,
      )
    }
  })
}

function isMissing(el: PlanElement, name: string): boolean {
  const v = prop(el, name)
  return !v || (v.kind === 'string' && v.value.trim() === '')
}

function checkRequired(el: PlanElement, c: Collector): void {
  const spec = components[el.tag]
  if (!spec) return
  for (const name of spec.required) {
    // A Section's gumdrop has its own rule with a better message.
    if (el.tag === 'Section' && name === 'gumdrop') continue
    if (isMissing(el, name)) c.at('required-props', el, missingMessage(el, name))
  }
  const v = (name: string) => prop(el, name)
  if (el.tag === 'Section') {
    const files = v('files')
    if (files && !(files.kind === 'array' && files.items.every((i) => i.kind === 'string'))) {
      c.at(
        'required-props',
        el,
        `${tagAt(el)}: files must be a list of project-relative paths, e.g. files={['src/components/Hero.tsx']}.`,
      )
    }
  }
  if (el.tag === 'Rule') {
    const given = ['no', 'always', 'prefer'].filter((n) => v(n))
    if (given.length !== 1) {
      c.at(
        'required-props',
        el,
        `${tagAt(el)} needs exactly one of no, always or prefer (it has ${given.length || 'none'}), ` +
          'e.g. <Rule no="hardcoded colors" />.',
      )
    }
  }
  if (el.tag === 'Schema') {
    const fields = v('fields')
    if (
      fields &&
      !(fields.kind === 'object' && Object.values(fields.entries).every((f) => f.kind === 'string'))
    ) {
      c.at(
        'required-props',
        el,
        `${tagAt(el)}: fields must be an object of type names, e.g. fields={{ id: 'uuid', title: 'string' }}.`,
      )
    }
  }
  if (el.tag === 'Endpoint') {
    const pattern = stringProp(el, 'pattern')
    if (pattern !== null && !(endpointPatterns as readonly string[]).includes(pattern)) {
      c.at(
        'required-props',
        el,
        `${tagAt(el)}: pattern "${pattern}" is not one of ${endpointPatterns.join(', ')}.` +
          didYouMean(pattern, endpointPatterns, (s) => `"${s}"`),
      )
    }
  }
  if (el.tag === 'Theme') {
    const seed = v('seed')
    if (seed && seed.kind !== 'number') {
      c.at('required-props', el, `${tagAt(el)}: seed must be a number, e.g. seed={140}.`)
    }
  }
  for (const name of spec.required) {
    const value = v(name)
    if (value?.kind === 'expression') {
      c.at(
        'required-props',
        el,
        `${tagAt(el)}: ${name} is an expression the plan reader cannot evaluate (${value.text}); ` +
          'write it as a literal.',
      )
    }
  }
}

const examples: Record<string, string> = {
  name: 'name="…"',
  label: 'label="…"',
  files: "files={['src/…']}",
  use: 'use="…"',
  field: 'field="…"',
  trigger: 'trigger="…"',
  intent: 'intent="…"',
  fields: "fields={{ id: 'uuid' }}",
  resource: 'resource="…"',
  pattern: 'pattern="crud"',
}

function missingMessage(el: PlanElement, name: string): string {
  const example = examples[name] ?? `${name}="…"`
  if (el.tag === 'Section' && name === 'files') {
    return (
      `Section at line ${el.pos.line} has no files — which source files will it live in? Add ${example} ` +
      'so scope gates can check it.'
    )
  }
  return `${tagAt(el)} is missing the required prop ${name}: add ${example}.`
}

function checkScreens(app: PlanElement, c: Collector): void {
  const screens = app.children.filter((ch) => ch.tag === 'Screen')
  if (screens.length === 0) {
    c.at(
      'has-screens',
      app,
      `<App> at line ${app.pos.line} has no <Screen>. Add at least one, e.g. <Screen name="home"> <Content> ` +
        '<Section gumdrop="hero" files={[…]} /> </Content> </Screen>.',
    )
  }
  for (const s of screens) {
    let sections = 0
    walk(s, (el) => {
      if (el.tag === 'Section' || el.tag === 'Custom') sections++
    })
    if (sections === 0) {
      const name = stringProp(s, 'name')
      c.at(
        'no-empty-screens',
        s,
        `Screen ${name ? `"${name}" ` : ''}at line ${s.pos.line} is empty. Give it a <Content> with at least ` +
          'one <Section>, or remove the screen.',
      )
    }
  }
  const hasTheme = app.children.some((ch) => ch.tag === 'Theme')
  if (!hasTheme) {
    c.at(
      'has-theme',
      app,
      `<App> at line ${app.pos.line} has no <Theme>: add <Theme mood="…" /> so the build has a visual direction.`,
    )
  }
  let hasNav = false
  walk(app, (el) => {
    if (el.tag === 'Nav') hasNav = true
  })
  if (screens.length > 1 && !hasNav) {
    c.at(
      'missing-nav',
      app,
      `The plan has ${screens.length} screens but no <Nav>: add a <Nav> with a <NavItem> per screen so users ` +
        'can move between them.',
    )
  }
}

const isGrid = (el: PlanElement): boolean => {
  const g = stringProp(el, 'gumdrop') ?? ''
  return /grid|gallery|cards/.test(g) || g === 'features'
}

function checkSections(plan: Plan, app: PlanElement, c: Collector): void {
  for (const s of listSections(plan)) {
    if (isMissing(s.element, 'gumdrop')) {
      c.at(
        'sections-have-gumdrops',
        s.element,
        `Section at line ${s.element.pos.line} has no gumdrop — which recipe should it follow? ` +
          `Add gumdrop="…" (e.g. ${commonGumdrops.slice(0, 4).join(', ')}).`,
      )
    }
  }
  walk(app, (el) => {
    if (el.tag === 'Screen') {
      const gumdrops: string[] = []
      walk(el, (s) => {
        const g = s.tag === 'Section' ? stringProp(s, 'gumdrop') : null
        if (g) gumdrops.push(g)
      })
      const distinct = new Set(gumdrops).size
      if (gumdrops.length >= 3 && distinct < Math.ceil(gumdrops.length / 2)) {
        c.at(
          'low-diversity',
          el,
          `Screen "${stringProp(el, 'name') ?? '?'}" at line ${el.pos.line} has ${gumdrops.length} sections but ` +
            `only ${distinct} gumdrop${distinct === 1 ? '' : 's'} (${[...new Set(gumdrops)].join(', ')}): ` +
            'vary the recipes so the page does not repeat itself.',
        )
      }
    }
    for (let i = 1; i < el.children.length; i++) {
      const a = el.children[i - 1] as PlanElement
      const b = el.children[i] as PlanElement
      if (a.tag === 'Section' && b.tag === 'Section' && isGrid(a) && isGrid(b)) {
        c.at(
          'adjacent-grids',
          b,
          `Sections at lines ${a.pos.line} and ${b.pos.line} are both grids (${stringProp(a, 'gumdrop')}, ` +
            `${stringProp(b, 'gumdrop')}): put a different section between them or merge them.`,
        )
      }
    }
  })
}

const normalizeResource = (s: string): string =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '')
    .replace(/(ies)$/, 'y')
    .replace(/(ses|xes|ches|shes)$/, (m) => m.slice(0, -2))
    .replace(/s$/, '')

function checkData(app: PlanElement, c: Collector): void {
  const schemas: string[] = []
  const endpoints: PlanElement[] = []
  walk(app, (el) => {
    if (el.tag === 'Schema') {
      const n = stringProp(el, 'name')
      if (n) schemas.push(n)
    }
    if (el.tag === 'Endpoint') endpoints.push(el)
  })
  const known = new Set(schemas.map(normalizeResource))
  for (const e of endpoints) {
    const resource = stringProp(e, 'resource')
    if (!resource || known.has(normalizeResource(resource))) continue
    c.at(
      'schema-endpoint-match',
      e,
      `Endpoint "${resource}" at line ${e.pos.line} has no matching <Schema>.` +
        (didYouMean(resource, schemas, (s) => `"${s}"`) ||
          ` Add <Schema name="${resource}" fields={{ … }} /> inside <Data>.`),
    )
  }
}

function checkMarkers(plan: Plan, c: Collector, task: number | null, options: ValidateOptions): void {
  const check = (cm: PlanComment, owner: PlanElement | null): void => {
    if (cm.problem) {
      c.add('valid-markers', `${cm.problem} (line ${cm.pos.line}).`, cm.pos, cm.end)
      return
    }
    const m = cm.marker
    if (!m) return
    if (!owner) {
      c.add(
        'valid-markers',
        `Marker at line ${cm.pos.line} is outside every element: move it inside the element it applies to.`,
        cm.pos,
        cm.end,
      )
      return
    }
    if (task !== null && m.task !== null && m.task !== task) {
      c.add(
        'valid-markers',
        `Marker at line ${cm.pos.line} is for task ${m.task}, but the current task is ${task}: markers from ` +
          `earlier tasks are stale — remove it or rewrite it for task ${task}.`,
        cm.pos,
        cm.end,
      )
      return
    }
    if (m.kind === 'REMOVE') {
      const files = owner.tag === 'Section' ? (stringListProp(owner, 'files') ?? []) : []
      const exists = options.fileExists
      const empty = owner.children.length === 0 && files.length === 0 && owner.tag !== 'Section'
      if (owner.tag === 'App' || empty || (exists && files.length > 0 && !files.some((f) => exists(f)))) {
        c.add(
          'valid-markers',
          `[REMOVE] at line ${cm.pos.line} targets something that does not exist` +
            (files.length > 0 ? ` (none of ${files.join(', ')} exists)` : '') +
            ': put the marker inside the element to remove.',
          cm.pos,
          cm.end,
        )
      }
    }
  }
  plan.looseComments.forEach((cm) => check(cm, null))
  for (const r of plan.roots) walk(r, (el) => el.comments.forEach((cm) => check(cm, el)))
}

function checkGumdrops(app: PlanElement, c: Collector, allowed: readonly string[]): void {
  const set = new Set(allowed)
  walk(app, (el) => {
    for (const name of ['gumdrop', 'use']) {
      if (name === 'use' && el.tag !== 'Gumdrop') continue
      const g = stringProp(el, name)
      if (g === null || g === '' || set.has(g)) continue
      c.at(
        'valid-gumdrops',
        el,
        `Gumdrop "${g}" (${tagAt(el)}) is not in .ralph/gumdrops.json.` +
          (didYouMean(g, allowed, (s) => `"${s}"`) || ` Use one of: ${allowed.slice(0, 12).join(', ')}.`),
      )
    }
  })
}

function checkSectionFiles(plan: Plan, c: Collector, task: number | null, options: ValidateOptions): void {
  for (const s of listSections(plan)) {
    const marked = s.ownMarkers.some((m) => task === null || m.task === task || m.task === null)
    if (!marked) continue
    if (s.files.length === 0) {
      c.at(
        'section-files-missing',
        s.element,
        `Section ${s.label} has change markers but no files: list its source files in files={[…]} so the ` +
          'scope gates can check the change.',
      )
      continue
    }
    if (!options.fileExists) continue
    const adds = s.ownMarkers.some((m) => m.kind === 'ADD')
    for (const f of s.files) {
      if (options.fileExists(f)) continue
      c.at(
        'section-files-missing',
        s.element,
        `Section ${s.label} lists ${f}, which does not exist` +
          (adds ? ' yet (fine if this task creates it).' : ': fix the path or create the file.'),
      )
    }
  }
}
