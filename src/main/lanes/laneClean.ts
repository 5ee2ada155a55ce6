// Listing and removing a project's lanes. Removal touches only a folder under the lanes root that carries Ralph's
// marker for exactly that lane; it never follows a symbolic link, so a lane folder replaced by a link to the
// user's home removes the link and leaves its target alone (the failures of other tools' worktree cleanup).
import type { Dirent } from 'node:fs'
import { lstat, readdir, realpath, rmdir, unlink } from 'node:fs/promises'
import { join, sep } from 'node:path'
import { AppError } from '../../shared/errors'
import { isMissing } from '../workspace'
import { removeTree } from './removeTree'
import {
  checkMarker,
  laneDir,
  laneNumberOf,
  lanesRoot,
  MARKER_FILE,
  projectLanesDir,
  type LaneMarker,
} from './laneFolder'

export type LaneState =
  /** Checked out and its files copied. */
  | 'ready'
  /** Its creation was interrupted (a kill): safe to remove. */
  | 'incomplete'
  /** A symbolic link where a lane folder should be: only the link is ever removed. */
  | 'symlink'
  /** Its marker is missing, broken or names another lane: never removed by Ralph. */
  | 'not-ralphs'

export interface LaneListing {
  lane: number
  dir: string
  state: LaneState
  /** Why a lane is 'symlink' or 'not-ralphs'. */
  reason?: string
  task: number | null
  base: string | null
  createdAt: number | null
  /** Space on disk (allocated blocks) and the files' own sizes, links counted as links. */
  diskBytes: number
  bytes: number
  files: number
}

export async function listLanes(appDataDir: string, projectId: string): Promise<LaneListing[]> {
  const parent = projectLanesDir(appDataDir, projectId)
  let entries: Dirent[]
  try {
    entries = await readdir(parent, { withFileTypes: true })
  } catch (err) {
    if (isMissing(err)) return []
    throw err
  }
  const out: LaneListing[] = []
  for (const e of entries) {
    const lane = laneNumberOf(e.name)
    if (lane === null) continue
    out.push(await describeLane(join(parent, e.name), projectId, lane))
  }
  return out.sort((a, b) => a.lane - b.lane)
}

async function describeLane(dir: string, projectId: string, lane: number): Promise<LaneListing> {
  const st = await lstat(dir)
  const none = { task: null, base: null, createdAt: null, diskBytes: 0, bytes: 0, files: 0 }
  if (st.isSymbolicLink())
    return { lane, dir, state: 'symlink', reason: 'a symbolic link, not a folder Ralph made', ...none }
  if (!st.isDirectory()) return { lane, dir, state: 'not-ralphs', reason: 'not a folder', ...none }
  if (await isEmpty(dir)) return { lane, dir, state: 'incomplete', ...none }
  const check = await checkMarker(dir, projectId, lane)
  const use = await diskUse(dir)
  if (!check.ok) return { lane, dir, state: 'not-ralphs', reason: check.reason, ...none, ...use }
  const m: LaneMarker = check.marker
  return {
    lane,
    dir,
    state: m.state === 'ready' ? 'ready' : 'incomplete',
    task: m.task,
    base: m.base,
    createdAt: m.createdAt,
    ...use,
  }
}

/** Bytes under `dir`, never following a symbolic link (a link counts as the link itself). */
export async function diskUse(dir: string): Promise<{ diskBytes: number; bytes: number; files: number }> {
  let diskBytes = 0
  let bytes = 0
  let files = 0
  const walk = async (at: string): Promise<void> => {
    let names: string[]
    try {
      names = await readdir(at)
    } catch (err) {
      if (isMissing(err)) return
      throw err
    }
    for (const name of names) {
      const p = join(at, name)
      const st = await lstat(p).catch((err: unknown) => {
        if (isMissing(err)) return null
        throw err
      })
      if (st === null) continue
      diskBytes += st.blocks * 512
      if (st.isDirectory()) await walk(p)
      else {
        bytes += st.size
        files++
      }
    }
  }
  await walk(dir)
  return { diskBytes, bytes, files }
}

export type RemoveResult =
  /** `freedBytes`: 0 when not measured (`measure: false`). */
  | { removed: 'lane'; dir: string; freedBytes: number }
  | { removed: 'link-only'; dir: string; message: string }
  | { removed: 'nothing'; dir: string; message: string }

/**
 * Removes one lane. A folder is removed only when it lives under the lanes root and carries Ralph's marker for
 * exactly this project and lane; a symbolic link in its place is unlinked (its target untouched); anything else
 * is refused with the reason.
 */
export async function removeLane(
  appDataDir: string,
  projectId: string,
  lane: number,
  opts: { measure?: boolean } = {},
): Promise<RemoveResult> {
  const dir = laneDir(appDataDir, projectId, lane)
  await assertPlainParents(appDataDir, projectId)
  const st = await lstat(dir).catch((err: unknown) => {
    if (isMissing(err)) return null
    throw err
  })
  if (st === null) return { removed: 'nothing', dir, message: `Lane ${lane} does not exist.` }
  if (st.isSymbolicLink()) {
    await unlink(dir)
    return {
      removed: 'link-only',
      dir,
      message: `Lane ${lane} was a symbolic link, not a folder Ralph made: removed the link only, its target is untouched.`,
    }
  }
  if (!st.isDirectory())
    throw new AppError(
      'invalid-input',
      `${dir} is not a folder Ralph made (${fileType(st)}); it was left alone.`,
    )
  // Empty: a removal killed after its marker went, or a creation killed before the marker was written. rmdir
  // removes only an empty folder, so nothing can be lost.
  if (await isEmpty(dir)) {
    await rmdir(dir)
    return { removed: 'lane', dir, freedBytes: 0 }
  }
  const check = await checkMarker(dir, projectId, lane)
  if (!check.ok)
    throw new AppError(
      'invalid-input',
      `${dir} was not removed: ${check.reason}. Check it and remove it yourself.`,
    )
  // The space freed is measured only when asked (`ralph lanes clean` says it): a walk of the lane's every file,
  // which the build does not need after each task.
  const diskBytes = opts.measure === false ? 0 : (await diskUse(dir)).diskBytes
  // Links inside the lane are removed as links: nothing outside the lane is reached. The marker goes last, so a
  // removal killed midway leaves a lane the next build and `ralph lanes clean` still know as Ralph's.
  for (const name of await readdir(dir)) if (name !== MARKER_FILE) await removeTree(join(dir, name))
  await unlink(join(dir, MARKER_FILE))
  await rmdir(dir)
  return { removed: 'lane', dir, freedBytes: diskBytes }
}

async function isEmpty(dir: string): Promise<boolean> {
  return (await readdir(dir)).length === 0
}

/** The lanes root and the project's folder in it are real folders (not links to somewhere else). */
async function assertPlainParents(appDataDir: string, projectId: string): Promise<void> {
  const root = await realpath(lanesRoot(appDataDir)).catch((err: unknown) => {
    if (isMissing(err)) return null
    throw err
  })
  if (root === null) return
  const parent = projectLanesDir(appDataDir, projectId)
  const st = await lstat(parent).catch((err: unknown) => {
    if (isMissing(err)) return null
    throw err
  })
  if (st === null) return
  if (!st.isDirectory() || !(await realpath(parent)).startsWith(root + sep))
    throw new AppError(
      'invalid-input',
      `${parent} is not a plain folder under ${root}: no lane in it is removed.`,
    )
}

const fileType = (st: { isFile(): boolean }): string => (st.isFile() ? 'a file' : 'not a folder')
