import { describe, expect, it } from 'vitest'
import { extractCount, parseMarker } from './markers'

describe('parseMarker', () => {
  it('reads the four TASK kinds with description and ADD count', () => {
    const add = parseMarker('/* TASK-3 [ADD]: 2 nighttime drink flavors (Moonlit Calm, Deep Rest) */')
    expect(add.marker).toMatchObject({ kind: 'ADD', task: 3, count: 2, noun: 'flavors' })
    expect(parseMarker('/* TASK-3 [MODIFY]: refine copy */').marker).toMatchObject({
      kind: 'MODIFY',
      count: null,
    })
    expect(parseMarker('/* TASK-12 [FIX]: theme toggle */').marker).toMatchObject({ kind: 'FIX', task: 12 })
    expect(parseMarker('/* TASK-3 [REMOVE]: newsletter signup */').marker?.kind).toBe('REMOVE')
  })

  it('reads number words two … twelve', () => {
    expect(parseMarker('/* TASK-4 [ADD]: three more testimonials */').marker).toMatchObject({
      count: 3,
      noun: 'testimonials',
    })
    expect(extractCount('twelve new cards for the grid')).toEqual({ count: 12, noun: 'cards' })
    expect(extractCount('a hero image').count).toBeNull()
  })

  it('reads NO CHANGES and PRESERVED', () => {
    expect(parseMarker('/* NO CHANGES for task-3 — preserve as-is */').marker).toMatchObject({
      kind: 'NO_CHANGES',
      task: 3,
    })
    expect(parseMarker('/* EXISTING 8 flavors PRESERVED — do not remove or convert */').marker).toMatchObject(
      {
        kind: 'PRESERVED',
        task: null,
        count: 8,
        noun: 'flavors',
      },
    )
    expect(parseMarker('/* PRESERVED — do not remove or convert */').marker?.kind).toBe('PRESERVED')
  })

  it('reports malformed markers with a fix, and ignores ordinary comments', () => {
    expect(parseMarker('/* TASK-3 [ADDD]: 2 more */').problem).toMatch(/unknown marker kind/)
    expect(parseMarker('/* TASK-3 [ADD] 2 more */').problem).toMatch(/missing ":"/)
    expect(parseMarker('/* TASK-3 [ADD]: */').problem).toMatch(/no description/)
    expect(parseMarker('/* TASK [ADD]: x */').problem).toMatch(/TASK-<n>/)
    expect(parseMarker('/* NO CHANGES */').problem).toMatch(/task number/)
    expect(parseMarker('/* NO CHANGES for task 3 */').problem).toMatch(/task-<n>/)
    expect(parseMarker('/* hero copy is final */')).toEqual({ marker: null, problem: null })
    expect(parseMarker('// just a note')).toEqual({ marker: null, problem: null })
  })
})
