// The id a project's lanes are filed under: `<app data>/lanes/<id>/`. It is derived from the folder itself, not
// from the app's SQLite row, so every host (the app, the web host, a CLI run with no project row yet, a build
// killed and resumed) names the same folder for the same project without opening the store.
import { createHash } from 'node:crypto'
import { realpathSync } from 'node:fs'
import { basename } from 'node:path'

const HASH_CHARS = 16
const NAME_CHARS = 40

/**
 * The lanes id of the project at `projectDir`: its folder name made safe (for a person looking in the lanes
 * folder) and the first 16 hex digits of the SHA-256 of its real path (for uniqueness). A symlinked path and the
 * real one give the same id; a moved or renamed project gets a new one (its old lanes are then listed under the old
 * id, which `ralph lanes clean` from the old path removes). Throws when the folder does not exist.
 */
export function laneProjectId(projectDir: string): string {
  const real = realpathSync.native(projectDir)
  const hash = createHash('sha256').update(real).digest('hex').slice(0, HASH_CHARS)
  const name = basename(real)
    .replace(/[^A-Za-z0-9_-]+/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, NAME_CHARS)
    .replace(/-+$/, '')
  return `${name || 'project'}-${hash}`
}
