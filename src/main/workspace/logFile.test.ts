import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createFileLogger } from './logFile'
import { useTempDir } from './testkit'

describe('file logger', () => {
  const home = useTempDir('ralph-log-')

  it('writes one entry per line with its level and time, and the stack of an error below', () => {
    const echoed: string[] = []
    const log = createFileLogger(home.path, {
      now: () => new Date('2026-11-25T10:00:00Z'),
      echo: (l) => echoed.push(l),
    })
    log.warn('queued task 3 could not start')
    log.error('listener threw', new Error('boom'))
    const text = readFileSync(join(home.path, 'logs', 'ralph.log'), 'utf8')
    expect(text).toMatch(/^2026-11-25T10:00:00.000Z WARN queued task 3 could not start\n/)
    expect(text).toContain('2026-11-25T10:00:00.000Z ERROR listener threw\nError: boom\n    at ')
    expect(echoed).toHaveLength(2)
  })

  it('rotates by size and keeps only the newest files', () => {
    const log = createFileLogger(home.path, { maxBytes: 200, keep: 2 })
    for (let i = 0; i < 20; i++) log.warn(`entry ${i} ${'x'.repeat(40)}`)
    const files = readdirSync(join(home.path, 'logs')).sort()
    expect(files).toEqual(['ralph.1.log', 'ralph.2.log', 'ralph.log'])
    for (const f of files) expect(readFileSync(join(home.path, 'logs', f)).length).toBeLessThanOrEqual(200)
    expect(readFileSync(join(home.path, 'logs', 'ralph.log'), 'utf8')).toContain('entry 19 ')
    expect(readFileSync(join(home.path, 'logs', 'ralph.1.log'), 'utf8')).not.toContain('entry 19 ')
    expect(existsSync(join(home.path, 'logs', 'ralph.3.log'))).toBe(false)
  })

  it('never throws when the folder cannot be written', () => {
    // A file where the app data folder should be: every write fails with ENOTDIR.
    writeFileSync(join(home.path, 'file'), '')
    const log = createFileLogger(join(home.path, 'file'))
    expect(() => log.error('still fine', new Error('x'))).not.toThrow()
    expect(readFileSync(join(home.path, 'file'), 'utf8')).toBe('')
  })
})
