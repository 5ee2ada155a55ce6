import { describe, expect, it } from 'vitest'
import { loadPrompt, promptParts } from './resources'

describe('prompt files', () => {
  it('loads a prompt by its path under resources/prompts, the same text each time', () => {
    const text = loadPrompt('task-parser')
    expect(text).toContain('<!-- system -->')
    expect(loadPrompt('task-parser')).toBe(text)
  })

  it('splits a prompt at its markers, trimmed, and is null when one is missing', () => {
    const text = 'intro\n<!-- system -->\n be brief \n<!-- user -->\n{{x}}\n<!-- repair -->\n again\n'
    expect(promptParts(text, ['system', 'user', 'repair'])).toEqual({
      system: 'be brief',
      user: '{{x}}',
      repair: 'again',
    })
    expect(promptParts(text, ['system', 'user'])).toEqual({
      system: 'be brief',
      user: '{{x}}\n<!-- repair -->\n again',
    })
    expect(promptParts('<!-- system -->\nonly', ['system', 'user'])).toBeNull()
  })
})
