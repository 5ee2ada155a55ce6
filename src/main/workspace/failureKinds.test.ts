import { describe, expect, it } from 'vitest'
import { memoryLogger } from './logFile'
import { ifMissing, ifMissingOrDenied, isDenied, isGone, unlessExpected, unlessMissing } from './failures'

const fsError = (code: string) => Object.assign(new Error(`${code}: failed`), { code })

describe('error kinds', () => {
  it('tells missing, denied and gone apart', () => {
    expect(isDenied(fsError('EACCES'))).toBe(true)
    expect(isDenied(fsError('EPERM'))).toBe(true)
    expect(isDenied(fsError('ENOENT'))).toBe(false)
    expect(isGone(fsError('ESRCH'))).toBe(true)
    expect(isGone(fsError('ENOENT'))).toBe(true)
    expect(isGone(fsError('EIO'))).toBe(false)
    expect(isDenied(null)).toBe(false)
  })

  it('gives the fallback for an expected absence and rethrows the rest', () => {
    expect(ifMissing('x')(fsError('ENOENT'))).toBe('x')
    expect(() => ifMissing('x')(fsError('EACCES'))).toThrow('EACCES')
    expect(ifMissingOrDenied('x')(fsError('EACCES'))).toBe('x')
    expect(() => ifMissingOrDenied('x')(fsError('EIO'))).toThrow('EIO')
  })

  it('records what is survived, but not the expected absences of a walk', () => {
    const log = memoryLogger()
    expect(unlessMissing(log, 'reading a', null)(fsError('ENOENT'))).toBeNull()
    expect(unlessExpected(log, 'listing b', [])(fsError('EACCES'))).toEqual([])
    expect(log.lines).toEqual([])
    expect(unlessMissing(log, 'reading c', null)(fsError('EIO'))).toBeNull()
    expect(unlessExpected(log, 'listing d', [], isGone)(fsError('EACCES'))).toEqual([])
    expect(log.lines).toEqual(['WARN reading c: Error: EIO: failed', 'WARN listing d: Error: EACCES: failed'])
  })
})
