import { mkdirSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { forbiddenReason } from '../workspace/offLimits'
import { normaliseRelative, resolveProjectPath } from './paths'
import { put, removeDir, tempDir } from './testkit'

let root: string
let outside: string

beforeAll(() => {
  root = tempDir()
  outside = tempDir('ralph-outside-')
  put(root, 'src/a.ts', 'a')
  put(root, 'with space/é ü.txt', 'x')
  put(root, '-rf', 'dash')
  put(root, 'sub/.git/HEAD', 'ref')
  put(root, '.git/config', '[core]')
  put(root, 'worktree/.git', 'gitdir: elsewhere')
  mkdirSync(join(root, '.ralph/snapshots.git'), { recursive: true })
  symlinkSync(outside, join(root, 'escape'))
  symlinkSync(join(root, 'src'), join(root, 'lib'))
  symlinkSync(join(root, '.git'), join(root, 'gitlink'))
  symlinkSync(join(outside, 'nope.txt'), join(root, 'dangling'))
  symlinkSync(join(outside, 'x'), join(root, 'src', 'out-file'))
})

afterAll(() => {
  removeDir(root)
  removeDir(outside)
})

const refused = async (p: string, opts = {}) => {
  const r = await resolveProjectPath(root, p, opts)
  expect(r.ok, `${p} should be refused`).toBe(false)
  return r.ok ? '' : r.error
}

describe('resolveProjectPath', () => {
  it('accepts plain relative paths and normalises them', async () => {
    expect(await resolveProjectPath(root, 'src/a.ts')).toEqual({
      ok: true,
      abs: join(root, 'src/a.ts'),
      rel: 'src/a.ts',
    })
    expect(await resolveProjectPath(root, './src//a.ts')).toMatchObject({ ok: true, rel: 'src/a.ts' })
    expect(await resolveProjectPath(root, 'src/../src/a.ts')).toMatchObject({ ok: true, rel: 'src/a.ts' })
  })

  it('accepts new files in new folders, unicode, spaces and leading dashes', async () => {
    expect(await resolveProjectPath(root, 'new/deep/file.ts')).toMatchObject({
      ok: true,
      rel: 'new/deep/file.ts',
    })
    expect(await resolveProjectPath(root, 'with space/é ü.txt')).toMatchObject({
      ok: true,
      rel: 'with space/é ü.txt',
    })
    expect(await resolveProjectPath(root, '-rf')).toMatchObject({
      ok: true,
      rel: '-rf',
      abs: join(root, '-rf'),
    })
    expect(await resolveProjectPath(root, '..foo')).toMatchObject({ ok: true, rel: '..foo' })
  })

  it('refuses absolute paths and home paths', async () => {
    expect(await refused('/etc/passwd')).toMatch(/absolute/)
    expect(await refused(join(root, 'src/a.ts'))).toMatch(/absolute/)
    expect(await refused('C:\\Windows\\x')).toMatch(/absolute/)
    expect(await refused('~/.ssh/id_rsa')).toMatch(/home/)
  })

  it('refuses climbing out with ..', async () => {
    expect(await refused('../x')).toMatch(/climbs out/)
    expect(await refused('foo/../../x')).toMatch(/climbs out/)
    expect(await refused('src/../../' + 'x')).toMatch(/climbs out/)
  })

  it('refuses .git at any depth, dir or file, any case', async () => {
    expect(await refused('.git')).toMatch(/\.git/)
    expect(await refused('./.git/config')).toMatch(/\.git/)
    expect(await refused('sub/.git/HEAD')).toMatch(/\.git/)
    expect(await refused('worktree/.git')).toMatch(/\.git/)
    expect(await refused('.GIT/config')).toMatch(/\.git/)
    expect(await refused('gitlink/config')).toMatch(/symbolic link.*\.git/)
  })

  it('refuses the snapshot store and harness locks', async () => {
    expect(await refused('.ralph/snapshots.git/HEAD')).toMatch(/snapshot store/)
    expect(await refused('.ralph/snapshots.git')).toMatch(/snapshot store/)
    expect(await refused('.ralph/./snapshots.git/x')).toMatch(/snapshot store/)
    expect(await refused('.ralph/snapshots.lock')).toMatch(/lock/)
  })

  it('refuses symlinks that resolve outside, including for new files below them', async () => {
    expect(await refused('escape')).toMatch(/outside/)
    expect(await refused('escape/new.txt')).toMatch(/outside/)
    expect(await refused('escape/a/b/c.txt')).toMatch(/outside/)
    expect(await refused('src/out-file')).toMatch(/symbolic link/)
    expect(await refused('dangling')).toMatch(/symbolic link/)
  })

  it('follows symlinks that stay inside the project', async () => {
    expect(await resolveProjectPath(root, 'lib/a.ts')).toMatchObject({ ok: true, rel: 'src/a.ts' })
  })

  it('treats the root specially', async () => {
    expect(await refused('.')).toMatch(/project root/)
    expect(await refused('')).toMatch(/project root/)
    expect(await resolveProjectPath(root, '.', { allowRoot: true })).toEqual({ ok: true, abs: root, rel: '' })
  })

  it('refuses NUL bytes and non-strings', async () => {
    expect(await refused('a\0b')).toMatch(/NUL/)
    expect(await refused(42 as unknown as string)).toMatch(/string/)
  })
})

describe('helpers', () => {
  it('normaliseRelative', () => {
    expect(normaliseRelative('a/./b/../c')).toBe('a/c')
    expect(normaliseRelative('a/../..')).toBeNull()
    expect(normaliseRelative('./')).toBe('')
  })
  it('forbiddenReason', () => {
    expect(forbiddenReason('src/a.ts')).toBeNull()
    expect(forbiddenReason('.gitignore')).toBeNull()
    expect(forbiddenReason('a/.git')).not.toBeNull()
    expect(forbiddenReason('.ralph/plan.tsx')).toBeNull()
  })
  it('forbiddenReason refuses credential stores at any depth, in any case', () => {
    for (const p of [
      '.ssh',
      '.ssh/id_ed25519',
      'backup/home/.SSH/id_rsa',
      '.aws/credentials',
      'x/.gnupg/pubring.kbx',
      '.docker/config.json',
      'old/.netrc',
      '.config/gh/hosts.yml',
      'me/.config/ralph-studio/ralph.db',
      'data/ralph.db',
      'data/secrets.json',
      'Library/Keychains/login.keychain-db',
      '.kube/config',
    ]) {
      expect(forbiddenReason(p), p).toMatch(/credential store|app data folder/)
    }
    expect(forbiddenReason('.docker/daemon.json')).toBeNull()
    expect(forbiddenReason('.config/nvim/init.lua')).toBeNull()
    expect(forbiddenReason('docs/ssh.md')).toBeNull()
    expect(forbiddenReason('my.ssh/notes')).toBeNull()
  })
  it('forbiddenReason refuses every .npmrc/.pypirc (they may hold tokens) and .env files but not their templates', () => {
    expect(forbiddenReason('.npmrc')).toMatch(/registry tokens/)
    expect(forbiddenReason('pkg/.PYPIRC')).toMatch(/registry tokens/)
    for (const p of ['.env', '.env.local', 'deploy/.ENV', 'api/.env.production', '.env/secret']) {
      expect(forbiddenReason(p), p).toMatch(/environment file/)
    }
    for (const p of ['.env.example', 'api/.env.sample', '.ENV.TEMPLATE', 'src/env.ts', '.envrc-notes/x']) {
      expect(forbiddenReason(p), p).toBeNull()
    }
  })
  it('refuses the app data folder ($RALPH_HOME) by its real path, whatever its name', async () => {
    put(root, 'appdata/notes.txt', 'x')
    const before = process.env.RALPH_HOME
    process.env.RALPH_HOME = join(root, 'appdata')
    try {
      expect(await refused('appdata/notes.txt')).toMatch(/app data folder/)
    } finally {
      if (before === undefined) delete process.env.RALPH_HOME
      else process.env.RALPH_HOME = before
    }
    expect((await resolveProjectPath(root, 'appdata/notes.txt')).ok).toBe(true)
  })
})
