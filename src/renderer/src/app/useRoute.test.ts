import { describe, expect, it } from 'vitest'
import { returnHash, takeReturnHash } from './useRoute'

describe('returning to the page after a web host restart', () => {
  it('keeps a project, its panel, a brainstorm or Settings; not the project list', () => {
    expect(returnHash('#/project/3?panel=queue')).toBe('#/project/3?panel=queue')
    expect(returnHash('#/project/3/brainstorm')).toBe('#/project/3/brainstorm')
    expect(returnHash('#/settings')).toBe('#/settings')
    expect(returnHash('#/projects')).toBeNull()
    expect(returnHash('')).toBeNull()
  })

  it('opens the saved page only when the address names none (the host’s new address)', () => {
    expect(takeReturnHash('', '#/project/3')).toBe('#/project/3')
    expect(takeReturnHash('#/', '#/project/3')).toBe('#/project/3')
    // A link to a page wins over the saved one.
    expect(takeReturnHash('#/settings', '#/project/3')).toBeNull()
    expect(takeReturnHash('', null)).toBeNull()
    expect(takeReturnHash('', '')).toBeNull()
    // Something unreadable in storage is the project list: nothing to return to.
    expect(takeReturnHash('', 'garbage')).toBeNull()
  })
})
