import { PassThrough } from 'node:stream'
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { main } from '../../../src/main/cli/main'
import { removeDir, read, tempProject, write } from '../../../src/main/snapshots/testkit'
import { runCli } from '../../helpers/cli'

let dir: string
let home: string
beforeEach(() => {
  dir = tempProject('ralph-snap-cli-')
  home = tempProject('ralph-home-')
})
afterEach(() => {
  removeDir(dir)
  removeDir(home)
})

async function ralph(json: boolean, ...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const stdout = new PassThrough()
  const stderr = new PassThrough()
  let out = ''
  let err = ''
  stdout.on('data', (b: Buffer) => (out += b.toString()))
  stderr.on('data', (b: Buffer) => (err += b.toString()))
  const code = await main(['snapshot', ...args, '--project', dir, ...(json ? ['--json'] : [])], {
    cwd: dir,
    env: { ...process.env, RALPH_HOME: home },
    stdout,
    stderr,
    signal: new AbortController().signal,
  })
  return { code, out, err }
}

const j = async (...args: string[]): Promise<{ code: number; body: Record<string, unknown> }> => {
  const r = await ralph(true, ...args)
  const lines = r.out.trim().split('\n')
  expect(lines.length).toBe(1)
  return { code: r.code, body: JSON.parse(lines[0]!) as Record<string, unknown> }
}

describe('ralph snapshot', () => {
  it('saves, lists, diffs, shows, previews, rolls back and undoes with --json', async () => {
    write(dir, 'a.txt', 'one')
    let r = await j('save', 'first', '--kind', 'task-pre', '--task', '1')
    expect(r.code).toBe(0)
    expect(r.body).toMatchObject({ ok: true, snapshot: { tag: 'task-1-pre', added: 2, message: 'first' } })
    write(dir, 'a.txt', 'two')
    write(dir, 'b.txt', 'b')
    r = await j('diff', 'task-1-pre')
    expect(r.body.counts).toEqual({ added: 1, modified: 1, deleted: 0, renamed: 0 })
    r = await j('diff', 'task-1-pre', '--file', 'a.txt')
    expect(r.body).toMatchObject({ old: { content: 'one' }, new: { content: 'two' } })
    r = await j('status')
    expect(r.body).toMatchObject({ dirty: true, changes: { added: 1, modified: 1, deleted: 0 } })
    r = await j('preview', 'task-1-pre')
    expect(r.body).toMatchObject({ report: { preview: true, deleted: ['b.txt'] } })
    expect(existsSync(join(dir, 'b.txt'))).toBe(true)
    r = await j('rollback', 'task-1-pre')
    expect(r.body).toMatchObject({
      report: { preview: false, deleted: ['b.txt'], written: [{ path: 'a.txt' }] },
    })
    expect(read(dir, 'a.txt').toString()).toBe('one')
    r = await j('show', 'task-1-pre', 'a.txt')
    expect(r.body).toMatchObject({ encoding: 'utf8', content: 'one' })
    r = await j('undo')
    expect(r.body).toMatchObject({ report: { target: expect.stringMatching(/^safety-/) } })
    expect(read(dir, 'b.txt').toString()).toBe('b')
    r = await j('list', '--limit', '2')
    expect(r.body.total).toBe(3)
    expect((r.body.items as unknown[]).length).toBe(2)
    r = await j('usage')
    expect(r.body.snapshotCount).toBe(3)
    r = await j('prune', '--keep', '0', '--dry-run')
    expect(r.body).toMatchObject({ dryRun: true })
  })

  it('prints readable output without --json', async () => {
    write(dir, 'a.txt', 'x')
    const s = await ralph(false, 'save', 'hello')
    expect(s.code).toBe(0)
    expect(s.out).toMatch(/^Saved manual-\d+ .* 2 added, 0 modified, 0 deleted/)
    const l = await ralph(false, 'list')
    expect(l.out).toMatch(/manual-\d+ .* hello/)
    const show = await ralph(false, 'show', s.out.split(' ')[1]!, 'a.txt')
    expect(show.out).toBe('x')
  })

  it('exits 2 with a clear message for a missing tag, a path outside the project and bad usage', async () => {
    await ralph(true, 'save')
    let r = await ralph(false, 'rollback', 'task-7-pre')
    expect(r.code).toBe(2)
    expect(r.err).toMatch(/no snapshot "task-7-pre"/)
    const jr = await j('rollback', 'task-7-pre')
    expect(jr).toMatchObject({ code: 2, body: { ok: false, error: { kind: 'not-found' } } })
    r = await ralph(false, 'show', 'task-7-pre')
    expect(r.code).toBe(2)
    const tag = ((await j('list')).body.items as { tag: string }[])[0]!.tag
    r = await ralph(false, 'show', tag, '../../etc/passwd')
    expect(r.code).toBe(2)
    expect(r.err).toMatch(/outside the project/)
    r = await ralph(false, 'frobnicate')
    expect(r.code).toBe(2)
    r = await ralph(false, 'save', '--kind', 'task-pre')
    expect(r.code).toBe(2)
    expect(r.err).toMatch(/task number/)
    r = await ralph(false)
    expect(r.code).toBe(2)
  })

  it('snapshots and restores the whole project when run from one of its subfolders', async () => {
    // git scopes ls-files/status to the folder it starts in; the engine must always run it from the root.
    write(dir, 'top.txt', 'top')
    write(dir, 'src/a.ts', 'a')
    const env = { RALPH_HOME: home }
    const cwd = join(dir, 'src')
    const saved = await runCli(['snapshot', 'save', 'from src', '--json', '--project', dir], { env, cwd })
    expect(saved.code).toBe(0)
    expect(JSON.parse(saved.stdout)).toMatchObject({ snapshot: { added: 3 } }) // top.txt, src/a.ts, .ralph/.gitignore
    const tag = (JSON.parse(saved.stdout) as { snapshot: { tag: string } }).snapshot.tag
    write(dir, 'top.txt', 'changed')
    write(dir, 'src/b.ts', 'b')
    const back = await runCli(['snapshot', 'rollback', tag, '--json', '--project', dir], { env, cwd })
    expect(back.code).toBe(0)
    expect(JSON.parse(back.stdout)).toMatchObject({
      report: { written: [{ path: 'top.txt', change: 'modified' }], deleted: ['src/b.ts'] },
    })
    expect(read(dir, 'top.txt').toString()).toBe('top')
    expect(existsSync(join(dir, 'src/b.ts'))).toBe(false)
  })

  it('counts changes right from a fresh process on a large project, an ignored .ralph/ file and a clean tree included', async () => {
    // Over 2,000 files a fresh process stages through git, and a clean tree is answered from the index alone.
    for (let i = 0; i < 2100; i++) write(dir, `src/d${i % 30}/f${i}.ts`, `export const v = ${i}\n`)
    write(dir, 'keep.txt', 'keep')
    const env = { RALPH_HOME: home }
    const cli = async (...args: string[]): Promise<Record<string, unknown>> => {
      const r = await runCli(['snapshot', ...args, '--json', '--project', dir], { env })
      expect(r.code, r.stderr).toBe(0)
      return JSON.parse(r.stdout) as Record<string, unknown>
    }
    const first = await cli('save', 'first')
    expect(first).toMatchObject({ snapshot: { added: 2102 } }) // the files, keep.txt, .ralph/.gitignore
    const none = { dirty: false, changes: { added: 0, modified: 0, deleted: 0 }, trackedFiles: 2102 }
    expect(await cli('status')).toMatchObject(none)
    expect(await cli('status')).toMatchObject(none)

    // The user's ignore rules hide .ralph/ from git status; its untracked file is counted all the same.
    write(dir, '.gitignore', '.ralph/\nbuild/\n')
    write(dir, '.ralph/notes.md', 'notes')
    write(dir, 'build/out.js', 'ignored')
    write(dir, 'src/d3/f3.ts', 'changed\n')
    write(dir, 'new.txt', 'new')
    rmSync(join(dir, 'keep.txt'))
    const dirty = { dirty: true, changes: { added: 3, modified: 1, deleted: 1 }, trackedFiles: 2104 }
    expect(await cli('status')).toMatchObject(dirty)
    expect(await cli('status')).toMatchObject(dirty) // staged by the first status: nothing new to stage

    const second = await cli('save', 'second')
    expect(second).toMatchObject({ snapshot: { added: 3, modified: 1, deleted: 1 } })
    expect(await cli('status')).toMatchObject({ ...none, trackedFiles: 2104 })
    const shown = await cli('show', (second.snapshot as { tag: string }).tag, '.ralph/notes.md')
    expect(shown).toMatchObject({ content: 'notes' })
  }, 120_000)

  it('stores many changed files from a fresh process as one pack, with the trees git computes itself', async () => {
    // Past 2,000 files a fresh process stages a few changes through git, but 50 or more in-process: their blobs
    // and trees go into one new pack instead of a loose file each.
    for (let i = 0; i < 2100; i++) write(dir, `src/d${i % 30}/f${i}.ts`, `export const v = ${i}\n`)
    const env = { RALPH_HOME: home }
    const cli = async (...args: string[]): Promise<Record<string, unknown>> => {
      const r = await runCli(['snapshot', ...args, '--json', '--project', dir], { env })
      expect(r.code, r.stderr).toBe(0)
      return JSON.parse(r.stdout) as Record<string, unknown>
    }
    await cli('save', 'first')
    const gitDir = join(dir, '.ralph/snapshots.git')
    const git = (...args: string[]): string =>
      execFileSync('git', [`--git-dir=${gitDir}`, `--work-tree=${dir}`, ...args], { encoding: 'utf8' }).trim()
    const objects = () => {
      const loose = readdirSync(join(gitDir, 'objects')).filter((d) => /^[0-9a-f]{2}$/.test(d))
      return {
        loose: loose.reduce((n, d) => n + readdirSync(join(gitDir, 'objects', d)).length, 0),
        packs: readdirSync(join(gitDir, 'objects/pack')).filter((f) => f.endsWith('.pack')).length,
      }
    }
    const before = objects()

    for (let i = 0; i < 60; i++) write(dir, `src/d${i % 30}/f${i}.ts`, `export const v = 'changed ${i}'\n`)
    write(dir, 'src/d1/new.ts', 'new\n')
    write(dir, 'src/fresh/deep/x.ts', 'x\n')
    rmSync(join(dir, 'src/d2/f2.ts'))
    const saved = (await cli('save', 'many')).snapshot as { tag: string; commit: string }
    expect(saved).toMatchObject({ added: 2, modified: 59, deleted: 1 })

    // One new pack; the only new loose object is the commit.
    expect(objects()).toEqual({ loose: before.loose + 1, packs: before.packs + 1 })
    expect(git('cat-file', '-t', saved.commit)).toBe('commit')
    // Git, reading every file into a scratch index, arrives at the same tree; the store is whole and the index's
    // stat data is right (status finds nothing to re-read).
    const scratch = join(home, 'scratch-index')
    const scratchEnv = { ...process.env, GIT_INDEX_FILE: scratch }
    const gitScratch = (...args: string[]): string =>
      execFileSync('git', [`--git-dir=${gitDir}`, `--work-tree=${dir}`, ...args], {
        encoding: 'utf8',
        env: scratchEnv,
      }).trim()
    gitScratch('add', '-A')
    expect(gitScratch('write-tree')).toBe(git('rev-parse', `${saved.tag}^{tree}`))
    git('fsck', '--strict', '--no-dangling')
    expect(git('status', '--porcelain')).toBe('')
  }, 120_000)
})
