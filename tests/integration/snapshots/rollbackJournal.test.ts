import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { SnapshotEngine } from '../../../src/main/snapshots'
import { read, removeDir, tempProject, write } from '../../../src/main/snapshots/testkit'
import { memoryLogger } from '../../../src/main/workspace/logFile'

let dir: string
beforeEach(() => {
  dir = tempProject('ralph-snap-journal-')
})
afterEach(() => removeDir(dir))

const files = ['a.txt', 'b.txt', 'c.txt', 'd.txt']
const journalFile = () => join(dir, '.ralph/snapshots.git/ralph-rollback.json')

/**
 * The state a rollback from "after" to "before" leaves when killed after `applied` files (its own journal
 * included, as engine.ts writes it); the hostile CLI test kills real ones.
 */
async function killedAfter(applied: number, torn = false) {
  const engine = new SnapshotEngine({ projectDir: dir, logger: memoryLogger() })
  for (const f of files) write(dir, f, `${f} before\n`)
  const before = await engine.save({ kind: 'manual', message: 'before' })
  for (const f of files) write(dir, f, `${f} after\n`)
  const after = await engine.save({ kind: 'manual', message: 'after' })
  for (const f of files.slice(0, applied)) write(dir, f, `${f} before\n`)
  if (torn) write(dir, files[applied]!, `${files[applied]} bef`)
  const journal = {
    ...{ target: before.tag, targetCommit: before.commit, safetyTag: after.tag, safetyCommit: after.commit },
    ...{ startedAt: 1_700_000_000_000, undo: false },
  }
  writeFileSync(journalFile(), JSON.stringify(journal))
  return { before, after }
}

describe('an interrupted rollback, found by the next engine', () => {
  it('is finished on opening the store, by any engine, and the notice waits for a host to show it', async () => {
    const { before, after } = await killedAfter(2)
    // Some other part of the app opens the store first (the Queue, a plan diff): it finishes the rollback.
    await new SnapshotEngine({ projectDir: dir, logger: memoryLogger() }).open()
    for (const f of files) expect(read(dir, f).toString()).toBe(`${f} before\n`)
    expect(existsSync(journalFile())).toBe(false)

    const app = new SnapshotEngine({ projectDir: dir, logger: memoryLogger() })
    const status = await app.status()
    expect(status.position?.tag).toBe(before.tag)
    expect(status.dirty).toBe(false)
    expect(status.rollbackNotice).toMatchObject({
      state: 'finished',
      target: before.tag,
      safetyTag: after.tag,
      message: expect.stringMatching(
        /^A rollback to \S+ was interrupted and has been finished: the project is at/,
      ),
    })
    await app.dismissRollbackNotice()
    expect(
      (await new SnapshotEngine({ projectDir: dir, logger: memoryLogger() }).status()).rollbackNotice,
    ).toBeNull()
  })

  it('keeps a file that matches neither snapshot in a snapshot of its own before finishing', async () => {
    const { before } = await killedAfter(1, true)
    const engine = new SnapshotEngine({ projectDir: dir, logger: memoryLogger() })
    const status = await engine.status()
    expect(status.rollbackNotice?.state).toBe('finished')
    for (const f of files) expect(read(dir, f).toString()).toBe(`${f} before\n`)
    const kept = (await engine.list()).items.find((s) => s.message.startsWith('Files as the interrupted'))
    expect(kept).toBeDefined()
    expect((await engine.show(kept!.tag, 'b.txt')).content.toString()).toBe('b.txt bef')
    expect(status.position?.tag).toBe(before.tag)
  })

  it('is reported, not finished, when files it does not explain changed; finishRollback completes it', async () => {
    const { before } = await killedAfter(2)
    write(dir, 'new.txt', 'made after the crash\n')
    const engine = new SnapshotEngine({ projectDir: dir, logger: memoryLogger() })
    const status = await engine.status()
    expect(status.rollbackNotice).toMatchObject({
      state: 'interrupted',
      reason: 'new.txt changed since, and the rollback does not change it.',
    })
    expect(read(dir, 'c.txt').toString()).toBe('c.txt after\n')
    expect(existsSync(journalFile())).toBe(true)

    const report = await engine.finishRollback()
    expect(report.target).toBe(before.tag)
    for (const f of files) expect(read(dir, f).toString()).toBe(`${f} before\n`)
    expect(existsSync(join(dir, 'new.txt'))).toBe(false)
    expect((await engine.show(report.safetyTag!, 'new.txt')).content.toString()).toBe(
      'made after the crash\n',
    )
    expect((await engine.status()).rollbackNotice).toBeNull()
    await expect(engine.finishRollback()).rejects.toThrow(
      'No interrupted rollback is waiting to be finished.',
    )
  })
})
