// Lane creation for `npm run bench:parallel` (issue #38): creating a lane of a FILES-file project (its own snapshot
// store made as every store is, borrowing the project's objects through alternates, the checkout with that store's
// index, the listed files copied, the marker) against a plain `git --git-dir=… --work-tree=EMPTY checkout` of the
// same tree, and the disk one lane takes (the lane's store apart). Also the lane's first snapshot (what its
// task-N-pre costs) beside a snapshot of the unchanged project. Rounds alternate which goes first, after a sync.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createLane, diskUse, removeLane } from '../src/main/lanes'
import { SnapshotEngine, storePaths } from '../src/main/snapshots'
import { memoryLogger } from '../src/main/workspace/logFile'
import { makeProject, median, run, settleDisk, timed } from './snapshot-workload'

export const LANE_TARGET = 1.5

export interface DiskUse {
  diskBytes: number
  bytes: number
  files: number
}

export interface LaneCreation {
  laneMs: number[]
  plainMs: number[]
  laneFirstSnapshotMs: number[]
  projectSnapshotMs: number[]
  /** median lane / median plain checkout. */
  ratio: number
  disk: DiskUse
  laneStoreDisk: DiskUse
}

export async function measureLaneCreation(FILES: number, ROUNDS: number): Promise<LaneCreation> {
  const project = makeProject(FILES)
  const appData = mkdtempSync(join(tmpdir(), 'bench-lanes-app-'))
  const scratch = mkdtempSync(join(tmpdir(), 'bench-lanes-plain-'))
  const log = memoryLogger()
  try {
    writeFileSync(join(project, '.env'), 'API_URL=http://localhost\n')
    writeFileSync(join(project, '.gitignore'), 'node_modules/\n.env\n')
    mkdirSync(join(project, '.ralph'), { recursive: true })
    writeFileSync(join(project, '.ralph', 'config.json'), JSON.stringify({ lanes: { copy: ['.env'] } }))
    const engine = new SnapshotEngine({ projectDir: project, logger: log })
    await engine.init()
    const base = (await engine.save({ kind: 'task-pre', task: 1 })).commit
    const gitDir = storePaths(project).gitDir

    const lane: number[] = []
    const plain: number[] = []
    const laneSnapshot: number[] = []
    const projectSnapshot: number[] = []
    let disk = { diskBytes: 0, bytes: 0, files: 0 }
    let storeDisk = { diskBytes: 0, bytes: 0, files: 0 }
    const timeLane = async (r: number, record: boolean): Promise<void> => {
      await settleDisk()
      let made: Awaited<ReturnType<typeof createLane>> | null = null
      const ms = await timed(async () => {
        made = await createLane({
          appDataDir: appData,
          projectId: 'bench',
          projectDir: project,
          lane: 1,
          task: r,
          base,
          logger: log,
        })
      })
      const l = made!
      if (record) lane.push(ms)
      disk = await diskUse(l.dir)
      storeDisk = await diskUse(l.storeDir)
      const first = await timed(async () => {
        await new SnapshotEngine({ projectDir: l.workDir, logger: log }).save({ kind: 'task-pre', task: 2 })
      })
      const same = await timed(async () => {
        await engine.save({ kind: 'manual', message: `round ${r}` })
      })
      if (record) laneSnapshot.push(first)
      if (record) projectSnapshot.push(same)
      await removeLane(appData, 'bench', 1)
    }
    const timePlain = async (r: number, record: boolean): Promise<void> => {
      const work = join(scratch, `w${r}`)
      mkdirSync(work)
      await settleDisk()
      const ms = await timed(async () => {
        await run('git', [`--git-dir=${gitDir}`, `--work-tree=${work}`, 'checkout', base, '--', '.'], {
          env: { ...process.env, GIT_INDEX_FILE: join(scratch, `index${r}`) },
        })
      })
      if (record) plain.push(ms)
      rmSync(work, { recursive: true, force: true })
    }
    for (let r = 0; r <= ROUNDS; r++) {
      const record = r > 0 // round 0 warms the caches
      if (r % 2 === 0) {
        await timeLane(r, record)
        await timePlain(r, record)
      } else {
        await timePlain(r, record)
        await timeLane(r, record)
      }
    }
    return {
      laneMs: lane,
      plainMs: plain,
      laneFirstSnapshotMs: laneSnapshot,
      projectSnapshotMs: projectSnapshot,
      ratio: median(lane) / median(plain),
      disk,
      laneStoreDisk: storeDisk,
    }
  } finally {
    for (const d of [project, appData, scratch]) rmSync(d, { recursive: true, force: true })
  }
}
