import { describe, expect, it } from 'vitest'
import { limitWaitPolicy } from './limitWait'

describe('limitWaitPolicy', () => {
  it('waits up to limitWaitMaxMinutes unless --no-wait or a budget of 0 turns it off', () => {
    const config = { limitWaitMaxMinutes: 30 }
    expect(limitWaitPolicy(undefined, config)).toMatchObject({ enabled: true, maxWaitMs: 1_800_000 })
    expect(limitWaitPolicy(false, config)).toMatchObject({
      enabled: false,
      offReason: 'waiting is turned off for this run (--no-wait)',
    })
    expect(limitWaitPolicy(true, { limitWaitMaxMinutes: 0 })).toMatchObject({
      enabled: false,
      offReason: 'limitWaitMaxMinutes in .ralph/config.json is 0, which turns waiting off',
    })
  })
})
