import { chmodSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { cachedGitVersion } from './gitVersionCache'
import { removeDir, tempProject, write } from './testkit'

let dir: string
beforeEach(() => {
  dir = tempProject('ralph-gitversion-')
})
afterEach(() => removeDir(dir))

/** A stand-in git that reports `version` and counts how often it was asked. */
function fakeGit(version: string): string {
  const file = join(dir, 'bin', 'git')
  write(dir, 'bin/git', `#!/bin/sh\necho x >> "${join(dir, 'calls')}"\necho "git version ${version}"\n`)
  chmodSync(file, 0o755)
  return file
}

const calls = (): number => readFileSync(join(dir, 'calls'), 'utf8').split('\n').filter(Boolean).length

describe.skipIf(process.platform === 'win32')('the cached git version', () => {
  it('asks git once per binary, and again when the binary changes', async () => {
    const cache = join(dir, 'version-cache')
    const git = fakeGit('2.45.1')
    expect(await cachedGitVersion(git, cache)).toBe('2.45.1')
    expect(await cachedGitVersion(git, cache)).toBe('2.45.1')
    expect(calls()).toBe(1)
  })

  it('does not trust a version remembered for another binary', async () => {
    const cache = join(dir, 'version-cache')
    writeFileSync(cache, JSON.stringify({ identity: 'another git', version: '9.9.9' }))
    // A binary git reports as too old is refused, whatever the cache says about another one.
    await expect(cachedGitVersion(fakeGit('2.20.0'), cache)).rejects.toThrow(
      /2\.32\.0 or newer; found 2\.20\.0/,
    )
    expect(calls()).toBe(1)
  })
})
