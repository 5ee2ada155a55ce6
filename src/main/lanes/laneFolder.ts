// Where lanes live and the marker that proves Ralph made one. Lanes sit in the app data folder, outside every
// project: the user's tools, watchers and the other lanes' models never see them (issue #38).
//
//   <app data>/lanes/<project id>/lane-<N>/
//     ralph-lane.json   the marker (below)
//     work/             the working copy and its own `.ralph/`: a small project of its own, on which the serial loop
//                       runs unchanged. Its `.ralph/snapshots.git` is the lane's own snapshot store, whose objects
//                       borrow the project's store (objects/info/alternates) and whose index is the checkout's.
import { lstat, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { z } from 'zod'
import { AppError } from '../../shared/errors'
import { assertLaneNumber } from './ports'

export const MARKER_FILE = 'ralph-lane.json'
export const LANE_WORK = 'work'

export const laneMarkerSchema = z.object({
  ralph: z.literal('lane'),
  version: z.literal(1),
  projectId: z.string(),
  lane: z.number().int(),
  task: z.number().int().nullable(),
  /** The snapshot commit the lane was checked out from. */
  base: z.string().regex(/^[0-9a-f]{40}$/),
  createdAt: z.number(),
  /** 'creating' until the checkout and the copies are done: a kill in between leaves a lane clean can remove. */
  state: z.enum(['creating', 'ready']),
  /** The lane folder's identity when it was made: a folder moved or swapped in under this name does not match. */
  folder: z.object({ dev: z.number(), ino: z.number() }),
  copied: z.array(z.string()).default([]),
})
export type LaneMarker = z.infer<typeof laneMarkerSchema>

const PROJECT_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/

export function assertProjectId(projectId: string): void {
  if (!PROJECT_ID.test(projectId)) {
    throw new AppError(
      'invalid-input',
      `"${projectId}" is not a project id a lane folder can be named after (letters, digits, "-", "_").`,
    )
  }
}

export const lanesRoot = (appDataDir: string): string => join(appDataDir, 'lanes')

export function projectLanesDir(appDataDir: string, projectId: string): string {
  assertProjectId(projectId)
  return join(lanesRoot(appDataDir), projectId)
}

export const laneName = (lane: number): string => `lane-${lane}`

export function laneDir(appDataDir: string, projectId: string, lane: number): string {
  assertLaneNumber(lane)
  return join(projectLanesDir(appDataDir, projectId), laneName(lane))
}

/** The lane number a folder name stands for, or null for anything else. */
export function laneNumberOf(name: string): number | null {
  const m = /^lane-([1-9][0-9]{0,1})$/.exec(name)
  return m ? Number(m[1]) : null
}

export type MarkerCheck = { ok: true; marker: LaneMarker } | { ok: false; reason: string }

/**
 * Whether the folder `dir` (already known not to be a symlink) carries a marker Ralph wrote for exactly this
 * project and lane. The marker is read without following a link; every mismatch says what it was.
 */
export async function checkMarker(dir: string, projectId: string, lane: number): Promise<MarkerCheck> {
  const file = join(dir, MARKER_FILE)
  const st = await lstat(file).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT' || err.code === 'ENOTDIR') return null
    throw err
  })
  if (st === null) return { ok: false, reason: `it has no ${MARKER_FILE}: Ralph did not make it` }
  if (!st.isFile()) return { ok: false, reason: `its ${MARKER_FILE} is not a regular file` }
  let parsed: ReturnType<typeof laneMarkerSchema.safeParse>
  try {
    parsed = laneMarkerSchema.safeParse(JSON.parse(await readFile(file, 'utf8')))
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err
    return { ok: false, reason: `its ${MARKER_FILE} is not valid JSON (it was changed outside Ralph)` }
  }
  if (!parsed.success) return { ok: false, reason: `its ${MARKER_FILE} does not have the shape Ralph writes` }
  const m = parsed.data
  if (m.projectId !== projectId || m.lane !== lane)
    return {
      ok: false,
      reason: `its ${MARKER_FILE} names project ${m.projectId} lane ${m.lane}, not project ${projectId} lane ${lane}`,
    }
  const here = await lstat(dir)
  if (here.dev !== m.folder.dev || here.ino !== m.folder.ino)
    return { ok: false, reason: `its ${MARKER_FILE} was made for another folder (copied or moved in)` }
  return { ok: true, marker: m }
}

/** Writes the lane's marker (private to the user: it names the project's folder id). */
export async function writeMarker(dir: string, marker: LaneMarker): Promise<void> {
  await writeFile(join(dir, MARKER_FILE), JSON.stringify(marker, null, 2) + '\n', { mode: 0o600 })
}
