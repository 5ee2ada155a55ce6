// Helpers shared by tests that need a real database file.
import { join } from 'node:path'
import { afterEach, beforeEach } from 'vitest'
import { useTempDir } from '../workspace/testkit'
import { openDatabase, type Db } from './database'

/**
 * For each test: a fresh, migrated ralph.db in its own temp folder, closed and removed afterwards. Read `db` and
 * `dir` inside a test or a hook (they change per test).
 */
export function useTempDatabase(prefix?: string): { readonly db: Db; readonly dir: string } {
  const dir = useTempDir(prefix)
  let db: Db | undefined
  beforeEach(() => {
    db = openDatabase(join(dir.path, 'ralph.db'))
  })
  afterEach(() => {
    if (db?.open) db.close()
  })
  return {
    get db(): Db {
      if (!db) throw new Error('useTempDatabase: the database exists only inside a test')
      return db
    },
    get dir(): string {
      return dir.path
    },
  }
}
