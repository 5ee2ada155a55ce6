import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { PlanDiffNodeDto } from '../../shared/api/plan'
import { structuralDiff, formatStructuralDiff } from './structuralDiff'
import { parsePlan } from './parse'

const examples = join(import.meta.dirname, '../../../resources/plan/examples')
const load = (name: string) => parsePlan(readFileSync(join(examples, name), 'utf8'))

const plan = (screens: string) => parsePlan(`export default (\n<App name="a">\n${screens}\n</App>\n)\n`)
const screen = (name: string, sections: string, extra = '') =>
  `<Screen name="${name}">${extra}\n<Content>\n${sections}\n</Content>\n</Screen>`
const section = (gumdrop: string, inner = '', props = '') =>
  `<Section gumdrop="${gumdrop}" files={['src/${gumdrop}.ts']}${props}>\n${inner}\n</Section>`

const screens = (d: ReturnType<typeof structuralDiff>) => d.nodes.filter((n) => n.kind === 'screen')
const brief = (n: PlanDiffNodeDto) => [n.name, n.status]

describe('structuralDiff', () => {
  it('finds nothing between a plan and itself', () => {
    const p = load('landing-after-task-3.tsx')
    const d = structuralDiff(p, p)
    expect(d.identical).toBe(true)
    expect(formatStructuralDiff(d)).toBe('The two plans are structurally identical.')
  })

  it('reports reordered sections as moved, not as removed and added', () => {
    const a = plan(screen('landing', [section('hero'), section('features'), section('cta')].join('\n')))
    // The call to action moved to the top: it moved, the others kept their order.
    const b = plan(screen('landing', [section('cta'), section('hero'), section('features')].join('\n')))
    const d = structuralDiff(a, b)
    const landing = screens(d)[0]!
    expect(landing.children.map(brief)).toEqual([
      ['cta', 'moved'],
      ['hero', 'unchanged'],
      ['features', 'unchanged'],
    ])
    // The screen holding them changed (its order did); nothing was added, removed or edited.
    expect(landing.status).toBe('changed')
    expect(d.counts).toMatchObject({ added: 0, removed: 0, moved: 1, changed: 1 })
    // Lines of both sides, so a click can reveal either.
    const cta = landing.children[0]!
    expect(cta.before!.line).toBeGreaterThan(cta.after!.line)
  })

  it('pairs a renamed screen by position and keeps its sections matched', () => {
    const a = plan(screen('shop', section('grid-list')) + '\n' + screen('about', section('hero')))
    const b = plan(screen('store', section('grid-list')) + '\n' + screen('about', section('hero')))
    const d = structuralDiff(a, b)
    const [store, about] = screens(d)
    expect(store).toMatchObject({ name: 'store', previousName: 'shop', status: 'renamed' })
    expect(store!.props).toEqual([{ name: 'name', before: '"shop"', after: '"store"' }])
    expect(store!.children.map(brief)).toEqual([['grid-list', 'unchanged']])
    expect(about!.status).toBe('unchanged')
    expect(formatStructuralDiff(d)).toContain('→ screen "store" renamed (was "shop")')
  })

  it('keeps a marker-only change structurally unchanged and lists the marker', () => {
    const a = plan(screen('landing', section('features', '<Gumdrop use="card" />')))
    const b = plan(
      screen(
        'landing',
        section('features', '{/* TASK-2 [ADD]: 2 nighttime drinks */}\n<Gumdrop use="card" />'),
      ),
    )
    const d = structuralDiff(a, b)
    const features = screens(d)[0]!.children[0]!
    expect(features.status).toBe('unchanged')
    expect(features.props).toEqual([])
    expect(features.markersAdded).toMatchObject([{ kind: 'ADD', task: 2, count: 2, line: 6 }])
    expect(d.identical).toBe(false)
    expect(d.counts).toMatchObject({ changed: 0, markersAdded: 1 })
    // And the other way round: the marker removed.
    expect(structuralDiff(b, a).nodes[1]!.children[0]!.markersRemoved).toHaveLength(1)
  })

  it('reports a props-only change with each prop before and after, child props included', () => {
    const a = plan(
      screen('landing', section('features', '<Gumdrop use="card" variant="flavor" />', ' cols={4}')),
    )
    const b = plan(
      screen('landing', section('features', '<Gumdrop use="card" variant="night" />', ' cols={5}')),
    )
    const d = structuralDiff(a, b)
    const landing = screens(d)[0]!
    expect(landing.status).toBe('changed')
    expect(landing.children[0]).toMatchObject({ status: 'changed', markersAdded: [], markersRemoved: [] })
    expect(landing.children[0]!.props).toEqual([
      { name: 'cols', before: '4', after: '5' },
      { name: 'Gumdrop(card)', before: 'use="card" variant="flavor"', after: 'use="card" variant="night"' },
    ])
  })

  it('reports added and removed screens and sections where they were', () => {
    const a = plan(screen('landing', [section('hero'), section('cta')].join('\n')) + '\n' + screen('old', ''))
    const b = plan(screen('landing', [section('hero'), section('faq')].join('\n')) + '\n' + screen('new', ''))
    const d = structuralDiff(a, b)
    // Unmatched by gumdrop, cta and faq sit at the same position: matched by position, the gumdrop changed.
    expect(screens(d)[0]!.children.map(brief)).toEqual([
      ['hero', 'unchanged'],
      ['faq', 'changed'],
    ])
    expect(screens(d)[0]!.children[1]).toMatchObject({ previousName: 'cta' })
    // Screens are matched by name first, then by position: "old" became "new".
    expect(screens(d)[1]).toMatchObject({ name: 'new', previousName: 'old', status: 'renamed' })
    const c = plan(screen('landing', section('hero')) + '\n' + screen('extra', section('cta')))
    const e = structuralDiff(plan(screen('landing', section('hero'))), c)
    expect(screens(e).map(brief)).toEqual([
      ['landing', 'unchanged'],
      ['extra', 'added'],
    ])
    expect(screens(e)[1]!.children.map(brief)).toEqual([['cta', 'added']])
    expect(screens(structuralDiff(c, plan(screen('landing', section('hero')))))[1]).toMatchObject({
      status: 'removed',
      after: null,
    })
  })

  it('reads the VIBRANT ENERGY task-3 update: features changed with its ADD, store unchanged with NO CHANGES', () => {
    const d = structuralDiff(load('landing-before-task-3.tsx'), load('landing-after-task-3.tsx'))
    const [app, landing, store] = d.nodes
    expect(app!.markersAdded.map((m) => m.kind)).toEqual(['FIX', 'MODIFY'])
    const features = landing!.children.find((c) => c.name === 'features')!
    expect(features.status).toBe('changed')
    expect(features.props).toEqual([{ name: 'cols', before: '4', after: '5' }])
    expect(features.markersAdded.map((m) => m.kind)).toEqual(['ADD', 'PRESERVED'])
    expect(store).toMatchObject({ name: 'store', status: 'unchanged' })
    expect(store!.markersAdded.map((m) => m.kind)).toEqual(['NO_CHANGES'])
    expect(store!.children.map(brief)).toEqual([['grid-list', 'unchanged']])
  })
})
