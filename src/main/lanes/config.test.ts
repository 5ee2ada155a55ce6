import { describe, expect, it } from 'vitest'
import { defaultLanesConfig, parseLanesConfig } from './config'

describe('parseLanesConfig', () => {
  it('fills defaults when "lanes" is absent and keeps what the project lists', () => {
    expect(parseLanesConfig('{"maxIterations":3}', 'c.json')).toEqual(defaultLanesConfig)
    expect(parseLanesConfig('{"lanes":{"parallel":4,"copy":[".env"],"setup":"npm ci"}}', 'c.json')).toEqual({
      parallel: 4,
      copy: ['.env'],
      setup: 'npm ci',
    })
  })

  it('names the broken field and what is expected', () => {
    expect(() => parseLanesConfig('{"lanes":{"parallel":9}}', 'c.json')).toThrow(/"lanes.parallel" in c.json/)
    expect(() => parseLanesConfig('{"lanes":{"copy":["../secret"]}}', 'c.json')).toThrow(/no "\.\."/)
    expect(() => parseLanesConfig('{ nope', 'c.json')).toThrow(/not valid JSON/)
  })
})
