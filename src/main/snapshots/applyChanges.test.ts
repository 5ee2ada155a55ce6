import { existsSync, lstatSync, readlinkSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { isAppError } from '../../shared/errors'
import { applyChanges, blobSha, changedOnDisk, parseRawDiff, type TreeChange } from './applyChanges'
import { readBlobs } from './blobStream'
import { ShadowGit } from './git'
import { initStore, storePaths } from './store'
import { read, removeDir, tempProject, write } from './testkit'

let dir: string
let git: ShadowGit

beforeEach(async () => {
  dir = tempProject('ralph-apply-')
  git = new ShadowGit(storePaths(dir).gitDir, dir)
  await initStore(git)
})
afterEach(() => removeDir(dir))

/** Stores bytes in the shadow store and returns their object name. */
async function store(content: string | Buffer): Promise<string> {
  return (await git.text(['hash-object', '-w', '--stdin'], { input: content })).trim()
}

const change = (c: Partial<TreeChange> & Pick<TreeChange, 'status' | 'path'>): TreeChange => ({
  oldMode: '100644',
  newMode: '100644',
  oldSha: '0'.repeat(40),
  newSha: '0'.repeat(40),
  ...c,
})

describe('readBlobs', () => {
  it('streams many blobs in request order, including ones larger than a pipe buffer', async () => {
    const big = Buffer.alloc(3 * 1024 * 1024 + 7, 0x61)
    big[100] = 0 // binary content passes through untouched
    const contents = [Buffer.from('one\n'), big, Buffer.from(''), Buffer.from('last, no newline')]
    const shas = await Promise.all(contents.map((c) => store(c)))
    const got: Buffer[] = []
    for await (const b of readBlobs(git, [...shas, shas[0]!])) got.push(b.data)
    expect(got.length).toBe(5)
    contents.forEach((c, i) => expect(got[i]!.equals(c)).toBe(true))
    expect(got[4]!.toString()).toBe('one\n')
  })

  it('fails with a clear error for an object the store does not have', async () => {
    const missing = 'f'.repeat(40)
    const err = await (async () => {
      for await (const b of readBlobs(git, [missing])) void b
    })().catch((e: unknown) => e)
    expect(isAppError(err, 'git')).toBe(true)
    expect(String((err as Error).message)).toMatch(/no readable content for object f{40}/)
  })
})

describe('applyChanges', () => {
  it('parses raw diff-tree output', () => {
    const a = 'a'.repeat(40)
    const b = 'b'.repeat(40)
    expect(
      parseRawDiff([
        `:100644 100755 ${a} ${b} M`,
        'run.sh',
        `:000000 120000 ${'0'.repeat(40)} ${b} A`,
        'link',
      ]),
    ).toEqual([
      { status: 'M', path: 'run.sh', oldMode: '100644', newMode: '100755', oldSha: a, newSha: b },
      { status: 'A', path: 'link', oldMode: '000000', newMode: '120000', oldSha: '0'.repeat(40), newSha: b },
    ])
  })

  it('computes git blob names and finds files edited since they were hashed', async () => {
    write(dir, 'same.txt', 'kept')
    write(dir, 'edited.txt', 'new words')
    expect(blobSha(Buffer.from('kept'))).toBe(await store('kept'))
    const sameSha = blobSha(Buffer.from('kept'))
    const oldSha = blobSha(Buffer.from('old words'))
    const edited = changedOnDisk(dir, [
      change({ status: 'M', path: 'same.txt', oldSha: sameSha }),
      change({ status: 'D', path: 'edited.txt', oldSha }),
      change({ status: 'D', path: 'vanished.txt', oldSha }),
      change({ status: 'A', path: 'new.txt', oldMode: '000000' }),
    ])
    expect(edited).toEqual(['edited.txt', 'vanished.txt'])
  })

  it('deletes, prunes emptied folders, writes modes and links, and never overwrites what appeared', async () => {
    write(dir, 'gone/deep/x.txt', 'x')
    write(dir, 'kept/ignored.log', 'keep me')
    write(dir, 'kept/y.txt', 'y')
    write(dir, 'mod.txt', 'before')
    write(dir, 'appeared.txt', 'user made this meanwhile')
    const run = await store('#!/bin/sh\necho hi\n')
    const after = await store('after')
    const target = await store('x.txt')
    const res = await applyChanges(
      git,
      dir,
      [
        change({ status: 'M', path: 'mod.txt', newSha: after }),
        change({ status: 'A', path: 'bin/run.sh', oldMode: '000000', newMode: '100755', newSha: run }),
        change({ status: 'A', path: 'link', oldMode: '000000', newMode: '120000', newSha: target }),
        change({ status: 'A', path: 'appeared.txt', oldMode: '000000', newSha: after }),
      ],
      [change({ status: 'D', path: 'gone/deep/x.txt' }), change({ status: 'D', path: 'kept/y.txt' })],
    )
    expect(res.blocked).toEqual(['appeared.txt'])
    expect(read(dir, 'appeared.txt').toString()).toBe('user made this meanwhile')
    expect(existsSync(join(dir, 'gone'))).toBe(false)
    expect(read(dir, 'kept/ignored.log').toString()).toBe('keep me')
    expect(existsSync(join(dir, 'kept/y.txt'))).toBe(false)
    expect(read(dir, 'mod.txt').toString()).toBe('after')
    expect(read(dir, 'bin/run.sh').toString()).toBe('#!/bin/sh\necho hi\n')
    expect(statSync(join(dir, 'bin/run.sh')).mode & 0o100).toBe(0o100)
    expect(statSync(join(dir, 'mod.txt')).mode & 0o100).toBe(0)
    expect(lstatSync(join(dir, 'link')).isSymbolicLink()).toBe(true)
    expect(readlinkSync(join(dir, 'link'))).toBe('x.txt')
  })
})
