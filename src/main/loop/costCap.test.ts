import { describe, expect, it } from 'vitest'
import { formatUsd } from '../../shared/formatLoopEvent'
import { CostCap, CostCapReached, costCapMessage } from './costCap'

describe('CostCap', () => {
  it('warns once at 75% and stops at 100%, with the queue build budget rule', () => {
    const cap = new CostCap(0.1)
    expect(cap.check(0.05)).toEqual({ warn: null, stop: null })
    expect(cap.check(0.0749)).toEqual({ warn: null, stop: null })
    const warned = cap.check(0.076)
    expect(warned.warn).toBe('Cost cap: $0.076 of $0.10 spent (75% reached); the task stops at the cap.')
    expect(warned.stop).toBeNull()
    // Once only.
    expect(cap.check(0.09)).toEqual({ warn: null, stop: null })
    expect(cap.check(0.1).stop).toBe('Stopped: cost cap of $0.10 reached ($0.10 spent).')
    expect(cap.check(0.2).stop).toBe('Stopped: cost cap of $0.10 reached ($0.20 spent).')
  })

  it('stops without a warning when one call jumps past the cap', () => {
    const cap = new CostCap(1)
    expect(cap.check(1.5)).toEqual({ warn: null, stop: 'Stopped: cost cap of $1.00 reached ($1.50 spent).' })
  })

  it('refuses a cap that is not a positive number', () => {
    for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY])
      expect(() => new CostCap(bad)).toThrow(/positive number/)
  })

  it('writes dollars with cents, and up to four decimals below a dollar', () => {
    expect([0, 0.1, 0.105, 0.0123, 0.5, 2, 12.345].map(formatUsd)).toEqual([
      '$0.00',
      '$0.10',
      '$0.105',
      '$0.0123',
      '$0.50',
      '$2.00',
      '$12.35',
    ])
    expect(new CostCapReached(0.105, 0.1).message).toBe(costCapMessage(0.105, 0.1))
  })
})
