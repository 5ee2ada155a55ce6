import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { describeAffectedSections, findAffectedSections, type StructuredTask } from './affected'
import { parsePlan } from './parse'

const plan = parsePlan(
  readFileSync(
    join(import.meta.dirname, '../../../resources/plan/examples/landing-before-task-3.tsx'),
    'utf8',
  ),
)

const task: StructuredTask = {
  type: 'mutation',
  title: 'Refine VIBRANT ENERGY landing page',
  requirements: [
    { marker: 'MODIFY', description: 'Refine hero copy — less generic, more adult', count: null },
    { marker: 'ADD', description: '2 NEW nighttime drinks (keep existing 8)', count: 2 },
    { marker: 'FIX', description: 'Theme toggle between the two moods', count: null },
  ],
  scope: { preserve: ['existing 8 flavors'], affectedFiles: ['src/data/flavors.ts'] },
  clarification: null,
}

describe('findAffectedSections', () => {
  it('maps requirements to sections by gumdrop, files and words', () => {
    const a = findAffectedSections(plan, task)
    expect(a.requirements[0]?.matches[0]?.section.gumdrop).toBe('hero')
    const add = a.requirements[1]?.matches[0]
    expect(add?.section.gumdrop).toBe('features')
    expect(add?.reasons.join()).toMatch(/src\/data\/flavors.ts/)
    expect(a.preserve[0]?.matches[0]?.section.gumdrop).toBe('features')
    expect(a.untouched.map((s) => s.gumdrop)).toEqual(['cta', 'grid-list'])
  })

  it('renders mutation context for the model', () => {
    const text = describeAffectedSections(findAffectedSections(plan, task), 3)
    expect(text).toContain('2. [ADD] 2 NEW nighttime drinks (keep existing 8) (count: 2)')
    expect(text).toContain('mark with {/* NO CHANGES for task-3 */}')
    expect(text).toContain('- store › grid-list (line 34)')
  })
})
