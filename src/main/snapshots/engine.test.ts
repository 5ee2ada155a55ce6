import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { isAppError } from '../../shared/errors'
import { SnapshotEngine } from './engine'
import { MIN_GIT_VERSION } from './git'
import { fingerprint, mtimes, read, removeDir, tempProject, userGit, write } from './testkit'
import { memoryLogger } from '../workspace/logFile'

let dir: string
let engine: SnapshotEngine

beforeEach(() => {
  dir = tempProject()
  engine = new SnapshotEngine({ projectDir: dir, logger: memoryLogger() })
})
afterEach(() => removeDir(dir))

const skipStore = (rel: string): boolean => rel.startsWith('.ralph/') && rel.endsWith('.lock')

async function expectAppError(p: Promise<unknown>, kind: string): Promise<void> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  )
  expect(isAppError(err), String(err)).toBe(true)
  expect((err as { kind: string }).kind).toBe(kind)
}

describe('phase 0 (seed §4): task boundary snapshots', () => {
  it('snapshots src/ and .ralph/ at task-N-pre, restores both, lists and diffs', async () => {
    const pre0 = await engine.save({ kind: 'task-pre', task: 1, message: 'empty project' })
    expect(pre0.tag).toBe('task-1-pre')
    write(dir, 'src/app.ts', 'export const a = 1\n')
    write(dir, '.ralph/task.md', '# Task 1\n')
    write(dir, '.ralph/task-counter.txt', '1')
    const post = await engine.save({ kind: 'task-post', task: 1 })
    expect(post.tag).toBe('task-1-post')
    expect(post.added).toBe(3)

    const pre2 = await engine.save({ kind: 'task-pre', task: 2 })
    write(dir, 'src/app.ts', 'export const a = 2\n')
    write(dir, '.ralph/task.md', '# Task 2\n')
    write(dir, '.ralph/task-counter.txt', '2')
    expect(pre2.added + pre2.modified + pre2.deleted).toBe(0)

    const diff = await engine.diff('task-2-pre')
    expect(diff.entries.map((e) => `${e.status} ${e.path}`).sort()).toEqual([
      'modified .ralph/task-counter.txt',
      'modified .ralph/task.md',
      'modified src/app.ts',
    ])
    const r = await engine.rollback('task-1-post')
    expect(r.safetyTag).toMatch(/^safety-\d+$/)
    expect(read(dir, 'src/app.ts').toString()).toBe('export const a = 1\n')
    expect(read(dir, '.ralph/task-counter.txt').toString()).toBe('1')
    expect(read(dir, '.ralph/task.md').toString()).toBe('# Task 1\n')

    const list = await engine.list()
    expect(list.items.map((s) => s.tag)).toEqual([r.safetyTag, 'task-2-pre', 'task-1-post', 'task-1-pre'])
    expect(list.items[2]).toMatchObject({ kind: 'task-post', task: 1, added: 3 })
    // The safety snapshot is named by what it undoes, in words; its target's tag is in its meta.
    expect(list.items[0]).toMatchObject({
      message: 'Before rolling back to after Task 1',
      rollbackTarget: 'task-1-post',
    })
    const status = await engine.status()
    expect(status.position?.tag).toBe('task-1-post')
    expect(status.dirty).toBe(false)
    expect(existsSync(join(dir, '.ralph/.gitignore'))).toBe(true)
  })

  it('names tags per kind and never reuses one', async () => {
    const clock = 1_700_000_000_000
    engine = new SnapshotEngine({ projectDir: dir, now: () => clock, logger: memoryLogger() })
    expect((await engine.save({ kind: 'manual' })).tag).toBe('manual-1700000000')
    expect((await engine.save({ kind: 'manual' })).tag).toBe('manual-1700000000-2')
    expect((await engine.save({ kind: 'stall-recovery', task: 3 })).tag).toBe('stall-3-recovery')
    expect((await engine.save({ kind: 'stall-recovery', task: 3 })).tag).toBe('stall-3-recovery-2')
    expect((await engine.save({ kind: 'task-pre', task: 4 })).tag).toBe('task-4-pre')
    expect((await engine.save({ kind: 'task-pre', task: 4 })).tag).toBe('task-4-pre-2')
    await expectAppError(engine.save({ kind: 'task-pre' }), 'invalid-input')
  })

  it('pages through many snapshots newest first and filters by kind', async () => {
    let t = 1_700_000_000_000
    engine = new SnapshotEngine({ projectDir: dir, now: () => (t += 1000), logger: memoryLogger() })
    for (let i = 1; i <= 12; i++) await engine.save({ kind: i % 3 === 0 ? 'manual' : 'task-pre', task: i })
    const page = await engine.list({ offset: 2, limit: 3 })
    expect(page.total).toBe(12)
    expect(page.items.map((s) => s.tag)).toEqual(['task-10-pre', 'manual-1700000009', 'task-8-pre'])
    expect((await engine.list({ kind: 'manual' })).total).toBe(4)
    expect((await engine.list({ task: 7 })).items.map((s) => s.tag)).toEqual(['task-7-pre'])
  })

  it('reads one snapshot by its tag as the listing has it, without listing the timeline', async () => {
    let t = 1_700_000_000_000
    engine = new SnapshotEngine({ projectDir: dir, now: () => (t += 1000), logger: memoryLogger() })
    expect(await engine.get('task-1-pre')).toBeNull()
    write(dir, 'src/a.txt', 'one\n')
    await engine.save({ kind: 'task-pre', task: 1, message: 'pre-task 1: write a' })
    write(dir, 'src/a.txt', 'two\n')
    write(dir, 'src/b.txt', 'new\n')
    await engine.save({ kind: 'task-post', task: 1, message: 'task 1: write a' })
    const { items } = await engine.list()
    for (const tag of ['task-1-pre', 'task-1-post'])
      expect(await engine.get(tag)).toEqual(items.find((s) => s.tag === tag))
    expect(await engine.get('task-1-post')).toMatchObject({
      message: 'task 1: write a',
      modified: 1,
      added: 1,
    })
    expect(await engine.get('task-2-post')).toBeNull()
    await expectAppError(engine.get('../HEAD'), 'invalid-input')
  })
})

describe('rollback', () => {
  it('handles add, modify, delete and rename, and reports exactly what it changed', async () => {
    write(dir, 'keep.txt', 'same')
    write(dir, 'mod.txt', 'v1')
    write(dir, 'del.txt', 'bye')
    write(dir, 'old/name.txt', 'rename me please, I am long enough for rename detection\n')
    await engine.save({ kind: 'task-pre', task: 1 })
    write(dir, 'mod.txt', 'v2')
    removeDir(join(dir, 'del.txt'))
    write(dir, 'new/name.txt', read(dir, 'old/name.txt'))
    removeDir(join(dir, 'old'))
    write(dir, 'added.txt', 'hi')
    await engine.save({ kind: 'task-post', task: 1 })
    const diff = await engine.diff('task-1-pre', 'task-1-post')
    expect(diff.entries).toContainEqual({
      status: 'renamed',
      path: 'new/name.txt',
      oldPath: 'old/name.txt',
      similarity: 100,
    })
    expect(diff.counts).toEqual({ added: 1, modified: 1, deleted: 1, renamed: 1 })

    const before = mtimes(dir, ['keep.txt'])
    const r = await engine.rollback('task-1-pre')
    expect(r.written.map((w) => `${w.change} ${w.path}`)).toEqual([
      'added del.txt',
      'modified mod.txt',
      'added old/name.txt',
    ])
    expect(r.deleted.sort()).toEqual(['added.txt', 'new/name.txt'])
    expect(read(dir, 'mod.txt').toString()).toBe('v1')
    expect(read(dir, 'del.txt').toString()).toBe('bye')
    expect(existsSync(join(dir, 'new'))).toBe(false)
    expect(mtimes(dir, ['keep.txt'])).toEqual(before)
  })

  it('removes a file created after the target and brings it back byte-for-byte with undo', async () => {
    write(dir, 'a.txt', 'a')
    await engine.save({ kind: 'task-pre', task: 1 })
    const bytes = Buffer.from([0, 1, 2, 255, 254, 10, 13, 10])
    write(dir, 'later.bin', bytes)
    write(dir, 'a.txt', 'changed\r\n')
    const whole = fingerprint(dir, { skip: skipStore })
    const r = await engine.rollback('task-1-pre')
    expect(r.deleted).toEqual(['later.bin'])
    expect(existsSync(join(dir, 'later.bin'))).toBe(false)
    const u = await engine.undo()
    expect(u.undid).toBe('task-1-pre')
    expect(read(dir, 'later.bin').equals(bytes)).toBe(true)
    expect(fingerprint(dir, { skip: skipStore })).toEqual(whole)
  })

  it('undo restores the whole tree byte-for-byte, and undoing the undo redoes the rollback', async () => {
    write(dir, 'src/x.ts', 'x1')
    write(dir, 'run.sh', '#!/bin/sh\necho hi\n')
    chmodSync(join(dir, 'run.sh'), 0o755)
    symlinkSync('src/x.ts', join(dir, 'link'))
    await engine.save({ kind: 'task-pre', task: 1 })
    write(dir, 'src/x.ts', 'x2')
    write(dir, 'src/y.ts', 'y')
    chmodSync(join(dir, 'run.sh'), 0o644)
    removeDir(join(dir, 'link'))
    const after = fingerprint(dir, { skip: skipStore })
    await engine.rollback('task-1-pre')
    const atTarget = fingerprint(dir, { skip: skipStore })
    expect(lstatSync(join(dir, 'link')).isSymbolicLink()).toBe(true)
    expect(lstatSync(join(dir, 'run.sh')).mode & 0o111).not.toBe(0)
    await engine.undo()
    expect(fingerprint(dir, { skip: skipStore })).toEqual(after)
    await engine.undo()
    expect(fingerprint(dir, { skip: skipStore })).toEqual(atTarget)
  })

  it('never deletes or changes ignored files, oversized files or node_modules', async () => {
    engine = new SnapshotEngine({ projectDir: dir, sizeCap: 1024, logger: memoryLogger() })
    write(dir, '.gitignore', 'secret.env\nlogs/\n')
    write(dir, 'app.js', 'v1')
    write(dir, 'node_modules/lib/index.js', 'module.exports = 1')
    await engine.save({ kind: 'task-pre', task: 1 })
    // Created after the snapshot: none of these can be held by a snapshot.
    write(dir, 'secret.env', 'KEY=1')
    write(dir, 'logs/today.log', 'log')
    write(dir, 'huge.bin', Buffer.alloc(4096, 7))
    write(dir, 'node_modules/lib/index.js', 'module.exports = 2')
    write(dir, 'node_modules/new/index.js', 'new')
    write(dir, 'app.js', 'v2')
    const keep = [
      'secret.env',
      'logs/today.log',
      'huge.bin',
      'node_modules/lib/index.js',
      'node_modules/new/index.js',
    ]
    const before = fingerprint(dir, { skip: (r) => !keep.includes(r) && !r.startsWith('node_modules') })
    const times = mtimes(dir, keep)
    const preview = await engine.previewRollback('task-1-pre')
    expect(preview.skipped).toEqual([{ path: 'huge.bin', reason: 'too-large', size: 4096 }])
    const r = await engine.rollback('task-1-pre')
    expect(r.written.map((w) => w.path)).toEqual(['app.js'])
    expect(r.deleted).toEqual([])
    expect(read(dir, 'app.js').toString()).toBe('v1')
    expect(fingerprint(dir, { skip: (x) => !keep.includes(x) && !x.startsWith('node_modules') })).toEqual(
      before,
    )
    expect(mtimes(dir, keep)).toEqual(times)
  })

  it('leaves alone an ignored file standing where the target has a file', async () => {
    write(dir, 'config.json', '{"v":1}')
    await engine.save({ kind: 'task-pre', task: 1 })
    write(dir, '.gitignore', 'config.json\n')
    await engine.save({ kind: 'task-post', task: 1 }) // config.json is now ignored, but still tracked
    userGit(dir, 'init', '-q') // irrelevant to the shadow store; proves independence
    // Drop it from the shadow index by deleting and recreating it as an ignored file.
    removeDir(join(dir, 'config.json'))
    await engine.save({ kind: 'manual' })
    write(dir, 'config.json', '{"mine":true}')
    const r = await engine.rollback('task-1-pre')
    expect(r.leftAlone).toEqual([{ path: 'config.json', reason: 'ignored-or-skipped' }])
    expect(read(dir, 'config.json').toString()).toBe('{"mine":true}')
    expect(existsSync(join(dir, '.gitignore'))).toBe(false)
  })

  it('swaps a folder for a file and back, but never deletes a folder that holds ignored files', async () => {
    write(dir, 'notes', 'a file called notes')
    await engine.save({ kind: 'task-pre', task: 1 })
    rmSync(join(dir, 'notes'))
    write(dir, 'notes/one.md', '1')
    write(dir, 'notes/sub/two.md', '2')
    await engine.save({ kind: 'task-post', task: 1 })
    const back = await engine.rollback('task-1-pre')
    expect(back.written).toEqual([{ path: 'notes', change: 'added' }])
    expect(back.deleted.sort()).toEqual(['notes/one.md', 'notes/sub/two.md'])
    expect(read(dir, 'notes').toString()).toBe('a file called notes')
    await engine.undo()
    expect(read(dir, 'notes/sub/two.md').toString()).toBe('2')

    write(dir, '.gitignore', '*.log\n')
    write(dir, 'notes/private.log', 'never snapshotted')
    const preview = await engine.previewRollback('task-1-pre')
    const r = await engine.rollback('task-1-pre')
    for (const report of [preview, r]) {
      expect(report.leftAlone).toEqual([{ path: 'notes', reason: 'ignored-or-skipped' }])
      expect(report.written).toEqual([])
    }
    expect(read(dir, 'notes/private.log').toString()).toBe('never snapshotted')
    expect(existsSync(join(dir, 'notes/one.md'))).toBe(false)
    await engine.undo()
    expect(read(dir, 'notes/one.md').toString()).toBe('1')
  })

  it('leaves alone a file whose name differs only in case from one the rollback deletes', async () => {
    // Case-insensitive file systems show a case-only rename's new name as existing; here (case-sensitive) a
    // real, ignored file sits under that exact name and must survive.
    write(dir, 'NOTES.md', 'target version')
    await engine.save({ kind: 'task-pre', task: 1 })
    rmSync(join(dir, 'NOTES.md'))
    write(dir, 'notes.md', 'tracked, lower case')
    write(dir, '.gitignore', 'NOTES.md\n')
    await engine.save({ kind: 'manual' })
    write(dir, 'NOTES.md', 'ignored, mine')
    expect((await engine.previewRollback('task-1-pre')).leftAlone).toEqual([
      { path: 'NOTES.md', reason: 'ignored-or-skipped' },
    ])
    const r = await engine.rollback('task-1-pre')
    expect(r.deleted).toContain('notes.md')
    expect(r.leftAlone).toEqual([{ path: 'NOTES.md', reason: 'ignored-or-skipped' }])
    expect(read(dir, 'NOTES.md').toString()).toBe('ignored, mine')
  })

  it('keeps the mtime of unchanged files', async () => {
    for (let i = 0; i < 20; i++) write(dir, `f${i}.txt`, `${i}`)
    const old = new Date(Date.now() - 3600_000)
    for (let i = 0; i < 20; i++) utimesSync(join(dir, `f${i}.txt`), old, old)
    await engine.save({ kind: 'task-pre', task: 1 })
    write(dir, 'f0.txt', 'changed')
    const rels = Array.from({ length: 19 }, (_, i) => `f${i + 1}.txt`)
    const before = mtimes(dir, rels)
    await engine.rollback('task-1-pre')
    expect(mtimes(dir, rels)).toEqual(before)
  })

  it('previews without touching anything', async () => {
    write(dir, 'a.txt', '1')
    await engine.save({ kind: 'task-pre', task: 1 })
    write(dir, 'a.txt', '2')
    write(dir, 'b.txt', 'b')
    const before = fingerprint(dir, { skip: skipStore })
    const p = await engine.previewRollback('task-1-pre')
    expect(p).toMatchObject({ preview: true, safetyTag: null, deleted: ['b.txt'] })
    expect(p.written).toEqual([{ path: 'a.txt', change: 'modified' }])
    expect(fingerprint(dir, { skip: skipStore })).toEqual(before)
    expect((await engine.list()).total).toBe(1)
  })

  it('refuses a tag that does not exist, and undo without a rollback', async () => {
    await engine.save({ kind: 'manual' })
    await expectAppError(engine.rollback('task-9-pre'), 'not-found')
    await expectAppError(engine.rollback('--force'), 'invalid-input')
    await expectAppError(engine.diff('nope-1'), 'not-found')
    await expectAppError(engine.undo(), 'not-found')
    expect((await engine.list()).total).toBe(1) // a failed rollback takes no safety snapshot
  })
})

describe('what a snapshot holds', () => {
  it('drops credential files an older snapshot still tracks, once per store, and lists them as skipped', async () => {
    write(dir, 'top.txt', 'top')
    await engine.save({ kind: 'task-pre', task: 1 })
    // A store from before credential stores were left out: the key is in its index, and status never lists an
    // unchanged tracked file again.
    write(dir, '.ssh/id_ed25519', 'PRIVATE KEY BODY')
    const store = join(dir, '.ralph', 'snapshots.git')
    userGit(dir, `--git-dir=${store}`, `--work-tree=${dir}`, 'update-index', '--add', '.ssh/id_ed25519')
    rmSync(join(store, 'info', 'ralph-credentials-checked-v1'))
    const save = await engine.save({ kind: 'task-post', task: 1 })
    expect(save.skipped).toContainEqual({ path: '.ssh', reason: 'credentials' })
    const tree = userGit(dir, `--git-dir=${store}`, 'ls-tree', '-r', '--name-only', 'task-1-post')
    expect(tree.split('\n')).toContain('top.txt')
    expect(tree).not.toContain('id_ed25519')
    expect(existsSync(join(store, 'info', 'ralph-credentials-checked-v1'))).toBe(true)
    expect(read(dir, '.ssh/id_ed25519').toString()).toBe('PRIVATE KEY BODY') // the user's file stays where it is
  })

  it('excludes nested repos and .git files, never touching them', async () => {
    write(dir, 'top.txt', 'top')
    mkdirSync(join(dir, 'vendor/lib'), { recursive: true })
    userGit(join(dir, 'vendor/lib'), 'init', '-q')
    write(dir, 'vendor/lib/code.c', 'int x;')
    userGit(join(dir, 'vendor/lib'), 'add', '.')
    userGit(join(dir, 'vendor/lib'), 'commit', '-qm', 'x')
    mkdirSync(join(dir, 'empty-repo'))
    userGit(join(dir, 'empty-repo'), 'init', '-q')
    write(dir, 'empty-repo/draft.txt', 'draft')
    write(dir, 'wt/.git', 'gitdir: /nonexistent/worktrees/wt\n')
    write(dir, 'wt/file.txt', 'in a worktree')
    const save = await engine.save({ kind: 'task-pre', task: 1 })
    expect(save.skipped).toEqual([
      { path: 'empty-repo', reason: 'nested-repo' },
      { path: 'vendor/lib', reason: 'nested-repo' },
      { path: 'wt', reason: 'nested-repo' },
    ])
    const inner = fingerprint(dir, { skip: (r) => !/^(vendor|empty-repo|wt)(\/|$)/.test(r) })
    write(dir, 'vendor/lib/code.c', 'int y;')
    write(dir, 'top.txt', 'changed')
    await engine.save({ kind: 'task-post', task: 1 })
    const after = fingerprint(dir, { skip: (r) => !/^(vendor|empty-repo|wt)(\/|$)/.test(r) })
    await engine.rollback('task-1-pre')
    expect(read(dir, 'top.txt').toString()).toBe('top')
    expect(fingerprint(dir, { skip: (r) => !/^(vendor|empty-repo|wt)(\/|$)/.test(r) })).toEqual(after)
    expect(after.get('vendor/lib/code.c')).not.toEqual(inner.get('vendor/lib/code.c'))
    expect(userGit(join(dir, 'vendor/lib'), 'status', '--porcelain')).toBe(' M code.c\n')
    await expect(engine.show('task-1-pre', 'wt/file.txt')).rejects.toThrow(/not in snapshot/)
  })

  it('skips and reports untracked files over the size cap', async () => {
    engine = new SnapshotEngine({ projectDir: dir, sizeCap: 1000, logger: memoryLogger() })
    write(dir, 'small.txt', 'x'.repeat(1000))
    write(dir, 'big.dat', Buffer.alloc(1001))
    const s = await engine.save({ kind: 'manual' })
    expect(s.skipped).toEqual([{ path: 'big.dat', reason: 'too-large', size: 1001 }])
    const listed = (await engine.list()).items[0]!
    expect(listed.skipped).toEqual(s.skipped)
    await expectAppError(engine.show(s.tag, 'big.dat'), 'not-found')
    expect((await engine.show(s.tag, 'small.txt')).size).toBe(1000)
  })

  it('reports a file whose name is not UTF-8 as skipped instead of leaving it out in silence', async () => {
    write(dir, 'ok.txt', 'ok')
    const raw = Buffer.concat([Buffer.from(`${dir}/latin1-`), Buffer.from([0xe9, 0xff]), Buffer.from('.txt')])
    writeFileSync(raw, 'bytes')
    const s = await engine.save({ kind: 'manual' })
    expect(s.skipped).toEqual([{ path: 'latin1-\uFFFD\uFFFD.txt', reason: 'unreadable' }])
    expect((await engine.show(s.tag, 'ok.txt')).content.toString()).toBe('ok')
    // Nothing is deleted or changed on either side of a rollback.
    write(dir, 'ok.txt', 'changed')
    await engine.rollback(s.tag)
    expect(readFileSync(raw, 'utf8')).toBe('bytes')
    expect(read(dir, 'ok.txt').toString()).toBe('ok')
  })

  it('stores binary files and odd file names exactly', async () => {
    const names = [
      'with space.txt',
      'ünïcödé/日本語.md',
      '-leading-dash.txt',
      '--force',
      'tab\there',
      'quote"s.txt',
    ]
    const bin = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7) % 256))
    for (const n of names) write(dir, n, `content of ${n}`)
    write(dir, 'img.png', bin)
    const s = await engine.save({ kind: 'task-pre', task: 1 })
    expect(s.added).toBe(names.length + 2) // + .ralph/.gitignore
    for (const n of names) expect((await engine.show(s.tag, n)).content.toString()).toBe(`content of ${n}`)
    const shown = await engine.show(s.tag, 'img.png')
    expect(shown.binary).toBe(true)
    expect(shown.content.equals(bin)).toBe(true)
    for (const n of names) removeDir(join(dir, n))
    write(dir, 'img.png', Buffer.from('now text'))
    const r = await engine.rollback(s.tag)
    expect(r.written.length).toBe(names.length + 1)
    for (const n of names) expect(read(dir, n).toString()).toBe(`content of ${n}`)
    expect(read(dir, 'img.png').equals(bin)).toBe(true)
  })

  it('packs a large first snapshot into one pack, odd names, links and modes included', async () => {
    const odd = ['"starts with a quote.txt', 'new\nline.txt', 'with space/ü.txt', '-dash']
    for (let i = 0; i < 1200; i++) write(dir, `src/d${i % 40}/f${i}.ts`, `export const v = ${i}\n`)
    for (const n of odd) write(dir, n, `content of ${JSON.stringify(n)}`)
    write(dir, 'bin/run.sh', '#!/bin/sh\n')
    chmodSync(join(dir, 'bin/run.sh'), 0o755)
    symlinkSync('src/d0/f0.ts', join(dir, 'link'))
    const s = await engine.save({ kind: 'task-pre', task: 1 })
    const before = fingerprint(dir, { skip: skipStore })
    expect(before.size).toBe(1200 + odd.length + 3)
    expect(s.added).toBe(1200 + odd.length + 3) // + run.sh, link, .ralph/.gitignore
    // Every blob and tree went into a pack: no loose object was written besides the commit.
    const loose = readdirSync(join(dir, '.ralph/snapshots.git/objects')).filter((d) =>
      /^[0-9a-f]{2}$/.test(d),
    )
    const looseCount = loose.reduce(
      (n, d) => n + readdirSync(join(dir, '.ralph/snapshots.git/objects', d)).length,
      0,
    )
    expect(looseCount).toBe(1)
    for (const n of odd) expect((await engine.show(s.tag, n)).content.toString()).toContain('content of')
    rmSync(join(dir, 'src'), { recursive: true })
    rmSync(join(dir, 'link'))
    for (const n of odd) rmSync(join(dir, n))
    chmodSync(join(dir, 'bin/run.sh'), 0o644)
    await engine.rollback(s.tag)
    expect(fingerprint(dir, { skip: skipStore })).toEqual(before)
  })

  it('always includes .ralph/ state even when the project ignores .ralph/', async () => {
    write(dir, '.gitignore', '.ralph/\n*.md\n')
    write(dir, '.ralph/task.md', 'task')
    write(dir, '.ralph/status.txt', 'running')
    write(dir, 'notes.md', 'ignored')
    const s = await engine.save({ kind: 'task-pre', task: 1 })
    expect((await engine.show(s.tag, '.ralph/task.md')).content.toString()).toBe('task')
    await expectAppError(engine.show(s.tag, 'notes.md'), 'not-found')
    await expectAppError(engine.show(s.tag, '.ralph/snapshots.git/HEAD'), 'invalid-input')
    write(dir, '.ralph/status.txt', 'complete')
    removeDir(join(dir, '.ralph/task.md'))
    await engine.rollback(s.tag)
    expect(read(dir, '.ralph/status.txt').toString()).toBe('running')
    expect(read(dir, '.ralph/task.md').toString()).toBe('task')
    expect(existsSync(join(dir, '.ralph/snapshots.git/HEAD'))).toBe(true)
  })

  it('never changes the status, HEAD or index of the project’s own git repo', async () => {
    userGit(dir, 'init', '-q')
    write(dir, 'committed.txt', 'c1')
    write(dir, 'staged.txt', 's1')
    userGit(dir, 'add', 'committed.txt')
    userGit(dir, 'commit', '-qm', 'first')
    write(dir, 'committed.txt', 'c2 (unstaged)')
    userGit(dir, 'add', 'staged.txt')
    write(dir, 'untracked.txt', 'u')
    userGit(dir, 'stash', 'list')
    const state = (): unknown => ({
      status: userGit(dir, 'status', '--porcelain=v2', '--branch', '--untracked-files=all'),
      head: userGit(dir, 'rev-parse', 'HEAD'),
      index: readFileSync(join(dir, '.git/index')).toString('base64'),
      refs: userGit(dir, 'for-each-ref'),
      gitFiles: readdirSync(join(dir, '.git')).sort(),
    })
    // .ralph/ is created by the first save; let the user's repo see it before comparing.
    await engine.init()
    const before = state()
    await engine.save({ kind: 'task-pre', task: 1 })
    expect(state()).toEqual(before)
    write(dir, 'untracked.txt', 'u2')
    await engine.save({ kind: 'task-post', task: 1 })
    await engine.rollback('task-1-pre')
    expect(read(dir, 'untracked.txt').toString()).toBe('u')
    expect(state()).toEqual(before)
    await engine.undo()
    expect(read(dir, 'untracked.txt').toString()).toBe('u2')
    expect(userGit(dir, 'rev-parse', 'HEAD')).toEqual((before as { head: string }).head)
  })

  it('works in a folder that is not a git repository', async () => {
    write(dir, 'a.txt', 'a')
    const s = await engine.save({ kind: 'task-pre', task: 1, message: 'plain folder' })
    expect(existsSync(join(dir, '.git'))).toBe(false)
    expect(s.message).toBe('plain folder')
    expect((await engine.list()).items[0]?.message).toBe('plain folder')
  })
})

describe('diff, show, status, usage, prune', () => {
  it('gives per-file content pairs with placeholders for binary and large files', async () => {
    write(dir, 't.txt', 'one\n')
    write(dir, 'b.bin', Buffer.from([1, 0, 2]))
    write(dir, 'large.txt', 'x'.repeat(2000))
    await engine.save({ kind: 'task-pre', task: 1 })
    write(dir, 't.txt', 'two\n')
    const fd = await engine.fileDiff('task-1-pre', 't.txt')
    expect(fd.old.content).toBe('one\n')
    expect(fd.new.content).toBe('two\n')
    const b = await engine.fileDiff('task-1-pre', 'b.bin')
    expect(b.old).toMatchObject({ exists: true, binary: true, content: null })
    const l = await engine.fileDiff('task-1-pre', 'large.txt', undefined, 1000)
    expect(l.old).toMatchObject({ exists: true, tooLarge: true, size: 2000, content: null })
    const gone = await engine.fileDiff('task-1-pre', 'missing.txt')
    expect(gone.old.exists).toBe(false)
    await expectAppError(engine.fileDiff('task-1-pre', '../outside.txt'), 'invalid-input')
    await expectAppError(engine.show('task-1-pre', '/etc/passwd'), 'invalid-input')
    await expectAppError(engine.show('task-1-pre', 'a/../../x'), 'invalid-input')
  })

  it('reports status: position, whether the tree changed, how many files', async () => {
    let s = await engine.status()
    expect(s).toMatchObject({ position: null, latest: null, snapshotCount: 0 })
    write(dir, 'a.txt', 'a')
    await engine.save({ kind: 'task-pre', task: 1 })
    s = await engine.status()
    expect(s).toMatchObject({ dirty: false, trackedFiles: 2, snapshotCount: 1 })
    expect(s.position?.tag).toBe('task-1-pre')
    write(dir, 'b.txt', 'b')
    s = await engine.status()
    expect(s.dirty).toBe(true)
    expect(s.changes).toMatchObject({ added: 1, modified: 0, deleted: 0 })
  })

  it('prunes old manual and safety snapshots but never task-* tags', async () => {
    let t = 1_700_000_000_000
    engine = new SnapshotEngine({ projectDir: dir, now: () => (t += 60_000), logger: memoryLogger() })
    await engine.save({ kind: 'task-pre', task: 1 })
    for (let i = 0; i < 4; i++) {
      write(dir, `m${i}.txt`, 'x'.repeat(10_000) + i)
      await engine.save({ kind: 'manual' })
    }
    await engine.save({ kind: 'task-post', task: 1 })
    await engine.rollback('task-1-pre')
    const dry = await engine.prune({ keepLast: 1, dryRun: true })
    expect(dry.removedTags.length).toBe(3)
    const usageBefore = await engine.usage()
    expect(usageBefore.snapshotCount).toBe(7)
    const p = await engine.prune({ keepLast: 1 })
    expect(p.removedTags.every((tg) => tg.startsWith('manual-'))).toBe(true)
    const tags = (await engine.list()).items.map((x) => x.tag)
    expect(tags).toContain('task-1-pre')
    expect(tags).toContain('task-1-post')
    expect(tags.filter((x) => x.startsWith('manual-')).length).toBe(1)
    expect((await engine.usage()).packs).toBe(1)
    await engine.undo() // the safety snapshot survived
    expect(read(dir, 'm3.txt').toString().endsWith('3')).toBe(true)
  })
})

describe('locking and repair', () => {
  it('runs concurrent operations in one process one at a time', async () => {
    write(dir, 'a.txt', 'a')
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) => engine.save({ kind: 'task-pre', task: 1, message: `${i}` })),
    )
    expect(new Set(results.map((r) => r.tag)).size).toBe(5)
    const other = new SnapshotEngine({ projectDir: dir, logger: memoryLogger() })
    const both = await Promise.all([engine.save({ kind: 'manual' }), other.save({ kind: 'manual' })])
    expect(both[0].tag).not.toBe(both[1].tag)
  })

  it('repairs a stale index.lock, a stale lock file and a broken ref on open', async () => {
    write(dir, 'a.txt', 'a')
    await engine.save({ kind: 'task-pre', task: 1 })
    const gitDir = join(dir, '.ralph/snapshots.git')
    writeFileSync(join(gitDir, 'index.lock'), '')
    // Old enough to be debris rather than the lock of a git process still running.
    const longAgo = new Date(Date.now() - 10 * 60_000)
    utimesSync(join(gitDir, 'index.lock'), longAgo, longAgo)
    writeFileSync(join(gitDir, 'refs/tags/task-2-pre'), '')
    writeFileSync(join(gitDir, 'refs/tags/manual-5'), 'deadbeefdeadbeefdeadbeefdeadbeefdeadbeef\n')
    writeFileSync(
      join(dir, '.ralph/snapshots.lock'),
      JSON.stringify({
        pid: 999_999_9,
        host: (await import('node:os')).hostname(),
        op: 'save',
        startedAt: 1,
      }),
    )
    const fresh = new SnapshotEngine({ projectDir: dir, logger: memoryLogger() })
    const { repairs } = await fresh.open()
    expect(repairs.join('\n')).toMatch(/stale snapshot lock left by process 9999999/)
    expect(repairs.join('\n')).toMatch(/index\.lock/)
    expect(repairs.join('\n')).toMatch(/task-2-pre/)
    expect(repairs.join('\n')).toMatch(/manual-5/)
    write(dir, 'a.txt', 'b')
    await fresh.save({ kind: 'task-pre', task: 2 })
    await fresh.rollback('task-1-pre')
    expect(read(dir, 'a.txt').toString()).toBe('a')
  })

  it('lets a git process that outlived its parent finish instead of breaking its lock', async () => {
    write(dir, 'a.txt', 'a')
    await engine.save({ kind: 'task-pre', task: 1 })
    const lock = join(dir, '.ralph/snapshots.git/index.lock')
    writeFileSync(lock, '')
    // The "orphan" releases its lock a moment later, as a git child of a killed process would.
    setTimeout(() => rmSync(lock, { force: true }), 300)
    const fresh = new SnapshotEngine({ projectDir: dir, logger: memoryLogger() })
    const { repairs } = await fresh.open()
    expect(repairs.join('\n')).not.toMatch(/index\.lock/)
    write(dir, 'a.txt', 'b')
    expect((await fresh.save({ kind: 'manual' })).modified).toBe(1)
  })

  it('rebuilds a damaged shadow index', async () => {
    write(dir, 'a.txt', 'a')
    await engine.save({ kind: 'task-pre', task: 1 })
    writeFileSync(join(dir, '.ralph/snapshots.git/index'), 'garbage')
    const fresh = new SnapshotEngine({ projectDir: dir, logger: memoryLogger() })
    expect((await fresh.open()).repairs.join('\n')).toMatch(/index/)
    const s = await fresh.save({ kind: 'manual' })
    expect(s.added + s.modified + s.deleted).toBe(0)
  })

  it('says clearly when git is missing, naming the minimum version', async () => {
    const e = new SnapshotEngine({ projectDir: dir, gitBinary: '/nonexistent/git', logger: memoryLogger() })
    const err = await e.save({ kind: 'manual' }).catch((x: unknown) => x)
    expect(isAppError(err, 'git')).toBe(true)
    expect((err as Error).message).toContain(MIN_GIT_VERSION)
  })
})

describe("Ralph's own files counted apart (#26)", () => {
  it('records how many of a snapshot’s changes are under .ralph/, in the commit and in status', async () => {
    write(dir, 'index.html', '<h1>hi</h1>\n')
    write(dir, '.ralph/state.json', '{}')
    const first = await engine.save({ kind: 'baseline' })
    // The first snapshot adds everything; Ralph's own are counted from the index.
    expect(first.ralph?.added).toBeGreaterThanOrEqual(1)
    expect(first.added - first.ralph!.added).toBe(1)

    write(dir, 'index.html', '<h1>hello</h1>\n')
    write(dir, '.ralph/state.json', '{"a":1}')
    write(dir, '.ralph/plan.md', '# plan\n')
    const status = await engine.status()
    expect(status.changes).toMatchObject({
      added: 1,
      modified: 2,
      ralph: { added: 1, modified: 1, deleted: 0 },
    })

    const post = await engine.save({ kind: 'task-post', task: 1 })
    expect(post).toMatchObject({ added: 1, modified: 2, ralph: { added: 1, modified: 1, deleted: 0 } })
    // Read back from the commit message (what list and the mirror's sync use).
    const listed = (await engine.list()).items.find((s) => s.tag === post.tag)!
    expect(listed.ralph).toEqual({ added: 1, modified: 1, deleted: 0 })
  })
})
