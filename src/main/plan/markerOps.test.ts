import { describe, expect, it } from 'vitest'
import { listMarkers, stripStaleMarkers } from './markerOps'
import { parsePlan } from './parse'

const text = `export default (
  <App name="x">
    <Screen name="home">
      <Content>
        <Section gumdrop="hero" files={['src/Hero.tsx']}>
          {/* TASK-2 [MODIFY]: old copy change */}
          {/* PRESERVED — keep the logo */}
          <Slot name="headline" />
        </Section>
        <Section gumdrop="features" files={['src/F.tsx']}>
          {/* TASK-3 [ADD]: 2 cards */}
          {/* EXISTING 8 cards PRESERVED */}
        </Section>
      </Content>
    </Screen>
    <Screen name="store">
      {/* NO CHANGES for task-3 */}
      <Content>
        <Section gumdrop="grid-list" files={['src/Store.tsx']}>{/* NO CHANGES for task-2 */}</Section>
      </Content>
    </Screen>
  </App>
)
`

describe('listMarkers', () => {
  it('lists the sections with markers for task N, including inherited NO CHANGES', () => {
    const list = listMarkers(parsePlan(text), 3)
    expect(list.map((s) => [s.section.label, s.markers.map((m) => m.kind)])).toEqual([
      ['home › hero (line 5)', ['PRESERVED']],
      ['home › features (line 10)', ['ADD', 'PRESERVED']],
      ['store › grid-list (line 19)', ['NO_CHANGES']],
    ])
  })
})

describe('stripStaleMarkers', () => {
  it('removes markers of other tasks (and PRESERVED that sat with them), keeping the rest byte for byte', () => {
    const { text: out, removed } = stripStaleMarkers(parsePlan(text), 3)
    expect(removed.map((r) => [r.line, r.task])).toEqual([
      [6, 2],
      [7, null],
      [19, 2],
    ])
    expect(out).not.toMatch(/TASK-2|keep the logo|task-2/)
    expect(out).toContain('{/* TASK-3 [ADD]: 2 cards */}')
    expect(out).toContain('{/* NO CHANGES for task-3 */}')
    expect(out).toContain(`<Section gumdrop="grid-list" files={['src/Store.tsx']}></Section>`)
    expect(out.split('\n')).toHaveLength(text.split('\n').length - 2)
    expect(parsePlan(out).errors).toEqual([])
  })

  it('at the start of a new task strips everything, including lone PRESERVED markers when asked', () => {
    const plan = parsePlan(text)
    const { text: out } = stripStaleMarkers(plan, 4, { stripUnnumbered: true })
    expect(out).not.toMatch(/TASK-|PRESERVED|NO CHANGES/)
    const lone = parsePlan('export default (<App name="a">{/* PRESERVED: the logo */}</App>)')
    expect(stripStaleMarkers(lone, 4).removed).toEqual([])
    expect(stripStaleMarkers(lone, 4, { stripUnnumbered: true }).text).toBe(
      'export default (<App name="a"></App>)',
    )
  })

  it('returns the text unchanged when nothing is stale', () => {
    const clean = 'export default (<App name="a" />)'
    expect(stripStaleMarkers(parsePlan(clean), 1)).toEqual({ text: clean, removed: [] })
  })
})
