import Database from 'better-sqlite3'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { AppError } from '../../shared/errors'
import { migrations as allMigrations } from './migrations'
import type { Migration } from './migrations/types'

export type Db = Database.Database

export interface OpenDatabaseOptions {
  /** Where the Electron-ABI build of better-sqlite3 lives, when running inside Electron. */
  nativeBinding?: string
  migrations?: readonly Migration[]
}

/**
 * Opens (creating if needed) the app database, turns on WAL and runs pending migrations.
 * A damaged or newer-version file is reported by name and never reset: the user's history is in it.
 */
export function openDatabase(file: string, options: OpenDatabaseOptions = {}): Db {
  const migrations = options.migrations ?? allMigrations
  try {
    mkdirSync(dirname(file), { recursive: true })
  } catch (err) {
    throw new AppError('store', `Cannot create the data folder ${dirname(file)}: ${(err as Error).message}`)
  }
  let db: Db
  try {
    db = new Database(file, options.nativeBinding ? { nativeBinding: options.nativeBinding } : {})
  } catch (err) {
    throw new AppError('store', `Cannot open the database ${file}: ${(err as Error).message}`)
  }
  try {
    db.pragma('busy_timeout = 5000')
    // Check the version before anything writes: a newer app's file must stay byte-for-byte as it was.
    refuseNewer(db, file, migrations)
    db.pragma('journal_mode = WAL')
    db.pragma('foreign_keys = ON')
    db.pragma('synchronous = NORMAL')
    migrate(db, migrations)
    return db
  } catch (err) {
    db.close()
    if (err instanceof AppError) throw err
    const message = (err as Error).message
    if (/not a database|malformed|file is encrypted/i.test(message)) {
      throw new AppError(
        'store',
        `The database ${file} is damaged or is not a Ralph Studio database (${message}). ` +
          'It was left untouched: move it aside to start fresh, or restore it from a backup.',
      )
    }
    throw new AppError('store', `Cannot prepare the database ${file}: ${message}`)
  }
}

export function schemaVersion(db: Db): number {
  return db.pragma('user_version', { simple: true }) as number
}

function latestVersion(migrations: readonly Migration[]): number {
  return migrations.length === 0 ? 0 : migrations[migrations.length - 1]!.version
}

function refuseNewer(db: Db, file: string, migrations: readonly Migration[]): void {
  const latest = latestVersion(migrations)
  const current = schemaVersion(db)
  if (current > latest) {
    throw new AppError(
      'store',
      `The database ${file} was written by a newer version of Ralph Studio (schema ${current}; this version knows ` +
        `up to ${latest}). Update Ralph Studio, or point RALPH_HOME at another folder. The file was left untouched.`,
    )
  }
}

function migrate(db: Db, migrations: readonly Migration[]): void {
  const current = schemaVersion(db)
  for (const migration of migrations) {
    if (migration.version <= current) continue
    // Each step is atomic: a crash mid-migration leaves the previous version intact.
    db.transaction(() => {
      db.exec(migration.up)
      db.pragma(`user_version = ${migration.version}`)
    })()
  }
}
