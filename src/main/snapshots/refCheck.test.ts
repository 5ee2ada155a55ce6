import { execFileSync } from 'node:child_process'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { SnapshotEngine } from './engine'
import { refsAllNameCommits } from './refCheck'
import { removeDir, tempProject, write } from './testkit'
import { memoryLogger } from '../workspace/logFile'

let dir: string
let gitDir: string
beforeEach(() => {
  dir = tempProject('ralph-refcheck-')
  gitDir = join(dir, '.ralph/snapshots.git')
})
afterEach(() => removeDir(dir))

const git = (...args: string[]): string =>
  execFileSync('git', [`--git-dir=${gitDir}`, ...args], { encoding: 'utf8' }).trim()

describe('checking refs without git', () => {
  it('vouches for refs naming commits, loose or packed, and for nothing else', async () => {
    write(dir, 'a.txt', 'a\n')
    const engine = new SnapshotEngine({ projectDir: dir, logger: memoryLogger() })
    await engine.save({ kind: 'manual' })
    expect(refsAllNameCommits(gitDir)).toBe(true)
    // Packed refs and packed commits, as a prune leaves them.
    git('pack-refs', '--all')
    git('repack', '-a', '-d', '-q')
    git('prune-packed')
    expect(refsAllNameCommits(gitDir)).toBe(true)

    const blob = git('hash-object', '-w', join(dir, 'a.txt'))
    writeFileSync(join(gitDir, 'refs/tags/manual-7'), `${blob}\n`)
    expect(refsAllNameCommits(gitDir)).toBe(false) // not a commit
    writeFileSync(join(gitDir, 'refs/tags/manual-7'), 'deadbeefdeadbeefdeadbeefdeadbeefdeadbeef\n')
    expect(refsAllNameCommits(gitDir)).toBe(false) // missing
    writeFileSync(join(gitDir, 'refs/tags/manual-7'), '')
    expect(refsAllNameCommits(gitDir)).toBe(false) // torn write
    // Each of those is what git's check then repairs.
    const { repairs } = await new SnapshotEngine({ projectDir: dir, logger: memoryLogger() }).open()
    expect(repairs.join('\n')).toMatch(/manual-7/)
    expect(refsAllNameCommits(gitDir)).toBe(true)
  })

  it('reads a commit once, then only looks for it: a known commit that is gone still fails the check', async () => {
    write(dir, 'a.txt', 'a\n')
    const engine = new SnapshotEngine({ projectDir: dir, logger: memoryLogger() })
    const { commit } = await engine.save({ kind: 'manual' })
    expect(refsAllNameCommits(gitDir)).toBe(true)
    const known = join(gitDir, 'info/ralph-known-commits')
    expect(readFileSync(known, 'utf8').trim().split('\n')).toEqual([commit])

    // Known: its type is not read again (a name fixes its content), only whether it is stored.
    const blob = git('hash-object', '-w', join(dir, 'a.txt'))
    writeFileSync(known, `${commit}\n${blob}\n`)
    writeFileSync(join(gitDir, 'refs/tags/manual-9'), `${blob}\n`)
    expect(refsAllNameCommits(gitDir)).toBe(true)
    rmSync(join(gitDir, 'refs/tags/manual-9'))

    // A damaged list is only a list of nothing known: every commit is read again.
    writeFileSync(known, 'garbage\n')
    expect(refsAllNameCommits(gitDir)).toBe(true)
    expect(readFileSync(known, 'utf8').trim()).toBe(commit)

    rmSync(join(gitDir, 'objects', commit.slice(0, 2), commit.slice(2)))
    expect(refsAllNameCommits(gitDir)).toBe(false)
  })
})
