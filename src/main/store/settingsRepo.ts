import type { Db } from './database'

/** Key/value settings stored as JSON text. Typed access lives in the modules that own each key. */
export class SettingsRepo {
  constructor(private readonly db: Db) {}

  get<T = unknown>(key: string): T | undefined {
    const row = this.db
      .prepare<[string], { value: string }>('SELECT value FROM settings WHERE key = ?')
      .get(key)
    return row ? (JSON.parse(row.value) as T) : undefined
  }

  all(): Record<string, unknown> {
    const rows = this.db.prepare<[], { key: string; value: string }>('SELECT key, value FROM settings').all()
    return Object.fromEntries(rows.map((r) => [r.key, JSON.parse(r.value) as unknown]))
  }

  /** Writes several keys at once, all or nothing. `undefined` deletes a key. */
  setMany(values: Record<string, unknown>, now: number = Date.now()): void {
    const upsert = this.db.prepare(
      `INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)
       ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
    )
    const remove = this.db.prepare('DELETE FROM settings WHERE key = ?')
    this.db.transaction(() => {
      for (const [key, value] of Object.entries(values)) {
        if (value === undefined) remove.run(key)
        else upsert.run(key, JSON.stringify(value), now)
      }
    })()
  }

  set(key: string, value: unknown, now?: number): void {
    this.setMany({ [key]: value }, now)
  }
}
