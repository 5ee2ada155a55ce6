import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { writeRefsInProcess } from './refWrite'
import { removeDir, tempProject, write } from './testkit'

let dir: string
let gitDir: string
let commit: string
const git = (...args: string[]): string =>
  execFileSync('git', [`--git-dir=${gitDir}`, ...args], {
    cwd: dir,
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH,
      HOME: dir,
      GIT_AUTHOR_NAME: 'T',
      GIT_AUTHOR_EMAIL: 't@e',
      GIT_COMMITTER_NAME: 'T',
      GIT_COMMITTER_EMAIL: 't@e',
    },
  }).trim()

beforeEach(() => {
  dir = tempProject('ralph-refwrite-')
  gitDir = join(dir, 'store.git')
  execFileSync('git', ['init', '-q', '--bare', gitDir])
  write(dir, 'a.txt', 'a')
  const blob = git('hash-object', '-w', 'a.txt')
  const tree = execFileSync('git', [`--git-dir=${gitDir}`, 'mktree'], {
    input: `100644 blob ${blob}\ta.txt\n`,
    encoding: 'utf8',
  }).trim()
  commit = git('commit-tree', tree, '-m', 'one')
})
afterEach(() => removeDir(dir))

const locks = (sub: string): string[] => readdirSync(join(gitDir, sub)).filter((n) => n.endsWith('.lock'))

describe('writing refs without git', () => {
  it('writes a new tag and moves the branch as update-ref does', () => {
    const ok = writeRefsInProcess(gitDir, [
      { ref: 'refs/tags/task-1-pre', sha: commit, create: true },
      { ref: 'refs/heads/snapshots', sha: commit, create: false },
    ])
    expect(ok).toBe(true)
    expect(git('rev-parse', 'refs/tags/task-1-pre', 'refs/heads/snapshots')).toBe(`${commit}\n${commit}`)
    expect(git('for-each-ref', '--format=%(refname)')).toBe('refs/heads/snapshots\nrefs/tags/task-1-pre')
    git('fsck', '--no-dangling') // a store git finds sound
  })

  it('writes nothing and leaves it to git for a tag that exists (loose or packed), a taken lock or an odd name', () => {
    git('update-ref', 'refs/tags/taken', commit)
    git('pack-refs', '--all', '--prune')
    const branch = { ref: 'refs/heads/snapshots', sha: commit, create: false }
    expect(writeRefsInProcess(gitDir, [branch, { ref: 'refs/tags/taken', sha: commit, create: true }])).toBe(
      false,
    )
    expect(existsSync(join(gitDir, 'refs/heads/snapshots'))).toBe(false)
    expect(locks('refs/heads')).toEqual([])
    git('update-ref', 'refs/tags/loose', commit)
    expect(writeRefsInProcess(gitDir, [{ ref: 'refs/tags/loose', sha: commit, create: true }])).toBe(false)
    writeFileSync(join(gitDir, 'refs/heads/snapshots.lock'), '')
    expect(writeRefsInProcess(gitDir, [{ ref: 'refs/tags/new', sha: commit, create: true }, branch])).toBe(
      false,
    )
    expect(existsSync(join(gitDir, 'refs/tags/new'))).toBe(false)
    expect(locks('refs/tags')).toEqual([])
    expect(writeRefsInProcess(gitDir, [{ ref: 'refs/tags/../../HEAD', sha: commit, create: false }])).toBe(
      false,
    )
  })
})
