import type { Db } from './database'

/** Where each API key lives and its masked hint (never the key itself): the `secrets` table. */
export class SecretsRepo {
  constructor(private readonly db: Db) {}

  get(name: string): { backend: string; hint: string | null } | undefined {
    return this.db
      .prepare<
        [string],
        { backend: string; hint: string | null }
      >('SELECT backend, hint FROM secrets WHERE name = ?')
      .get(name)
  }

  upsert(name: string, backend: string, hint: string, now: number): void {
    this.db
      .prepare(
        `INSERT INTO secrets (name, backend, hint, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT(name) DO UPDATE SET backend = excluded.backend, hint = excluded.hint, updated_at = excluded.updated_at`,
      )
      .run(name, backend, hint, now)
  }

  /** The names stored under `prefix` (without it), sorted: which secrets exist, never their values. */
  namesUnder(prefix: string): string[] {
    return this.db
      .prepare<[number, string], { name: string }>(
        'SELECT name FROM secrets WHERE substr(name, 1, ?) = ? ORDER BY name',
      )
      .all(prefix.length, prefix)
      .map((r) => r.name.slice(prefix.length))
  }

  delete(name: string): void {
    this.db.prepare('DELETE FROM secrets WHERE name = ?').run(name)
  }
}
