import { execFileSync } from 'node:child_process'
import { symlinkSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { readRegularFile, readRegularFileSync, readRegularText } from './regularFile'
import { useTempDir } from './testkit'

const posix = process.platform !== 'win32'
const dir = useTempDir('ralph-regular-')

describe('readRegularFile', () => {
  it('reads a regular file, and says "missing" for none', async () => {
    writeFileSync(join(dir.path, 'a.txt'), 'hello')
    const r = await readRegularFile(join(dir.path, 'a.txt'))
    expect(r.ok && r.data.toString()).toBe('hello')
    expect(readRegularFileSync(join(dir.path, 'a.txt'))).toMatchObject({ ok: true })
    expect(await readRegularFile(join(dir.path, 'none'))).toEqual({ ok: false, reason: 'missing' })
    expect(readRegularFileSync(join(dir.path, 'none', 'deeper'))).toEqual({ ok: false, reason: 'missing' })
  })

  it.skipIf(!posix)('refuses a named pipe at once instead of waiting for a writer', async () => {
    const fifo = join(dir.path, '.gitignore')
    execFileSync('mkfifo', [fifo])
    const expected = { ok: false, reason: 'not-regular', kind: 'a named pipe (FIFO)' }
    expect(await readRegularFile(fifo)).toEqual(expected)
    expect(readRegularFileSync(fifo)).toEqual(expected)
    const skipped: string[] = []
    expect(await readRegularText(fifo, (kind) => skipped.push(kind))).toBeNull()
    expect(skipped).toEqual(['a named pipe (FIFO)'])
    // Through a symlink too (the link is followed, the target checked on the open descriptor).
    symlinkSync(fifo, join(dir.path, 'link'))
    expect(await readRegularFile(join(dir.path, 'link'))).toEqual(expected)
    expect(await readRegularFile(join(dir.path, 'link'), { noFollow: true })).toEqual({
      ok: false,
      reason: 'not-regular',
      kind: 'a symbolic link',
    })
  })

  it.skipIf(!posix)('refuses a socket and a character device, and a file over maxBytes', async () => {
    const path = join(dir.path, 's.sock')
    const server: Server = createServer()
    await new Promise<void>((resolve) => server.listen(path, resolve))
    try {
      expect(await readRegularFile(path)).toEqual({ ok: false, reason: 'not-regular', kind: 'a socket' })
    } finally {
      server.close()
    }
    expect(await readRegularFile('/dev/zero')).toEqual({
      ok: false,
      reason: 'not-regular',
      kind: 'a character device',
    })
    writeFileSync(join(dir.path, 'big'), 'x'.repeat(100))
    expect(await readRegularFile(join(dir.path, 'big'), { maxBytes: 10 })).toEqual({
      ok: false,
      reason: 'too-large',
      size: 100,
    })
  })
})
