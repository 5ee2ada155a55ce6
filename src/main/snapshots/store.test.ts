import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ShadowGit } from './git'
import { BRANCH_REF, initStore, storeLooksComplete, storePaths } from './store'
import { removeDir, tempProject } from './testkit'

let dir: string
beforeEach(() => {
  dir = tempProject('ralph-store-')
})
afterEach(() => removeDir(dir))

describe('initStore', () => {
  it('writes its settings once and can run again over a store a crash left half-made', async () => {
    const { gitDir } = storePaths(dir)
    const git = new ShadowGit(gitDir, dir)
    await initStore(git)
    await initStore(git) // what opening does when the completion marker is missing
    expect(storeLooksComplete(gitDir)).toBe(true)
    const config = (...args: string[]): string =>
      execFileSync('git', [`--git-dir=${gitDir}`, 'config', ...args], { encoding: 'utf8' }).trim()
    expect(config('--get-all', 'core.bare')).toBe('false')
    expect(config('--get', 'core.untrackedCache')).toBe('true')
    expect(config('--get', 'index.version')).toBe('4')
    expect(config('--get', 'gc.auto')).toBe('0')
    expect(config('--get-all', 'core.fsmonitor')).toBe('false')
    const head = (): string => readFileSync(join(gitDir, 'HEAD'), 'utf8')
    expect(head()).toBe(`ref: ${BRANCH_REF}\n`)
    // A crash before HEAD named our branch: init run again (which keeps a HEAD it finds) still sets it.
    writeFileSync(join(gitDir, 'HEAD'), 'ref: refs/heads/master\n')
    await initStore(git)
    expect(head()).toBe(`ref: ${BRANCH_REF}\n`)
  })
})
