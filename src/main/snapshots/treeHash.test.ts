import { execFileSync } from 'node:child_process'
import {
  chmodSync,
  lstatSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  unlinkSync,
  utimesSync,
} from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { blobSha } from './applyChanges'
import { IndexEntries, writeFreshIndex } from './indexFile'
import { buildTrees } from './treeHash'
import { removeDir, tempBareStore, write } from './testkit'

let dir: string
let gitDir: string
beforeEach(() => {
  ;({ dir, gitDir } = tempBareStore('ralph-trees-', '.store.git'))
  write(dir, '.store.git/info/exclude', '.store.git/\n')
})
afterEach(() => removeDir(dir))

function git(...args: string[]): string {
  return execFileSync('git', [`--git-dir=${gitDir}`, `--work-tree=${dir}`, ...args], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' },
  }).trim()
}

// Git orders a folder as if its name ended in '/': "a-b" < "a.b" < "a/" < "a0" < "ab".
const FILES = [
  'a-b',
  'a.b',
  'a/b-c/d',
  'a/b.c',
  'a/b/c/deep.txt',
  'a/bc',
  'a0',
  'ab',
  'with space/ü.txt',
  'z/y/x/w/v.txt',
]

function entriesFor(paths: string[]): IndexEntries {
  const entries = new IndexEntries()
  for (const path of paths) {
    const full = join(dir, path)
    const stat = lstatSync(full, { bigint: true })
    const data = stat.isSymbolicLink() ? Buffer.from(readlinkSync(full)) : readFileSync(full)
    entries.add(path, stat, Buffer.from(blobSha(data), 'hex'))
  }
  return entries
}

function treesOf(entries: IndexEntries): ReturnType<typeof buildTrees> {
  const names = entries.sortedNames()
  return buildTrees({ names, sha: (i) => entries.sha(i), mode: (i) => entries.mode(i) })
}

describe('buildTrees', () => {
  beforeEach(() => {
    for (const f of FILES) write(dir, f, `content of ${f}\n`)
    write(dir, 'bin/run.sh', '#!/bin/sh\n')
    chmodSync(join(dir, 'bin/run.sh'), 0o755)
    symlinkSync('a/bc', join(dir, 'link'))
    // Old mtimes keep git from treating entries as racily clean, which would skew the comparisons below.
    const old = new Date(Date.now() - 3_600_000)
    for (const f of [...FILES, 'bin/run.sh']) utimesSync(join(dir, f), old, old)
  })

  const all = (): string[] => [...FILES, 'bin/run.sh', 'link']

  it('names the root tree git’s write-tree computes for the same index', () => {
    git('update-index', '--add', '--', ...all())
    const expected = git('write-tree')
    expect(treesOf(entriesFor(all())).root.toString('hex')).toBe(expected)
  })

  it('writes a cache-tree git trusts, and updates correctly after a change deep in the tree', () => {
    // Store the objects with git, then replace its index with ours.
    git('update-index', '--add', '--', ...all())
    const expected = git('write-tree')
    const entries = entriesFor(all())
    const { cacheTree, root } = treesOf(entries)
    unlinkSync(join(gitDir, 'index'))
    writeFreshIndex(gitDir, entries, cacheTree)
    expect(git('write-tree')).toBe(expected)
    expect(root.toString('hex')).toBe(expected)

    // Git invalidates only the changed path's trees and reuses our records for the rest: wrong entry or
    // subtree counts would make it compute a different tree than a fresh index does.
    write(dir, 'a/b/c/deep.txt', 'changed\n')
    unlinkSync(join(dir, 'a.b'))
    write(dir, 'a/new.txt', 'new\n')
    git('update-index', '--add', '--remove', '--', 'a/b/c/deep.txt', 'a.b', 'a/new.txt')
    const incremental = git('write-tree')

    unlinkSync(join(gitDir, 'index'))
    git('update-index', '--add', '--', ...all().filter((f) => f !== 'a.b'), 'a/new.txt')
    expect(git('write-tree')).toBe(incremental)
    expect(git('ls-tree', '-r', '--name-only', incremental)).toContain('a/new.txt')
  })

  it('handles an index of one file and of files only at the top', () => {
    write(dir, 'solo.txt', 'x')
    git('update-index', '--add', '--', 'solo.txt')
    expect(treesOf(entriesFor(['solo.txt'])).root.toString('hex')).toBe(git('write-tree'))
  })
})
