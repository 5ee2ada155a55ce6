import { describe, expect, it } from 'vitest'
import { planSteps } from './taskSetup'

describe('planSteps: the plan before the first iteration, by task type', () => {
  it('keeps a fresh task on its plan, strips stale markers for changes, and sends a bug fix straight to build', () => {
    expect(planSteps('fresh')).toEqual({
      stripStaleMarkers: false,
      skipToBuild: false,
      rebaseline: false,
      requireMarkers: false,
    })
    expect(planSteps('mutation')).toEqual({
      stripStaleMarkers: true,
      skipToBuild: false,
      rebaseline: true,
      requireMarkers: true,
    })
    expect(planSteps('bugfix')).toEqual({
      stripStaleMarkers: true,
      skipToBuild: true,
      rebaseline: true,
      requireMarkers: false,
    })
  })
})
