import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { useTempDir } from '../workspace/testkit'
import { openDatabase, schemaVersion } from './database'
import { migrations } from './migrations'

describe('openDatabase', () => {
  const dir = useTempDir()

  it('creates a WAL database on disk and runs every migration', () => {
    const file = join(dir.path, 'nested', 'ralph.db')
    const db = openDatabase(file)
    expect(schemaVersion(db)).toBe(migrations.at(-1)!.version)
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal')
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as {
      name: string
    }[]
    expect(tables.map((t) => t.name)).toEqual(
      expect.arrayContaining(['projects', 'settings', 'secrets', 'snapshots']),
    )
    db.close()
  })

  it('upgrades an older database in place and keeps its rows', () => {
    const file = join(dir.path, 'ralph.db')
    const v1 = openDatabase(file, { migrations: migrations.slice(0, 1) })
    v1.prepare('INSERT INTO projects (path, name, created_at, last_opened_at) VALUES (?, ?, 1, 1)').run(
      '/p',
      'p',
    )
    expect(schemaVersion(v1)).toBe(1)
    v1.close()
    const latest = openDatabase(file)
    expect(schemaVersion(latest)).toBe(migrations.at(-1)!.version)
    expect(latest.prepare('SELECT name FROM projects').get()).toEqual({ name: 'p' })
    latest.close()
  })

  it('is idempotent when opened again', () => {
    const file = join(dir.path, 'ralph.db')
    openDatabase(file).close()
    const again = openDatabase(file)
    expect(schemaVersion(again)).toBe(migrations.at(-1)!.version)
    again.close()
  })

  it('refuses a newer-version database by name and leaves it untouched', () => {
    const file = join(dir.path, 'ralph.db')
    const raw = new Database(file)
    raw.pragma('user_version = 999')
    raw.close()
    const before = readFileSync(file)
    expect(() => openDatabase(file)).toThrowError(/ralph\.db was written by a newer version.*schema 999/)
    expect(readFileSync(file).equals(before)).toBe(true)
  })

  it('refuses a corrupt file by name and never resets it', () => {
    const file = join(dir.path, 'ralph.db')
    writeFileSync(file, 'this is not sqlite, it is the only copy of something'.repeat(200))
    const before = readFileSync(file)
    expect(() => openDatabase(file)).toThrowError(
      new RegExp(`${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is damaged`),
    )
    expect(readFileSync(file).equals(before)).toBe(true)
  })

  it('rolls a failing migration back as a whole', () => {
    const file = join(dir.path, 'ralph.db')
    const broken = [
      ...migrations,
      { version: 99, name: 'broken', up: 'CREATE TABLE half (x INT); SELECT nonsense FROM nowhere;' },
    ]
    expect(() => openDatabase(file, { migrations: broken })).toThrowError(/Cannot prepare the database/)
    const db = openDatabase(file)
    expect(schemaVersion(db)).toBe(migrations.at(-1)!.version)
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'half'").get()).toBeUndefined()
    db.close()
  })
})
