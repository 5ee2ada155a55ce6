import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { diffPlans, formatPlanDiff } from './diff'
import { parsePlan } from './parse'

const examples = join(import.meta.dirname, '../../../resources/plan/examples')
const load = (name: string) => parsePlan(readFileSync(join(examples, name), 'utf8'))

describe('diffPlans', () => {
  it('shows the task-3 update of the VIBRANT ENERGY plan', () => {
    const d = diffPlans(load('landing-before-task-3.tsx'), load('landing-after-task-3.tsx'))
    expect(d.identical).toBe(false)
    expect(d.sectionsAdded).toEqual([])
    expect(d.sectionsRemoved).toEqual([])
    expect(d.sectionsChanged).toHaveLength(1)
    expect(d.sectionsChanged[0]?.section.label).toBe('landing › features (line 28)')
    expect(d.sectionsChanged[0]?.changes).toEqual([{ name: 'cols', before: '4', after: '5' }])
    expect(d.markersAdded.map((m) => [m.element, m.marker.kind])).toEqual([
      ['<Theme>', 'FIX'],
      ['<Theme>', 'MODIFY'],
      ['landing › hero (line 22)', 'MODIFY'],
      ['landing › features (line 28)', 'ADD'],
      ['landing › features (line 28)', 'PRESERVED'],
      ['landing › cta (line 34)', 'MODIFY'],
      ['screen "store"', 'NO_CHANGES'],
    ])
    const text = formatPlanDiff(d)
    expect(text).toContain('~ section landing › features (line 28)\n    cols: 4 → 5')
    expect(text).toContain(
      '+ marker in landing › features (line 28): TASK-3 [ADD]: 2 nighttime drink flavors',
    )
  })

  it('reports added and removed sections and screens', () => {
    const a = parsePlan(
      `export default (<App name="a"><Screen name="s"><Content><Section gumdrop="hero" files={[]} /></Content></Screen></App>)`,
    )
    const b = parsePlan(
      `export default (<App name="a"><Screen name="s"><Content><Section gumdrop="cta" files={[]} /></Content></Screen><Screen name="t" /></App>)`,
    )
    const d = diffPlans(a, b)
    expect(d.screensAdded).toEqual(['t'])
    expect(d.sectionsAdded.map((s) => s.gumdrop)).toEqual(['cta'])
    expect(d.sectionsRemoved.map((s) => s.gumdrop)).toEqual(['hero'])
    expect(diffPlans(a, a).identical).toBe(true)
  })
})
