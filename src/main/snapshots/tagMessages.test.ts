import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { SnapshotEngine } from './engine'
import { tagMessagesInProcess } from './tagMessages'
import { removeDir, tempProject, write } from './testkit'
import { memoryLogger } from '../workspace/logFile'

let dir: string
beforeEach(() => {
  dir = tempProject('ralph-tagmessages-')
})
afterEach(() => removeDir(dir))

const store = (...args: string[]): string =>
  execFileSync('git', [`--git-dir=${join(dir, '.ralph/snapshots.git')}`, ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: dir },
  })

/** What git prints for the same question, in the same shape. */
function fromGit(): { tag: string; commit: string; text: string }[] {
  const out = store(
    'for-each-ref',
    '--format=%(refname:strip=2)%00%(objectname)%00%(contents)%01',
    'refs/tags',
  )
  return out
    .split('\x01')
    .map((r) => (r.startsWith('\n') ? r.slice(1) : r))
    .filter(Boolean)
    .map((r) => {
      const [tag, commit, text] = r.split('\0')
      return { tag: tag!, commit: commit!, text: text! }
    })
}

const byTag = <T extends { tag: string }>(xs: T[]): T[] => [...xs].sort((a, b) => (a.tag < b.tag ? -1 : 1))

describe('snapshot tags read without git', () => {
  it('gives what for-each-ref gives, with packed refs too, and leaves packed commits to git', async () => {
    const engine = new SnapshotEngine({ projectDir: dir, logger: memoryLogger() })
    write(dir, 'a.txt', 'a')
    await engine.save({ kind: 'task-pre', task: 1 })
    write(dir, 'a.txt', 'b')
    await engine.save({ kind: 'manual', message: 'Ünïcode — and "quotes"' })
    await engine.save({ kind: 'task-post', task: 1 })
    const gitDir = join(dir, '.ralph/snapshots.git')
    expect(byTag(tagMessagesInProcess(gitDir)!)).toEqual(byTag(fromGit()))
    store('pack-refs', '--all')
    expect(byTag(tagMessagesInProcess(gitDir)!)).toEqual(byTag(fromGit()))
    const listed = (await engine.list()).items.map((s) => s.tag)
    store('repack', '-a', '-d', '-q')
    store('prune-packed')
    expect(tagMessagesInProcess(gitDir)).toBeNull()
    expect(
      (await new SnapshotEngine({ projectDir: dir, logger: memoryLogger() }).list()).items.map((s) => s.tag),
    ).toEqual(listed)
  })
})
