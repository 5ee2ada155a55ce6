import { parseJsonOr } from '../../shared/json'
import type { Db } from './database'
import type {
  ListOptions,
  ListResult,
  SkippedFile,
  SnapshotIndex,
  SnapshotKind,
  SnapshotMeta,
} from '../snapshots'

interface Row {
  id: number
  project_id: number
  tag: string
  commit_sha: string
  kind: string
  task: number | null
  message: string
  created_at: number
  files_added: number
  files_modified: number
  files_deleted: number
  ralph_added: number | null
  ralph_modified: number | null
  ralph_deleted: number | null
  skipped_json: string
  skipped_total: number
  duration_ms: number
  rollback_target: string | null
}

const toSnapshot = (row: Row): SnapshotMeta => {
  const skipped = parseJsonOr(row.skipped_json, []) as SkippedFile[]
  return {
    tag: row.tag,
    commit: row.commit_sha,
    kind: row.kind as SnapshotKind,
    task: row.task,
    message: row.message,
    createdAt: row.created_at,
    added: row.files_added,
    modified: row.files_modified,
    deleted: row.files_deleted,
    ...(row.ralph_added !== null && row.ralph_modified !== null && row.ralph_deleted !== null
      ? { ralph: { added: row.ralph_added, modified: row.ralph_modified, deleted: row.ralph_deleted } }
      : {}),
    skipped,
    skippedTotal: Math.max(row.skipped_total, skipped.length),
    durationMs: row.duration_ms,
    rollbackTarget: row.rollback_target,
  }
}

/** `%`, `_` and the escape itself match literally in a LIKE pattern. */
const likeLiteral = (text: string): string => text.replace(/[\\%_]/g, (c) => `\\${c}`)

/** Snapshot metadata mirrored from the shadow store, so the timeline can list, filter and search without git. */
export class SnapshotsRepo {
  constructor(private readonly db: Db) {}

  /** Inserts or refreshes one snapshot's row (a tag is unique per project and never moves). */
  upsert(projectId: number, meta: SnapshotMeta): void {
    this.db
      .prepare(
        `INSERT INTO snapshots (project_id, tag, commit_sha, kind, task, message, created_at,
           files_added, files_modified, files_deleted, skipped_json, skipped_total, duration_ms, rollback_target,
           ralph_added, ralph_modified, ralph_deleted)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT(project_id, tag) DO UPDATE SET
           commit_sha = excluded.commit_sha, kind = excluded.kind, task = excluded.task,
           message = excluded.message, created_at = excluded.created_at,
           files_added = excluded.files_added, files_modified = excluded.files_modified,
           files_deleted = excluded.files_deleted, skipped_json = excluded.skipped_json,
           skipped_total = excluded.skipped_total, duration_ms = excluded.duration_ms,
           rollback_target = excluded.rollback_target, ralph_added = excluded.ralph_added,
           ralph_modified = excluded.ralph_modified, ralph_deleted = excluded.ralph_deleted`,
      )
      .run(
        projectId,
        meta.tag,
        meta.commit,
        meta.kind,
        meta.task,
        meta.message,
        meta.createdAt,
        meta.added,
        meta.modified,
        meta.deleted,
        JSON.stringify(meta.skipped),
        meta.skippedTotal,
        meta.durationMs,
        meta.rollbackTarget,
        meta.ralph?.added ?? null,
        meta.ralph?.modified ?? null,
        meta.ralph?.deleted ?? null,
      )
  }

  /**
   * One page, newest first, of the snapshots matching every filter given; `total` counts all the matches, so a
   * search pages through the whole history, not only the rows loaded so far.
   */
  list(projectId: number, query: ListOptions = {}): ListResult {
    const where = ['project_id = ?']
    const params: (string | number)[] = [projectId]
    if (query.kind !== undefined) {
      where.push('kind = ?')
      params.push(query.kind)
    }
    if (query.task !== undefined) {
      where.push('task = ?')
      params.push(query.task)
    }
    if (query.tasksOnly) where.push('task IS NOT NULL')
    // Every word must appear in the message or the tag (case-insensitive for ASCII, as SQLite's LIKE is).
    for (const word of (query.search ?? '').trim().split(/\s+/).filter(Boolean)) {
      where.push(`(message LIKE ? ESCAPE '\\' OR tag LIKE ? ESCAPE '\\')`)
      const pattern = `%${likeLiteral(word)}%`
      params.push(pattern, pattern)
    }
    const clause = where.join(' AND ')
    const total = (
      this.db.prepare(`SELECT COUNT(*) AS n FROM snapshots WHERE ${clause}`).get(...params) as { n: number }
    ).n
    const rows = this.db
      .prepare<
        unknown[],
        Row
      >(`SELECT * FROM snapshots WHERE ${clause} ORDER BY created_at DESC, tag DESC LIMIT ? OFFSET ?`)
      .all(...params, query.limit ?? 100, query.offset ?? 0)
    return { items: rows.map(toSnapshot), total }
  }

  get(projectId: number, tag: string): SnapshotMeta | null {
    const row = this.db
      .prepare<[number, string], Row>('SELECT * FROM snapshots WHERE project_id = ? AND tag = ?')
      .get(projectId, tag)
    return row ? toSnapshot(row) : null
  }

  remove(projectId: number, tags: string[]): void {
    const del = this.db.prepare('DELETE FROM snapshots WHERE project_id = ? AND tag = ?')
    this.db.transaction(() => {
      for (const tag of tags) del.run(projectId, tag)
    })()
  }

  /** Makes the mirror match the store exactly (after a crash, or when the CLI saved without the app). */
  sync(projectId: number, metas: SnapshotMeta[]): void {
    this.db.transaction(() => {
      const known = new Set(metas.map((m) => m.tag))
      const rows = this.db
        .prepare<[number], { tag: string }>('SELECT tag FROM snapshots WHERE project_id = ?')
        .all(projectId)
      this.remove(
        projectId,
        rows.map((r) => r.tag).filter((t) => !known.has(t)),
      )
      for (const meta of metas) this.upsert(projectId, meta)
    })()
  }

  /** The engine's metadata sink for one project. */
  indexFor(projectId: number): SnapshotIndex {
    return {
      record: (meta) => this.upsert(projectId, meta),
      remove: (tags) => this.remove(projectId, tags),
    }
  }
}
