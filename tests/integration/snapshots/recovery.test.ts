import { execFileSync, spawn } from 'node:child_process'
import { chmodSync, existsSync, lstatSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { SnapshotEngine } from '../../../src/main/snapshots'
import { fingerprint, read, removeDir, tempProject, write } from '../../../src/main/snapshots/testkit'
import { memoryLogger } from '../../../src/main/workspace/logFile'

const child = fileURLToPath(new URL('./child.ts', import.meta.url))
const skipLock = (rel: string): boolean => rel.startsWith('.ralph/') && rel.endsWith('.lock')
const perm = (rel: string) => lstatSync(join(dir, rel)).mode & 0o777
const asRoot = process.getuid?.() === 0

let dir: string
beforeEach(() => {
  dir = tempProject('ralph-snap-recovery-')
})
afterEach(() => removeDir(dir))

/** Runs `child.ts undo-crash <point>`: an undo whose process is killed (-9) at that point. */
function crashUndoAt(point: string): Promise<{ code: number | null; signal: string | null; out: string }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', child, 'undo-crash', dir, point], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  proc.stdout.on('data', (b: Buffer) => (out += b.toString()))
  return new Promise((resolve) => proc.on('close', (code, signal) => resolve({ code, signal, out })))
}

describe('an interrupted undo', () => {
  for (const point of ['rollback-safety-saved', 'rollback-applied']) {
    it(`killed at ${point}, then retried, ends in the undone state (not back where it started)`, async () => {
      write(dir, 'a.txt', 'v1\n')
      write(dir, 'keep.txt', 'same\n')
      const engine = new SnapshotEngine({ projectDir: dir, logger: memoryLogger() })
      const v1 = await engine.save({ kind: 'manual', message: 'v1' })
      write(dir, 'a.txt', 'v2\n')
      write(dir, 'b.txt', 'new in v2\n')
      const atV2 = fingerprint(dir, { skip: skipLock })
      await engine.rollback(v1.tag)
      expect(existsSync(join(dir, 'b.txt'))).toBe(false)

      const crashed = await crashUndoAt(point)
      expect(crashed.signal).toBe('SIGKILL')
      expect(crashed.out).not.toContain('finished')

      const report = await new SnapshotEngine({ projectDir: dir, logger: memoryLogger() }).undo()
      expect(report.undid).toBe(v1.tag)
      expect(fingerprint(dir, { skip: skipLock })).toEqual(atV2)
      expect(read(dir, 'a.txt').toString()).toBe('v2\n')
    }, 120_000)
  }
})

describe('modes on rollback', () => {
  it('brings 0600 and 000 files back with their modes, never 0644', async () => {
    write(dir, 'secret.env', 'KEY=1\n')
    chmodSync(join(dir, 'secret.env'), 0o600)
    write(dir, 'gone.key', 'private\n')
    chmodSync(join(dir, 'gone.key'), 0o600)
    write(dir, 'run.sh', '#!/bin/sh\n')
    chmodSync(join(dir, 'run.sh'), 0o700)
    if (asRoot) {
      // Only root can snapshot a file nobody may read; as anyone else it is skipped as unreadable.
      write(dir, 'locked.bin', 'x')
      chmodSync(join(dir, 'locked.bin'), 0o000)
    }
    const engine = new SnapshotEngine({ projectDir: dir, logger: memoryLogger() })
    const saved = await engine.save({ kind: 'manual' })
    writeFileSync(join(dir, 'secret.env'), 'KEY=2\n')
    writeFileSync(join(dir, 'run.sh'), '#!/bin/sh\necho changed\n')
    rmSync(join(dir, 'gone.key'))
    if (asRoot) writeFileSync(join(dir, 'locked.bin'), 'y')

    await engine.rollback(saved.tag)
    expect(perm('secret.env').toString(8)).toBe('600')
    expect(perm('gone.key').toString(8)).toBe('600')
    expect(perm('run.sh').toString(8)).toBe('700')
    if (asRoot) expect(perm('locked.bin').toString(8)).toBe('0')
    expect(read(dir, 'gone.key').toString()).toBe('private\n')

    // And back: undo restores the edited state with the same modes.
    await engine.undo()
    expect(read(dir, 'secret.env').toString()).toBe('KEY=2\n')
    expect(perm('secret.env').toString(8)).toBe('600')
    expect(existsSync(join(dir, 'gone.key'))).toBe(false)
  }, 60_000)

  it('keeps a file’s current mode when the snapshot recorded none (a chmod since)', async () => {
    write(dir, 'notes.txt', 'one\n')
    const engine = new SnapshotEngine({ projectDir: dir, logger: memoryLogger() })
    const saved = await engine.save({ kind: 'manual' })
    writeFileSync(join(dir, 'notes.txt'), 'two\n')
    chmodSync(join(dir, 'notes.txt'), 0o640)
    await engine.rollback(saved.tag)
    expect(read(dir, 'notes.txt').toString()).toBe('one\n')
    expect(perm('notes.txt').toString(8)).toBe('640')
  }, 60_000)
})

describe('temp files of interrupted atomic writes', () => {
  it('are removed before a snapshot when their writer is dead, and never captured', async () => {
    write(dir, 'a.txt', 'a')
    write(dir, '.ralph/status.txt', 'running\n')
    // A pid far above any pid_max: its writer is certainly dead.
    write(dir, '.ralph/.status.txt.99999999.abcd1234.tmp', 'half-writ')
    write(dir, '.ralph/task.md.99999998.abcd1234.init.tmp', 'half')
    const live = `.ralph/.summary.md.${process.pid}.abcd1234.tmp`
    write(dir, live, 'being written')
    const engine = new SnapshotEngine({ projectDir: dir, logger: memoryLogger() })
    const saved = await engine.save({ kind: 'manual' })
    const ralph = readdirSync(join(dir, '.ralph'))
    expect(ralph).not.toContain('.status.txt.99999999.abcd1234.tmp')
    expect(ralph).not.toContain('task.md.99999998.abcd1234.init.tmp')
    expect(existsSync(join(dir, live))).toBe(true)
    const tree = execFileSync(
      'git',
      [`--git-dir=${join(dir, '.ralph/snapshots.git')}`, 'ls-tree', '-r', '--name-only', saved.commit],
      { encoding: 'utf8' },
    )
    expect(tree.split('\n').filter((p) => p.endsWith('.tmp'))).toEqual([])
    expect((await engine.show(saved.tag, '.ralph/status.txt')).content.toString()).toBe('running\n')
  }, 60_000)
})

describe('files over the size cap', () => {
  it('a deleted one that was never snapshotted is named in the preview and the rollback report', async () => {
    write(dir, 'app.js', 'v1\n')
    write(dir, 'data.db', Buffer.alloc(6 * 1024 * 1024, 1))
    const engine = new SnapshotEngine({ projectDir: dir, logger: memoryLogger() })
    const saved = await engine.save({ kind: 'manual' })
    expect(saved.skipped).toEqual([{ path: 'data.db', reason: 'too-large', size: 6 * 1024 * 1024 }])
    rmSync(join(dir, 'data.db'))
    write(dir, 'app.js', 'v2\n')

    const expected = [
      expect.objectContaining({
        path: 'data.db',
        reason: 'too-large',
        message: expect.stringContaining('data.db (6 MB) was never snapshotted'),
      }),
    ]
    expect((await engine.previewRollback(saved.tag)).neverSnapshotted).toEqual(expected)
    const report = await engine.rollback(saved.tag)
    expect(report.neverSnapshotted).toEqual(expected)
    expect(read(dir, 'app.js').toString()).toBe('v1\n')
    // Still on disk: nothing to report.
    write(dir, 'data.db', Buffer.alloc(6 * 1024 * 1024, 2))
    expect((await engine.previewRollback(saved.tag)).neverSnapshotted).toEqual([])
  }, 60_000)
})
