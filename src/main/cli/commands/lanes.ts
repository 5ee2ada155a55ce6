import { AppError, isAppError } from '../../../shared/errors'
import { formatDuration, plural } from '../../../shared/format'
import {
  discardKept,
  laneProjectId,
  listKept,
  listLanes,
  projectLanesDir,
  removeLane,
  type KeptState,
  type LaneListing,
} from '../../lanes'
import { acquireTaskLock, runningTask } from '../../snapshots'
import { checkProjectFolder } from '../../workspace/projectFolder'
import { cliAppDataDir } from '../appData'
import { expectAction, expectPositionals } from '../args'
import { writeJson } from '../output'
import { ExitCode, type CliCommand, type CliContext } from '../types'

const usage = `Usage: ralph lanes [list|clean] [--project DIR] [--json]

  list    the project's lanes: lane, task, state, disk use, base snapshot and age (the default); and the work
          of stopped lanes kept in the snapshot store
  clean   remove the project's leftover lanes and discard the kept work of stopped lanes; a folder Ralph did not
          make is left alone, with why

A lane is a working copy of the project that a build with parallel lanes makes for each task it builds at the same
time, checked out from the snapshot store (never your .git) into the app data folder:
<app data>/lanes/<project id>/lane-N/, outside the project, so your tools and watchers never see it. A lane is
removed when its task is merged. When a build stops (Stop, Ctrl+C, a budget) before a lane's task merged, the
lane's work is kept in the snapshot store (refs/lanes/N/stopped) and the lane removed: the next build resumes the
task from it (merged onto the tasks merged since, or afresh when that conflicts). States:
  ready        checked out and ready (or left by a build that stopped: clean removes it)
  incomplete   its creation was interrupted: clean removes it
  symlink      a symbolic link where a lane folder should be: clean removes the link, never what it points to
  not-ralphs   its marker is missing, changed or made for another folder: never removed; check it, remove it yourself
clean refuses while a build or task runs on the project (its lanes are in use).
--json: list prints { ok, project, projectId, lanesDir, buildRunning, totalDiskBytes, totalDisk, lanes: [...],
kept: [{ task, taskId, lane, base, commit, ref, keptAt }] } with disk use in bytes (diskBytes) and as people read
it (disk: "12.4 MB"); clean prints { ok, removed: [...], left: [...], discarded: [...kept], freedBytes }.
Exit codes: 0 ok, 2 usage, 4 clean left a lane that is not Ralph's (each named with why), or a build is running.`

/** "12.4 MB": disk use as people read it. */
function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  const units = ['KB', 'MB', 'GB', 'TB']
  let n = bytes / 1024
  let unit = 0
  while (n >= 1024 && unit < units.length - 1) {
    n /= 1024
    unit++
  }
  return `${n.toFixed(1)} ${units[unit]}`
}

const EMPTY =
  'No lanes for this project. A build with parallel lanes (ralph build --parallel N) makes one for each task it ' +
  'builds at the same time, and removes it when that task is merged.'

const keptJson = (k: KeptState) => ({
  task: k.task,
  taskId: k.taskId,
  lane: k.lane,
  base: k.base,
  commit: k.commit,
  ref: k.ref,
  keptAt: k.keptAt,
})

function keptLines(kept: KeptState[], now: number): string[] {
  if (kept.length === 0) return []
  return [
    `Work of ${plural(kept.length, 'stopped lane')} kept in the snapshot store (the next build resumes it; clean discards it):`,
    ...kept.map(
      (k) =>
        `  task ${k.task}  ${k.taskId}  from lane ${k.lane}  base ${k.base.slice(0, 7)}  kept ${formatDuration(now - k.keptAt)} ago  ${k.ref}`,
    ),
  ]
}

interface Where {
  projectDir: string
  appDataDir: string
  projectId: string
}

function where(ctx: CliContext): Where {
  const projectDir = checkProjectFolder(ctx.projectDir, { write: false })
  return { projectDir, appDataDir: cliAppDataDir(ctx.env), projectId: laneProjectId(projectDir) }
}

/** What `ralph lanes clean` would do with these lanes (no build running). */
function cleanHint(lanes: LaneListing[]): string {
  const foreign = lanes.filter((l) => l.state === 'not-ralphs').map((l) => `lane ${l.lane}`)
  if (foreign.length === 0) return 'No build is running on this project: ralph lanes clean removes them.'
  const them = foreign.length > 1 ? 'them' : 'it'
  if (foreign.length === lanes.length)
    return `ralph lanes clean leaves ${foreign.join(', ')} alone: Ralph did not make ${them}. Check ${them} and remove ${them} yourself.`
  return `ralph lanes clean removes the others and leaves ${foreign.join(', ')} alone (Ralph did not make ${them}).`
}

const lanesDirOf = (at: Where): string => projectLanesDir(at.appDataDir, at.projectId)

function laneLine(l: LaneListing, now: number): string {
  const task = l.task === null ? 'no task' : `task ${l.task}`
  const parts = [`lane ${l.lane}`, task.padEnd(8), l.state.padEnd(10), formatBytes(l.diskBytes).padStart(9)]
  if (l.base) parts.push(`base ${l.base.slice(0, 7)}`)
  if (l.createdAt !== null) parts.push(`made ${formatDuration(now - l.createdAt)} ago`)
  return `  ${parts.join('  ')}${l.reason ? `\n      ${l.reason}` : ''}`
}

async function list(ctx: CliContext): Promise<number> {
  const at = where(ctx)
  const lanes = await listLanes(at.appDataDir, at.projectId)
  const kept = await listKept(at.projectDir)
  const buildRunning = (await runningTask(at.projectDir)) !== null
  const totalDiskBytes = lanes.reduce((sum, l) => sum + l.diskBytes, 0)
  const now = Date.now()
  if (ctx.json) {
    writeJson(ctx.stdout, {
      ok: true,
      project: at.projectDir,
      projectId: at.projectId,
      lanesDir: lanesDirOf(at),
      buildRunning,
      totalDiskBytes,
      totalDisk: formatBytes(totalDiskBytes),
      lanes: lanes.map((l) => ({
        lane: l.lane,
        task: l.task,
        state: l.state,
        reason: l.reason ?? null,
        dir: l.dir,
        base: l.base,
        createdAt: l.createdAt,
        ageMs: l.createdAt === null ? null : now - l.createdAt,
        diskBytes: l.diskBytes,
        disk: formatBytes(l.diskBytes),
        bytes: l.bytes,
        files: l.files,
      })),
      kept: kept.map(keptJson),
    })
    return ExitCode.ok
  }
  if (lanes.length === 0) {
    ctx.stdout.write([EMPTY, ...keptLines(kept, now)].join('\n') + '\n')
    return ExitCode.ok
  }
  const lines = [
    `${plural(lanes.length, 'lane')} of ${at.projectDir} in ${lanesDirOf(at)}, ${formatBytes(totalDiskBytes)} on disk:`,
    ...lanes.map((l) => laneLine(l, now)),
    buildRunning ? 'A build or task is running on this project: its lanes are in use.' : cleanHint(lanes),
    ...keptLines(kept, now),
  ]
  ctx.stdout.write(lines.join('\n') + '\n')
  return ExitCode.ok
}

interface Removed {
  lane: number
  dir: string
  /** A symbolic link stood where the lane should be: only the link went. */
  linkOnly: boolean
  freedBytes: number
  message: string | null
}

interface Left {
  lane: number
  dir: string
  reason: string
}

async function clean(ctx: CliContext): Promise<number> {
  const at = where(ctx)
  const removed: Removed[] = []
  const left: Left[] = []
  const discarded: KeptState[] = []
  const anyKept = (await listKept(at.projectDir)).length > 0
  if (anyKept || (await listLanes(at.appDataDir, at.projectId)).length > 0) {
    // Held while cleaning: a build's lanes are in use, and no build starts half-way through.
    const lock = await acquireTaskLock(at.projectDir, 'ralph lanes clean').catch((err: unknown) => {
      if (!isAppError(err, 'busy')) throw err
      throw new AppError(
        'busy',
        'A build or task is running on this project, so its lanes are in use: stop it (or let it finish), then ' +
          'run ralph lanes clean again. Nothing was removed.',
        err.details,
      )
    })
    try {
      for (const l of await listLanes(at.appDataDir, at.projectId)) {
        try {
          const r = await removeLane(at.appDataDir, at.projectId, l.lane)
          if (r.removed === 'lane')
            removed.push({
              lane: l.lane,
              dir: r.dir,
              linkOnly: false,
              freedBytes: r.freedBytes,
              message: null,
            })
          else if (r.removed === 'link-only')
            removed.push({ lane: l.lane, dir: r.dir, linkOnly: true, freedBytes: 0, message: r.message })
        } catch (err) {
          // removeLane refuses what Ralph did not make (AppError) and a lane number it never uses (RangeError).
          if (!isAppError(err, 'invalid-input') && !(err instanceof RangeError)) throw err
          left.push({ lane: l.lane, dir: l.dir, reason: err.message })
        }
      }
      for (const k of await listKept(at.projectDir)) {
        await discardKept(at.projectDir, k)
        discarded.push(k)
      }
    } finally {
      await lock.release()
    }
  }
  const freedBytes = removed.reduce((sum, r) => sum + r.freedBytes, 0)
  const code = left.length > 0 ? ExitCode.taskFailed : ExitCode.ok
  if (ctx.json) {
    writeJson(ctx.stdout, {
      ok: left.length === 0,
      removed,
      left,
      discarded: discarded.map(keptJson),
      freedBytes,
    })
    return code
  }
  const lines: string[] = []
  if (removed.length === 0 && left.length === 0 && discarded.length === 0)
    lines.push('No lanes to clean for this project.')
  for (const r of removed)
    lines.push(r.linkOnly ? `✓ ${r.message!}` : `✓ Removed lane ${r.lane} (${formatBytes(r.freedBytes)})`)
  for (const l of left) lines.push(`✗ Left lane ${l.lane}: ${l.reason}`)
  for (const k of discarded)
    lines.push(`✓ Discarded the kept work of task ${k.task} (${k.taskId}, stopped in lane ${k.lane})`)
  if (freedBytes > 0) lines.push(`Freed ${formatBytes(freedBytes)}.`)
  ctx.stdout.write(lines.join('\n') + '\n')
  return code
}

export const lanesCommand: CliCommand = {
  name: 'lanes',
  usage,
  async run(ctx) {
    const [action = 'list'] = ctx.positionals
    expectPositionals(ctx.positionals, 0, 1, 'lanes [list|clean]', 'lanes')
    expectAction(action, ['list', 'clean'], 'lanes')
    return action === 'clean' ? clean(ctx) : list(ctx)
  },
}
