import { execFileSync, spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { nextTaskNumber } from '../../../src/main/loop/lifecycle'
import { RalphState } from '../../../src/main/loop/ralphState'
import { SnapshotEngine } from '../../../src/main/snapshots'
import { blobSha } from '../../../src/main/snapshots/applyChanges'
import { read, removeDir, tempProject, write } from '../../../src/main/snapshots/testkit'
import { unprivilegedPrefix } from '../../helpers/asNobody'
import { memoryLogger } from '../../../src/main/workspace/logFile'

const child = fileURLToPath(new URL('./child.ts', import.meta.url))

let dir: string
beforeEach(() => {
  dir = tempProject('ralph-snap-damage-')
})
afterEach(() => {
  execFileSync('chmod', ['-R', 'u+rwX', dir])
  removeDir(dir)
})

const looseObject = (content: string) => {
  const sha = blobSha(Buffer.from(content))
  return join(dir, '.ralph/snapshots.git/objects', sha.slice(0, 2), sha.slice(2))
}

describe('task numbers', () => {
  it('refuses a task counter beyond the largest task number instead of making a float tag', async () => {
    write(dir, '.ralph/task-counter.txt', '99999999999999999999999\n')
    const engine = new SnapshotEngine({ projectDir: dir, logger: memoryLogger() })
    await expect(nextTaskNumber(new RalphState(dir), engine)).rejects.toMatchObject({
      kind: 'config',
      message: expect.stringContaining('.ralph/task-counter.txt holds 99999999999999999999999'),
    })
    await expect(engine.save({ kind: 'task-pre', task: 1e23 })).rejects.toMatchObject({
      kind: 'invalid-input',
    })
    expect((await engine.list()).items.map((s) => s.tag)).toEqual([])
  })
})

describe('a damaged store', () => {
  it('repairs garbage in HEAD', async () => {
    write(dir, 'a.txt', 'a')
    const saved = await new SnapshotEngine({ projectDir: dir, logger: memoryLogger() }).save({
      kind: 'manual',
    })
    writeFileSync(join(dir, '.ralph/snapshots.git/HEAD'), 'garbage\x00\xff\n')
    const engine = new SnapshotEngine({ projectDir: dir, logger: memoryLogger() })
    expect((await engine.open()).repairs).toContain('Rewrote the damaged HEAD of the snapshot store')
    expect((await engine.list()).items.map((s) => s.tag)).toEqual([saved.tag])
    write(dir, 'a.txt', 'b')
    await engine.save({ kind: 'manual' })
    await engine.rollback(saved.tag)
    expect(read(dir, 'a.txt').toString()).toBe('a')
  })

  it('names a snapshot whose objects were deleted, changes no file, and heals objects the files still hold', async () => {
    write(dir, 'a.txt', 'v1\n')
    write(dir, 'b.txt', 'b\n')
    const engine = new SnapshotEngine({ projectDir: dir, logger: memoryLogger() })
    const first = await engine.save({ kind: 'task-pre', task: 1 })
    write(dir, 'a.txt', 'v2\n')
    const second = await engine.save({ kind: 'task-post', task: 1 })
    rmSync(looseObject('v1\n'))

    const attempt = engine.rollback(first.tag)
    await expect(attempt).rejects.toMatchObject({
      kind: 'not-found',
      message: expect.stringContaining(`Snapshot ${first.tag} is damaged`),
      details: { damaged: [first.tag] },
    })
    await expect(engine.previewRollback(first.tag)).rejects.toThrow('is damaged')
    expect(read(dir, 'a.txt').toString()).toBe('v2\n')
    expect((await engine.verify()).damaged).toEqual([{ tag: first.tag, missingObjects: 1 }])

    // The current content's object goes too: the next save reads the files again and stores it anew.
    rmSync(looseObject('v2\n'))
    write(dir, 'b.txt', 'b2\n')
    await engine.save({ kind: 'manual' })
    expect(existsSync(looseObject('v2\n'))).toBe(true)
    expect((await engine.verify()).damaged.map((d) => d.tag)).toEqual([first.tag])
    await engine.rollback(second.tag)
    expect(read(dir, 'b.txt').toString()).toBe('b\n')
  })
})

describe('unreadable folders', () => {
  it('are listed as skipped (unreadable), not left out in silence', async () => {
    write(dir, 'a.txt', 'a')
    write(dir, 'secret/key.txt', 'k')
    write(dir, 'sub/deep/x.txt', 'x')
    mkdirSync(join(dir, '.ralph'))
    // The save runs as an unprivileged user (root reads everything): the project is theirs, two folders are not.
    chmodSync(dir, 0o755)
    execFileSync('chmod', ['0000', join(dir, 'secret'), join(dir, 'sub/deep')])
    if (unprivilegedPrefix().length > 0) execFileSync('chown', ['-R', 'nobody', dir])
    const [cmd, ...args] = [
      ...unprivilegedPrefix(),
      process.execPath,
      '--import',
      'tsx',
      child,
      'save',
      dir,
      '2',
    ]
    const res = spawnSync(cmd!, args, { encoding: 'utf8', timeout: 120_000 })
    expect(res.stderr).toBe('')
    expect(res.status).toBe(0)

    // Both saves: the second one's status comes from git's untracked cache.
    const { items } = await new SnapshotEngine({ projectDir: dir, logger: memoryLogger() }).list()
    expect(items).toHaveLength(2)
    for (const saved of items)
      expect(saved.skipped).toEqual([
        { path: 'secret', reason: 'unreadable' },
        { path: 'sub/deep', reason: 'unreadable' },
      ])
  }, 120_000)
})
