import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openDatabase, type Db } from './database'
import { SnapshotsRepo } from './snapshotsRepo'
import { SnapshotEngine } from '../snapshots/engine'
import type { SnapshotMeta } from '../snapshots/types'
import { removeDir, tempProject, write } from '../snapshots/testkit'
import { memoryLogger } from '../workspace/logFile'

let dir: string
let db: Db
let repo: SnapshotsRepo
let projectId: number

const meta = (tag: string, createdAt: number, extra: Partial<SnapshotMeta> = {}): SnapshotMeta => ({
  tag,
  commit: 'a'.repeat(40),
  kind: 'manual',
  task: null,
  message: tag,
  createdAt,
  added: 1,
  modified: 2,
  deleted: 3,
  skipped: [{ path: 'big.bin', reason: 'too-large', size: 9 }],
  skippedTotal: 1,
  durationMs: 5,
  rollbackTarget: null,
  ...extra,
})

beforeEach(() => {
  dir = tempProject('ralph-snaprepo-')
  db = openDatabase(join(dir, 'app', 'ralph.db'))
  projectId = Number(
    db
      .prepare('INSERT INTO projects (path, name, created_at, last_opened_at) VALUES (?, ?, ?, ?)')
      .run(join(dir, 'p'), 'p', 1, 1).lastInsertRowid,
  )
  repo = new SnapshotsRepo(db)
})
afterEach(() => {
  db.close()
  removeDir(dir)
})

describe('SnapshotsRepo', () => {
  it('stores, pages, filters and removes snapshot metadata', () => {
    repo.upsert(projectId, meta('task-1-pre', 1000, { kind: 'task-pre', task: 1 }))
    repo.upsert(projectId, meta('manual-2', 2000))
    repo.upsert(projectId, meta('task-1-post', 3000, { kind: 'task-post', task: 1 }))
    expect(repo.list(projectId).items.map((s) => s.tag)).toEqual(['task-1-post', 'manual-2', 'task-1-pre'])
    expect(repo.list(projectId, { offset: 1, limit: 1 })).toMatchObject({
      total: 3,
      items: [{ tag: 'manual-2' }],
    })
    expect(repo.list(projectId, { task: 1 }).total).toBe(2)
    expect(repo.list(projectId, { kind: 'manual' }).items[0]).toMatchObject({
      added: 1,
      modified: 2,
      deleted: 3,
      skipped: [{ path: 'big.bin', reason: 'too-large', size: 9 }],
    })
    repo.upsert(projectId, meta('manual-2', 2000, { message: 'again' }))
    expect(repo.get(projectId, 'manual-2')?.message).toBe('again')
    repo.remove(projectId, ['manual-2'])
    expect(repo.list(projectId).total).toBe(2)
  })

  it('searches messages and tags across every page, with the tasks-only filter, matching % and _ literally', () => {
    for (let i = 0; i < 250; i++) {
      const task = i % 2 === 0 ? { kind: 'task-pre' as const, task: i + 1 } : {}
      const message = i % 50 === 0 ? `Add the Price list ${i}` : i === 7 ? '100% done_now' : `step ${i}`
      repo.upsert(
        projectId,
        meta(i % 2 === 0 ? `task-${i + 1}-pre` : `manual-${i}`, 1000 + i, { ...task, message }),
      )
    }
    // Five matches spread over the whole history, found although a page holds 2.
    const first = repo.list(projectId, { search: 'price LIST', limit: 2 })
    expect(first.total).toBe(5)
    expect(first.items.map((s) => s.message)).toEqual(['Add the Price list 200', 'Add the Price list 150'])
    expect(
      repo.list(projectId, { search: 'price list', offset: 4, limit: 2 }).items.map((s) => s.tag),
    ).toEqual(['task-1-pre'])
    // Tags match too; every word must.
    expect(repo.list(projectId, { search: 'task-101-pre' }).items.map((s) => s.tag)).toEqual(['task-101-pre'])
    expect(repo.list(projectId, { search: 'price 150' }).total).toBe(1)
    // Tasks only: the task's own entries, here the even ones.
    expect(repo.list(projectId, { tasksOnly: true }).total).toBe(125)
    expect(repo.list(projectId, { tasksOnly: true, search: 'price' }).total).toBe(5)
    // LIKE's wildcards are plain characters in a search.
    expect(repo.list(projectId, { search: '0%' }).items.map((s) => s.message)).toEqual(['100% done_now'])
    expect(repo.list(projectId, { search: 'e_n' }).items.map((s) => s.message)).toEqual(['100% done_now'])
    expect(repo.list(projectId, { search: 'nothing like this' })).toEqual({ items: [], total: 0 })
  })

  it('keeps the skipped total and the rollback target', () => {
    repo.upsert(
      projectId,
      meta('safety-1', 1, { kind: 'safety', skippedTotal: 250, rollbackTarget: 'task-1-pre' }),
    )
    expect(repo.get(projectId, 'safety-1')).toMatchObject({ skippedTotal: 250, rollbackTarget: 'task-1-pre' })
  })

  it("keeps Ralph's own counts (.ralph/) apart; a row from before the split has none", () => {
    repo.upsert(projectId, meta('task-1-post', 1, { ralph: { added: 0, modified: 2, deleted: 0 } }))
    repo.upsert(projectId, meta('manual-1', 2))
    expect(repo.get(projectId, 'task-1-post')?.ralph).toEqual({ added: 0, modified: 2, deleted: 0 })
    expect(repo.get(projectId, 'manual-1')).not.toHaveProperty('ralph')
  })

  it('is fed by the engine through its index, and syncs from the store', async () => {
    const project = join(dir, 'p')
    write(project, 'a.txt', 'a')
    const engine = new SnapshotEngine({
      projectDir: project,
      index: repo.indexFor(projectId),
      logger: memoryLogger(),
    })
    await engine.save({ kind: 'task-pre', task: 1 })
    write(project, 'b.txt', 'b')
    await engine.save({ kind: 'manual' })
    await engine.rollback('task-1-pre')
    const rows = repo.list(projectId).items
    expect(rows.map((r) => r.kind)).toEqual(['safety', 'manual', 'task-pre'])
    expect(rows[1]).toMatchObject({ added: 1, modified: 0, deleted: 0 })
    repo.upsert(projectId, meta('manual-999', 5))
    repo.sync(projectId, (await engine.list()).items)
    expect(repo.list(projectId).items.map((r) => r.tag)).toEqual(
      (await engine.list()).items.map((s) => s.tag),
    )
  })
})
