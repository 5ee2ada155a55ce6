import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { peekIndex } from './indexPeek'
import { removeDir, tempProject, write } from './testkit'

let dir: string
beforeEach(() => {
  dir = tempProject('ralph-indexpeek-')
  execFileSync('git', ['init', '-q', dir])
})
afterEach(() => removeDir(dir))

const git = (...args: string[]): string =>
  execFileSync('git', args, { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: dir } })

describe('peeking at the index', () => {
  it.each([2, 3, 4])(
    'version %i: the tracked paths under a prefix, the entry count and the tree write-tree prints',
    (version) => {
      // Names sorting before, inside and after `.ralph/`, with shared prefixes (version 4 compresses them).
      for (const p of [
        '.gitignore',
        '.r',
        '.ralph-x/a',
        '.ralph/a.md',
        '.ralph/sub/b.json',
        '.ralphz',
        'src/c.ts',
      ]) {
        write(dir, p, `content of ${p}\n`)
      }
      git('add', '-A')
      git('update-index', '--index-version', String(version))
      const tree = git('write-tree').trim()
      const peek = peekIndex(join(dir, '.git'), '.ralph/')!
      expect(peek).not.toBeNull()
      expect([...peek.under].sort()).toEqual(['.ralph/a.md', '.ralph/sub/b.json'])
      expect(peek.entries).toBe(7)
      expect(peek.tree).toBe(tree)
    },
  )

  it('names no tree while the cache-tree is out of date, and leaves a damaged index to git', () => {
    write(dir, 'a.txt', 'a\n')
    git('add', '-A')
    git('write-tree')
    expect(peekIndex(join(dir, '.git'), '.ralph/')!.tree).not.toBeNull()
    write(dir, 'b.txt', 'b\n')
    git('add', 'b.txt') // invalidates the root of the cache-tree
    expect(peekIndex(join(dir, '.git'), '.ralph/')!.tree).toBeNull()
    execFileSync('sh', ['-c', 'printf x | dd of=.git/index bs=1 seek=20 conv=notrunc 2>/dev/null'], {
      cwd: dir,
    })
    expect(peekIndex(join(dir, '.git'), '.ralph/')).toBeNull()
    expect(peekIndex(join(dir, 'missing'), '.ralph/')).toBeNull()
  })
})
