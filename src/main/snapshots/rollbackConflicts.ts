import { lstatSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { type Logger, attemptUnlessMissing } from '../workspace'
import { NestedRepoDetector } from './exclusions'
import type { ConflictCheck } from './rollbackPlan'

// The disk facts rollback planning needs (rollbackPlan.ts decides with them), including the case rules of
// case-insensitive file systems.

export function lstatOrNull(file: string, log: Logger): ReturnType<typeof lstatSync> | null {
  return attemptUnlessMissing(
    log,
    `Could not examine ${file}; treated as absent`,
    () => lstatSync(file),
    null,
  )
}

/**
 * A path the target has but the current snapshot lacks must not overwrite anything on disk: whatever is
 * there now (an ignored or oversized file, a nested repo) is not in the safety snapshot, so undo could
 * not bring it back.
 */
export function conflictCheck(projectDir: string, log: Logger): ConflictCheck {
  const detector = new NestedRepoDetector(projectDir)
  return (path, deletedSet, deletedLower) => {
    if (detector.containing(path) !== null) return 'nested-repo'
    const st = lstatOrNull(join(projectDir, path), log)
    if (
      st &&
      !(st.isDirectory() && onlyDeletedFiles(projectDir, path, deletedSet, log)) &&
      !isCaseVariantOfDeleted(projectDir, path, deletedLower, log)
    )
      return 'ignored-or-skipped'
    let idx = path.indexOf('/')
    while (idx !== -1) {
      const dir = path.slice(0, idx)
      const st = lstatOrNull(join(projectDir, dir), log)
      if (st && !st.isDirectory() && !deletedSet.has(dir)) return 'in-the-way'
      idx = path.indexOf('/', idx + 1)
    }
    return null
  }
}

/**
 * On a case-insensitive file system (macOS, Windows) a rename that only changes case shows the new name as
 * existing: it is the old file, which the rollback deletes first. Only a file under exactly this name is in
 * the way.
 */
function isCaseVariantOfDeleted(
  projectDir: string,
  path: string,
  deletedLower: Set<string>,
  log: Logger,
): boolean {
  if (!deletedLower.has(path.toLowerCase())) return false
  const slash = path.lastIndexOf('/')
  const parent = join(projectDir, slash === -1 ? '' : path.slice(0, slash))
  return attemptUnlessMissing(
    log,
    `Could not list ${parent}; ${path} is treated as in the way`,
    () => !readdirSync(parent).includes(path.slice(slash + 1)),
    false,
  )
}

/** True when a folder holds nothing but files the rollback deletes, so it will be gone when the target is written. */
function onlyDeletedFiles(projectDir: string, dir: string, deleted: Set<string>, log: Logger): boolean {
  const entries = attemptUnlessMissing(
    log,
    `Could not list ${dir}; it is treated as in the way`,
    () => readdirSync(join(projectDir, dir), { withFileTypes: true }),
    null,
  )
  if (entries === null) return false
  return entries.every((e) => {
    const rel = `${dir}/${e.name}`
    return e.isDirectory() ? onlyDeletedFiles(projectDir, rel, deleted, log) : deleted.has(rel)
  })
}
