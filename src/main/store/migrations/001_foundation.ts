import type { Migration } from './types'

export const foundation: Migration = {
  version: 1,
  name: 'foundation',
  up: `
    CREATE TABLE projects (
      id INTEGER PRIMARY KEY,
      path TEXT NOT NULL UNIQUE,
      name TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      last_opened_at INTEGER NOT NULL
    );
    CREATE INDEX projects_last_opened ON projects(last_opened_at DESC);

    -- Values are JSON text; the key namespace is documented in settings/settingsSchema.ts.
    CREATE TABLE settings (
      key TEXT PRIMARY KEY,
      value TEXT NOT NULL,
      updated_at INTEGER NOT NULL
    );

    -- Metadata only: where a secret is held and a short hint for the UI. Never the secret itself.
    CREATE TABLE secrets (
      name TEXT PRIMARY KEY,
      backend TEXT NOT NULL,
      hint TEXT,
      updated_at INTEGER NOT NULL
    );
  `,
}
