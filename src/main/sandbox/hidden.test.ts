import { mkdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { memoryLogger } from '../workspace/logFile'
import { removeDir, tempDir } from '../tools/testkit'
import { hiddenPaths } from './hidden'
import { scratchHome } from './home'

let dir: string
beforeEach(() => (dir = tempDir('ralph-hidden-')))
afterEach(() => removeDir(dir))

describe('hiddenPaths', () => {
  it("hides the caller's app data folder by its real path, and only what exists", async () => {
    mkdirSync(join(dir, 'real-app-data'))
    symlinkSync(join(dir, 'real-app-data'), join(dir, 'app-data'))
    const hidden = await hiddenPaths({ RALPH_HOME: join(dir, 'app-data') }, memoryLogger())
    expect(hidden).toContainEqual({ path: join(dir, 'real-app-data'), kind: 'dir' })
    expect(hidden.map((h) => h.path)).not.toContain(join(dir, 'app-data'))
    expect(
      (await hiddenPaths({ RALPH_HOME: join(dir, 'missing') }, memoryLogger())).map((h) => h.path),
    ).not.toContain(join(dir, 'missing'))
  })

  it('covers a file with /dev/null rather than a folder', async () => {
    writeFileSync(join(dir, 'sock'), '')
    expect(await hiddenPaths({ XDG_RUNTIME_DIR: join(dir, 'sock') }, memoryLogger())).toContainEqual({
      path: join(dir, 'sock'),
      kind: 'file',
    })
  })
})

describe('scratchHome', () => {
  it('is a private folder per project, the same on every call', async () => {
    const a = await scratchHome('/projects/a')
    expect(await scratchHome('/projects/a')).toBe(a)
    expect(await scratchHome('/projects/b')).not.toBe(a)
    expect(statSync(a).mode & 0o077).toBe(0)
    for (const p of ['/projects/a', '/projects/b']) removeDir(await scratchHome(p))
  })
})

describe('homeRoots', () => {
  it('empties every home, and the own home when it lies elsewhere, but never /tmp or /', async () => {
    const { homeRoots } = await import('./homeAccess')
    expect(homeRoots('/home/me', 'linux')).toEqual(['/home', '/root'])
    expect(homeRoots('/srv/users/me', 'linux')).toEqual(['/home', '/root', '/srv/users/me'])
    expect(homeRoots('/tmp', 'linux')).toEqual(['/home', '/root'])
    expect(homeRoots('/', 'linux')).toEqual(['/home', '/root'])
    expect(homeRoots('/Users/me', 'darwin')).toEqual(['/Users', '/var/root', '/private/var/root'])
  })
})

describe('allowedHomeDirs', () => {
  it('binds the toolchain folders that exist, never one that is a symlink into a credential store', async () => {
    const { allowedHomeDirs } = await import('./homeAccess')
    mkdirSync(join(dir, '.nvm'))
    mkdirSync(join(dir, '.ssh'))
    mkdirSync(join(dir, 'tools'))
    symlinkSync(join(dir, '.ssh'), join(dir, 'sneaky'))
    expect(await allowedHomeDirs(dir, ['tools', 'sneaky', 'missing'], memoryLogger())).toEqual([
      join(dir, '.nvm'),
      join(dir, 'tools'),
    ])
  })
})
