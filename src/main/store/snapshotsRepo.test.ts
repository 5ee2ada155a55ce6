import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openDatabase, type Db } from './database'
import { SnapshotsRepo } from './snapshotsRepo'
import { SnapshotEngine } from '../snapshots/engine'
import type { SnapshotMeta } from '../snapshots/types'
import { removeDir, tempProject, write } from '../snapshots/testkit'

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

  it('is fed by the engine through its index, and syncs from the store', async () => {
    const project = join(dir, 'p')
    write(project, 'a.txt', 'a')
    const engine = new SnapshotEngine({ projectDir: project, index: repo.indexFor(projectId) })
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
