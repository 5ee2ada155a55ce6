import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { AppError } from '../../../src/shared/errors'
import { snapshotCalls, snapshotEvents } from '../../../src/shared/api/snapshots'
import { snapshotHandlers } from '../../../src/main/api/snapshots'
import type { ApiContext } from '../../../src/main/api/types'
import { memoryLogger } from '../../../src/main/workspace/logFile'
import { openDatabase, type Db } from '../../../src/main/store/database'
import { SnapshotsRepo } from '../../../src/main/store/snapshotsRepo'
import { read, removeDir, tempProject, write } from '../../../src/main/snapshots/testkit'

let root: string
let db: Db
let ctx: ApiContext
let events: { name: string; payload: unknown }[]
let projectId: number
const project = (): string => join(root, 'project')

beforeEach(() => {
  root = tempProject('ralph-snap-api-')
  db = openDatabase(join(root, 'home', 'ralph.db'))
  write(project(), 'a.txt', 'a')
  projectId = Number(
    db
      .prepare('INSERT INTO projects (path, name, created_at, last_opened_at) VALUES (?, ?, ?, ?)')
      .run(project(), 'project', 1, 1).lastInsertRowid,
  )
  events = []
  ctx = {
    db,
    appDataDir: join(root, 'home'),
    resolveProject: (id) => {
      if (id !== projectId) throw new AppError('not-found', `No project ${id}`)
      return { id, path: project(), name: 'project', createdAt: 1, lastOpenedAt: 1 }
    },
    emit: (name, payload) => events.push({ name, payload }),
    logger: memoryLogger(),
  }
})
afterEach(() => {
  db.close()
  removeDir(root)
})

/** Calls a handler the way a transport does: validate input, run, validate output. */
async function call<N extends keyof typeof snapshotCalls>(name: N, input: unknown): Promise<unknown> {
  const def = snapshotCalls[name]
  const parsed = def.input.parse(input)
  const handler = snapshotHandlers[name] as (i: unknown, c: ApiContext) => Promise<unknown>
  return def.output.parse(await handler(parsed, ctx))
}

describe('snapshot contract handlers', () => {
  it('serve every call, record metadata in SQLite and emit events', async () => {
    const saved = (await call('snapshots.save', { projectId, kind: 'task-pre', task: 1 })) as { tag: string }
    expect(saved.tag).toBe('task-1-pre')
    write(project(), 'a.txt', 'b')
    await call('snapshots.save', { projectId, message: 'manual one' })
    expect(((await call('snapshots.list', { projectId })) as { total: number }).total).toBe(2)
    expect(await call('snapshots.diff', { projectId, target: 'task-1-pre' })).toMatchObject({
      counts: { modified: 1 },
    })
    expect(
      await call('snapshots.fileDiff', { projectId, target: 'task-1-pre', path: 'a.txt' }),
    ).toMatchObject({
      old: { content: 'a' },
      new: { content: 'b' },
    })
    expect(await call('snapshots.status', { projectId })).toMatchObject({ dirty: false })
    expect(await call('snapshots.show', { projectId, tag: 'task-1-pre', path: 'a.txt' })).toMatchObject({
      content: 'a',
    })
    expect(await call('snapshots.previewRollback', { projectId, tag: 'task-1-pre' })).toMatchObject({
      preview: true,
    })
    await call('snapshots.rollback', { projectId, tag: 'task-1-pre' })
    expect(read(project(), 'a.txt').toString()).toBe('a')
    await call('snapshots.undo', { projectId })
    expect(read(project(), 'a.txt').toString()).toBe('b')
    expect(await call('snapshots.usage', { projectId })).toMatchObject({ snapshotCount: 4 })
    expect(await call('snapshots.prune', { projectId, keepLast: 0, dryRun: true })).toMatchObject({
      dryRun: true,
    })

    const rows = new SnapshotsRepo(db).list(projectId)
    expect(rows.total).toBe(4)
    expect(events.map((e) => e.name)).toEqual([
      'snapshot.created',
      'snapshot.created',
      'snapshot.rolledBack',
      'snapshot.rolledBack',
    ])
    for (const e of events) snapshotEvents[e.name as keyof typeof snapshotEvents].parse(e.payload)
  })

  it('rejects bad input before it reaches the engine', () => {
    expect(() => snapshotCalls['snapshots.rollback'].input.parse({ projectId: 0, tag: 'x' })).toThrow()
    expect(() => snapshotCalls['snapshots.save'].input.parse({ projectId: 1, kind: 'weird' })).toThrow()
  })
})
