// The plan calls' outputs, built from real plans, satisfy the contract's zod schemas.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { showPlan } from '../../../src/main/api/plan'
import { diffPlans, formatPlanDiff, parsePlan, validatePlan } from '../../../src/main/plan'
import { planCalls } from '../../../src/shared/api/plan'

const read = (name: string) =>
  readFileSync(join(import.meta.dirname, '../../../resources/plan/examples', name), 'utf8')

describe('plan contract schemas', () => {
  it('accept the outputs of show, validate and diff', () => {
    const before = parsePlan(read('landing-before-task-3.tsx'))
    const after = parsePlan(read('landing-after-task-3.tsx'))
    expect(planCalls['plan.show'].output.parse(showPlan(after, 'p', true, 3)).sections).toHaveLength(4)
    const v = validatePlan(read('every-failure.tsx'), { taskNumber: 3 })
    const out = { path: 'p', exists: true, valid: v.valid, taskNumber: 3, findings: v.findings }
    expect(planCalls['plan.validate'].output.parse(out).findings.length).toBeGreaterThan(5)
    const d = diffPlans(before, after)
    const diff = { path: 'p', against: 'text', diff: d, summary: formatPlanDiff(d) }
    expect(planCalls['plan.diff'].output.parse(diff).diff?.markersAdded).toHaveLength(7)
    expect(planCalls['plan.validate'].input.safeParse({ projectId: 1, text: '' }).success).toBe(true)
    expect(planCalls['plan.validate'].input.safeParse({ projectId: 0 }).success).toBe(false)
  })
})
