import { execFileSync } from 'node:child_process'
import {
  chmodSync,
  lstatSync,
  readFileSync,
  readlinkSync,
  lutimesSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { blobSha } from './applyChanges'
import { memoryLogger } from '../workspace/logFile'
import { ShadowGit } from './git'
import { encodeVarint, IndexEntries, writeFreshIndex } from './indexFile'
import { prepack } from './prepack'
import { stageWorkingTree } from './stage'
import { indexEntryCount, initStore, storePaths } from './store'
import { removeDir, tempProject, write } from './testkit'

let dir: string
beforeEach(() => {
  dir = tempProject('ralph-index-')
})
afterEach(() => removeDir(dir))

/** Plain git on a separate git dir with this project as its work tree. */
function gitAt(gitDir: string, ...args: string[]): string {
  return execFileSync('git', [`--git-dir=${gitDir}`, `--work-tree=${dir}`, ...args], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' },
  })
}

// Names chosen to exercise git's byte order ('-' < '.' < '/' < 'a') and v4 prefix compression.
const NAMES = [
  'a-b',
  'a.b',
  'a/b',
  'a/b-c/d',
  'a/bc',
  'ab',
  'with space/ü.txt',
  'x'.repeat(250),
  `z/${'y'.repeat(250)}/${'w'.repeat(250)}`,
]

describe('encodeVarint', () => {
  it('matches git’s offset varint', () => {
    expect([...encodeVarint(0)]).toEqual([0])
    expect([...encodeVarint(127)]).toEqual([127])
    expect([...encodeVarint(128)]).toEqual([0x80, 0x00])
    expect([...encodeVarint(16511)]).toEqual([0xff, 0x7f])
    expect([...encodeVarint(16512)]).toEqual([0x80, 0x80, 0x00])
  })
})

describe('writeFreshIndex', () => {
  it('writes the index git itself writes for the same files, stat data included', async () => {
    for (const n of NAMES) write(dir, n, `content of ${n.slice(0, 20)}\n`)
    write(dir, 'bin/run.sh', '#!/bin/sh\n')
    chmodSync(join(dir, 'bin/run.sh'), 0o755)
    symlinkSync('a/bc', join(dir, 'link'))
    const paths = [...NAMES, 'bin/run.sh', 'link']
    // Old mtimes keep git from smudging "racily clean" entries, which would make the two indexes differ.
    const old = new Date(Date.now() - 3_600_000)
    for (const p of paths) lutimesSync(join(dir, p), old, old)

    const theirs = join(dir, '.theirs.git')
    const ours = join(dir, '.ours.git')
    for (const g of [theirs, ours]) {
      execFileSync('git', ['init', '-q', '--bare', g])
      writeFileSync(join(g, 'info', 'exclude'), '.theirs.git/\n.ours.git/\n')
      gitAt(g, 'config', 'index.version', '4')
    }
    gitAt(theirs, 'update-index', '--add', '--', ...paths)

    expect(await indexEntryCount(ours)).toBe(0)
    // Added out of order: the writer puts them in git's.
    const entries = new IndexEntries()
    for (const path of [...paths].reverse()) {
      const full = join(dir, path)
      const stat = lstatSync(full, { bigint: true })
      const data = stat.isSymbolicLink() ? Buffer.from(readlinkSync(full)) : readFileSync(full)
      entries.add(path, stat, Buffer.from(blobSha(data), 'hex'))
    }
    writeFreshIndex(ours, entries)
    expect(await indexEntryCount(ours)).toBe(paths.length)

    const listing = (g: string): string => gitAt(g, 'ls-files', '-s', '--debug')
    expect(listing(ours)).toBe(listing(theirs))
    expect(listing(ours)).toContain('100755')
    expect(listing(ours)).toContain('120000')
    // Git reads it back (the checksum is verified) and finds every file unchanged without hashing it.
    expect(gitAt(ours, 'diff-files', '--name-only')).toBe('')
    expect(readFileSync(join(ours, 'index')).subarray(0, 8).toString('latin1')).toBe('DIRC\0\0\0\x04')
  })

  it('tells whether a symlink changed recently (git re-reads those through the stored blob)', () => {
    write(dir, 'file.txt', 'x')
    symlinkSync('file.txt', join(dir, 'link'))
    const now = Math.floor(Date.now() / 1000)
    const entries = (): IndexEntries => {
      const e = new IndexEntries()
      for (const p of ['file.txt', 'link'])
        e.add(p, lstatSync(join(dir, p), { bigint: true }), Buffer.alloc(20))
      return e
    }
    expect(entries().hasSymlinkModifiedSince(now - 1)).toBe(true)
    const old = new Date(Date.now() - 3_600_000)
    lutimesSync(join(dir, 'link'), old, old)
    // A recent regular file does not count: git re-hashes those from the file itself.
    expect(entries().hasSymlinkModifiedSince(now - 1)).toBe(false)
  })

  it('refuses to write while git holds the index lock, and leaves that lock alone', () => {
    const g = join(dir, 'g.git')
    execFileSync('git', ['init', '-q', '--bare', g])
    writeFileSync(join(g, 'index.lock'), 'held')
    write(dir, 'f', 'x')
    const entries = new IndexEntries()
    entries.add(
      'f',
      lstatSync(join(dir, 'f'), { bigint: true }),
      Buffer.from(blobSha(Buffer.from('x')), 'hex'),
    )
    expect(() => writeFreshIndex(g, entries)).toThrow(/EEXIST/)
    expect(readFileSync(join(g, 'index.lock'), 'utf8')).toBe('held')
  })
})

describe('a first snapshot of many files', () => {
  it('stores each file once: fast-import names the blobs and the index is written without git re-reading', async () => {
    for (let i = 0; i < 1100; i++) write(dir, `src/d${i % 30}/f${i}.ts`, `export const v = ${i}\n`)
    write(dir, 'big.bin', Buffer.alloc(2048, 1))
    write(dir, 'vendor/lib/x.ts', 'nested')
    execFileSync('git', ['init', '-q', join(dir, 'vendor/lib')])
    const git = new RecordingGit(storePaths(dir).gitDir, dir)
    await initStore(git)
    const result = await stageWorkingTree(git, dir, 1024, { log: memoryLogger() })
    expect(result.skipped).toEqual([
      { path: 'big.bin', reason: 'too-large', size: 2048 },
      { path: 'vendor/lib', reason: 'nested-repo' },
    ])
    expect(result.nestedRepos).toEqual(['vendor/lib'])
    // No update-index call was handed the bulk of the files to read and hash.
    const largest = Math.max(0, ...git.updateIndexInputs.map((input) => input.split('\0').length))
    expect(largest).toBeLessThan(100)
    expect(gitAt(storePaths(dir).gitDir, 'ls-files').split('\n').filter(Boolean)).toHaveLength(1100)
    expect(gitAt(storePaths(dir).gitDir, 'diff-files', '--name-only')).toBe('')
    // The blobs in the index are the ones git computes from the files.
    expect(gitAt(storePaths(dir).gitDir, 'ls-files', '-s', 'src/d7/f7.ts').split(' ')[1]).toBe(
      blobSha(Buffer.from('export const v = 7\n')),
    )
  })

  it('starts again with git reading every file when fast-import fails after the index was written', async () => {
    for (let i = 0; i < 1100; i++) write(dir, `src/d${i % 30}/f${i}.ts`, `export const v = ${i}\n`)
    const git = new BrokenFastImportGit(storePaths(dir).gitDir, dir)
    await initStore(git)
    const result = await stageWorkingTree(git, dir, 1024, { log: memoryLogger() })
    expect(result.skipped).toEqual([])
    expect(git.fastImports).toBe(1)
    // The index written from the failed pack was dropped and git added every file itself.
    const largest = Math.max(0, ...git.updateIndexInputs.map((input) => input.split('\0').length))
    expect(largest).toBeGreaterThanOrEqual(1100)
    const store = storePaths(dir).gitDir
    expect(gitAt(store, 'ls-files').split('\n').filter(Boolean)).toHaveLength(1100)
    expect(gitAt(store, 'diff-files', '--name-only')).toBe('')
    const tree = gitAt(store, 'write-tree').trim()
    expect(gitAt(store, 'cat-file', '-p', `${tree}:src/d7/f7.ts`)).toBe('export const v = 7\n')
  })

  it('prepack names every blob it stores, with git’s stat data, and skips what it must not store', async () => {
    write(dir, 'a.txt', 'A')
    write(dir, 'big.txt', 'too large')
    write(dir, 'folder/inside.txt', 'x')
    symlinkSync('a.txt', join(dir, 'link'))
    const git = new ShadowGit(storePaths(dir).gitDir, dir)
    await initStore(git)
    const packed = await prepack(git, dir, ['link', 'a.txt', 'gone.txt', 'big.txt', 'folder'], 4)
    await packed.done
    const { entries } = packed
    expect(entries.paths).toEqual(['a.txt', 'link'])
    expect([0, 1].map((i) => entries.sha(i).toString('hex'))).toEqual([
      blobSha(Buffer.from('A')),
      blobSha(Buffer.from('a.txt')),
    ])
    expect([0, 1].map((i) => entries.mode(i).toString(8))).toEqual(['100644', '120000'])
    expect(gitAt(storePaths(dir).gitDir, 'cat-file', '-p', entries.sha(0).toString('hex'))).toBe('A')
    // The trees computed here are the ones fast-import stored (done checked the root), and git reads them back.
    const root = packed.trees!.root.toString('hex')
    expect(gitAt(storePaths(dir).gitDir, 'ls-tree', '--name-only', root).split('\n')).toEqual([
      'a.txt',
      'link',
      '',
    ])
  })
})

/** Real git, with the input of every update-index call kept for inspection. */
class RecordingGit extends ShadowGit {
  readonly updateIndexInputs: string[] = []
  override run(args: string[], opts: Parameters<ShadowGit['run']>[1] = {}): ReturnType<ShadowGit['run']> {
    if (args.includes('update-index')) this.updateIndexInputs.push(String(opts.input ?? ''))
    return super.run(args, opts)
  }
}

/** Real git whose fast-import dies at once (an unknown option), as a crash or a full disk would make it. */
class BrokenFastImportGit extends RecordingGit {
  fastImports = 0
  override spawn(args: string[]): ReturnType<ShadowGit['spawn']> {
    if (args[0] !== 'fast-import') return super.spawn(args)
    this.fastImports++
    return super.spawn(['fast-import', '--no-such-option'])
  }
}
