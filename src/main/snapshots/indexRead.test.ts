import { execFileSync } from 'node:child_process'
import { symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { readIndex } from './indexRead'
import { removeDir, tempProject, write } from './testkit'

let dir: string
beforeEach(() => {
  dir = tempProject('ralph-indexread-')
  execFileSync('git', ['init', '-q', dir])
})
afterEach(() => removeDir(dir))

const git = (...args: string[]): string =>
  execFileSync('git', args, { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: dir } })

describe('reading the index in-process', () => {
  it.each([2, 3, 4])('reads version %i as git wrote it: names, modes, blob names', (version) => {
    // Long shared prefixes, a name longer than the previous one and shorter, a symlink, an executable.
    for (const p of [
      'a.txt',
      'a/b/c/d/e/long-name-here.ts',
      'a/b/c/d/e/long-name-here2.ts',
      'a/b/x',
      'ü/ñ.md',
    ]) {
      write(dir, p, `content of ${p}\n`)
    }
    symlinkSync('a.txt', join(dir, 'link'))
    write(dir, 'run.sh', '#!/bin/sh\n')
    execFileSync('chmod', ['+x', join(dir, 'run.sh')])
    git('add', '-A')
    git('update-index', '--index-version', String(version))
    const index = readIndex(join(dir, '.git'))!
    expect(index).not.toBeNull()
    const expected = git('ls-files', '-s', '-z').split('\0').filter(Boolean)
    const ours = index.names.map((name, i) => {
      const at = index.offsets[i]!
      const mode = index.entries.readUInt32BE(at + 24).toString(8)
      return `${mode} ${index.entries.toString('hex', at + 40, at + 60)} 0\t${name.toString('utf8')}`
    })
    expect(ours).toEqual(expected)
  })

  it('leaves an index it does not handle to git: conflicts, intent-to-add, a bad checksum', () => {
    write(dir, 'a.txt', 'a\n')
    git('add', '-A')
    expect(readIndex(join(dir, '.git'))).not.toBeNull()
    write(dir, 'b.txt', 'b\n')
    git('add', '-N', 'b.txt')
    expect(readIndex(join(dir, '.git'))).toBeNull()
    git('rm', '-q', '--cached', 'b.txt')
    expect(readIndex(join(dir, '.git'))).not.toBeNull()
    execFileSync('sh', ['-c', 'printf x | dd of=.git/index bs=1 seek=20 conv=notrunc 2>/dev/null'], {
      cwd: dir,
    })
    expect(readIndex(join(dir, '.git'))).toBeNull()
  })
})
