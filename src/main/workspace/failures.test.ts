import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  attempt,
  attemptAsync,
  attemptUnlessMissing,
  fallbackTo,
  isMissing,
  isUnwritable,
  readIfExists,
} from './failures'
import { memoryLogger } from './logFile'

describe('failures', () => {
  it('reads a file that exists, gives undefined for one that does not, and throws for anything else', () => {
    const dir = mkdtempSync(join(tmpdir(), 'failures-'))
    writeFileSync(join(dir, 'a.txt'), 'hello')
    mkdirSync(join(dir, 'folder'))
    expect(readIfExists(join(dir, 'a.txt'))).toBe('hello')
    expect(readIfExists(join(dir, 'missing.txt'))).toBeUndefined()
    expect(readIfExists(join(dir, 'a.txt', 'below-a-file'))).toBeUndefined()
    expect(() => readIfExists(join(dir, 'folder'))).toThrow(/EISDIR/)
  })

  it('knows a missing path from other failures', () => {
    expect(isMissing(Object.assign(new Error('x'), { code: 'ENOENT' }))).toBe(true)
    expect(isMissing(Object.assign(new Error('x'), { code: 'EACCES' }))).toBe(false)
    expect(isMissing(null)).toBe(false)
  })

  it('records why a failure became a default, sync, async and in promise chains', async () => {
    const log = memoryLogger()
    expect(attempt(log, 'parsing the config', () => JSON.parse('{'), 'default')).toBe('default')
    expect(attempt(log, 'never logged', () => 7, 0)).toBe(7)
    const boom = () => Promise.reject(new Error('disk gone'))
    expect(await attemptAsync(log, 'reading the index', boom, null)).toBeNull()
    expect(await boom().catch(fallbackTo(log, 'listing tags', []))).toEqual([])
    expect(log.lines).toHaveLength(3)
    expect(log.lines[0]).toMatch(/^WARN parsing the config: SyntaxError/)
    expect(log.lines[1]).toBe('WARN reading the index: Error: disk gone')
    expect(log.lines[2]).toBe('WARN listing tags: Error: disk gone')
  })

  it('survives a failure quietly when the path is missing, and records any other', () => {
    const log = memoryLogger()
    const fail = (code: string) => () => {
      throw Object.assign(new Error(code), { code })
    }
    expect(attemptUnlessMissing(log, 'never logged', () => 3, 0)).toBe(3)
    expect(attemptUnlessMissing(log, 'gone is expected', fail('ENOENT'), null)).toBeNull()
    expect(log.lines).toEqual([])
    expect(attemptUnlessMissing(log, 'examining a file', fail('EACCES'), false)).toBe(false)
    expect(log.lines).toEqual(['WARN examining a file: Error: EACCES'])
  })

  it('knows an expected refusal to write from other failures', () => {
    const err = (code: string) => Object.assign(new Error(code), { code })
    for (const code of ['ENOENT', 'EACCES', 'EROFS', 'ENOSPC', 'EEXIST', 'ENOTEMPTY']) {
      expect(isUnwritable(err(code))).toBe(true)
    }
    expect(isUnwritable(err('EIO'))).toBe(false)
    expect(isUnwritable(new Error('no code'))).toBe(false)
  })
})
