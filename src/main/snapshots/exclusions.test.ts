import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { CredentialDetector, NestedRepoDetector, isAlwaysExcluded } from './exclusions'
import { removeDir, tempProject, write } from './testkit'

describe('isAlwaysExcluded', () => {
  it('excludes any .git component, the store and lock files, and nothing that merely looks alike', () => {
    for (const p of ['.git', '.git/config', 'a/.git', 'a/.git/HEAD', 'a/b/.git/x']) {
      expect(isAlwaysExcluded(p)).toBe(true)
    }
    for (const p of ['.ralph/snapshots.git', '.ralph/snapshots.git/HEAD', '.ralph/loop.lock']) {
      expect(isAlwaysExcluded(p)).toBe(true)
    }
    for (const p of [
      '.gitignore',
      'a/.github/x',
      'a.git/x',
      'x/.git2',
      'x.git',
      '.ralph/plan.tsx',
      '.ralph/a/b.lock',
    ]) {
      expect(isAlwaysExcluded(p)).toBe(false)
    }
  })
})

describe('NestedRepoDetector', () => {
  let dir: string
  beforeEach(() => {
    dir = tempProject('ralph-nested-')
  })
  afterEach(() => removeDir(dir))

  it('names the outermost folder holding a .git directory or file, asking once per folder', () => {
    mkdirSync(join(dir, 'vendor/lib/.git'), { recursive: true })
    mkdirSync(join(dir, 'vendor/lib/inner/.git'), { recursive: true })
    write(dir, 'wt/.git', 'gitdir: /elsewhere\n')
    write(dir, 'src/a/b.ts', 'x')
    writeFileSync(join(dir, 'top.txt'), 'x')
    const d = new NestedRepoDetector(dir)
    expect(d.containing('vendor/lib/x.ts')).toBe('vendor/lib')
    expect(d.containing('vendor/lib/inner/deep/y.ts')).toBe('vendor/lib')
    expect(d.containing('wt/file')).toBe('wt')
    expect(d.containing('src/a/b.ts')).toBeNull()
    expect(d.containing('top.txt')).toBeNull()
    // A file standing where a folder is expected is not a repo.
    expect(d.containing('top.txt/z')).toBeNull()
  })
})

describe('CredentialDetector', () => {
  let dir: string
  beforeEach(() => (dir = tempProject()))
  afterEach(() => removeDir(dir))

  it('names the credential store, the app data folder or the token file to list as skipped', () => {
    write(dir, 'home/.ssh/id_ed25519', 'key')
    write(dir, 'home/.AWS/credentials', 'aws')
    write(dir, 'data/ralph.db', 'db')
    write(dir, 'data/logs/x.log', 'log')
    write(dir, 'a/.npmrc', '//registry.npmjs.org/:_authToken=npm_abc\n')
    write(dir, 'b/.npmrc', 'registry=https://example.test/\n')
    write(dir, '.env', 'SECRET=1')
    const d = new CredentialDetector(dir)
    expect(d.skipOf('home/.ssh/id_ed25519')).toBe('home/.ssh')
    expect(d.skipOf('home/.AWS/credentials')).toBe('home/.AWS')
    expect(d.skipOf('data/ralph.db')).toBe('data')
    expect(d.skipOf('data/logs/x.log')).toBe('data')
    expect(d.skipOf('a/.npmrc')).toBe('a/.npmrc')
    expect(d.skipOf('b/.npmrc')).toBeNull()
    // .env files are the user's work: snapshots keep them.
    expect(d.skipOf('.env')).toBeNull()
    expect(d.skipOf('src/index.ts')).toBeNull()
  })
})
