// Issue #38's measures for parallel lanes. This slice has lane creation: creating a lane of a 2,000-file project (its
// own snapshot store made as every store is, borrowing the project's objects through alternates, the checkout with
// that store's index, the listed files copied, the marker) against a plain `git --git-dir=… --work-tree=EMPTY
// checkout` of the same tree, and the disk one lane takes (the lane's store apart). Target: ≤ 1.5×. Also the lane's
// first snapshot (what its task-N-pre costs) beside a snapshot of the unchanged project.
// Rounds alternate which goes first, after a sync. Prints a table and writes bench-results/parallel-<time>.json.
// Usage: npx tsx scripts/bench-parallel.ts [--files 2000] [--rounds 7]
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createLane, diskUse, removeLane } from '../src/main/lanes'
import { SnapshotEngine, storePaths } from '../src/main/snapshots'
import { memoryLogger } from '../src/main/workspace/logFile'
import { makeProject, median, round, run, settleDisk, timed } from './snapshot-workload'

const argv = process.argv.slice(2)
const arg = (name: string): string | undefined => {
  const i = argv.indexOf(`--${name}`)
  return i === -1 ? undefined : argv[i + 1]
}
const FILES = Number(arg('files') ?? 2000)
const ROUNDS = Number(arg('rounds') ?? 7)
const TARGET = 1.5

async function main(): Promise<void> {
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
    const ratio = median(lane) / median(plain)
    const rows = [
      { what: `create a lane (${FILES} files, .env copied)`, ms: round(median(lane)) },
      { what: 'plain git checkout into an empty folder', ms: round(median(plain)) },
      { what: "the lane's first snapshot (its task-N-pre)", ms: round(median(laneSnapshot)) },
      { what: 'a snapshot of the unchanged project', ms: round(median(projectSnapshot)) },
    ]
    for (const r of rows) console.log(r.what.padEnd(56), `${r.ms.toFixed(1)} ms`.padStart(12))
    console.log(
      'ratio lane / plain checkout'.padEnd(56),
      `${ratio.toFixed(2)}×`.padStart(12),
      ratio <= TARGET ? 'ok' : 'MISSED',
      `(target ≤ ${TARGET}×)`,
    )
    console.log(
      'disk per lane'.padEnd(56),
      `${(disk.diskBytes / 1024 / 1024).toFixed(1)} MB`.padStart(12),
      `(${disk.files} files, ${(disk.bytes / 1024 / 1024).toFixed(1)} MB of content)`,
    )
    console.log(
      "  of which the lane's own store".padEnd(56),
      `${(storeDisk.diskBytes / 1024).toFixed(0)} KB`.padStart(12),
      `(${storeDisk.files} files: settings, index, the alternates line; no object copied)`,
    )
    const root = join(import.meta.dirname, '..')
    mkdirSync(join(root, 'bench-results'), { recursive: true })
    const file = join(root, 'bench-results', `parallel-${Date.now()}.json`)
    writeFileSync(
      file,
      JSON.stringify(
        {
          files: FILES,
          rounds: ROUNDS,
          laneMs: lane,
          plainMs: plain,
          laneFirstSnapshotMs: laneSnapshot,
          projectSnapshotMs: projectSnapshot,
          ratio,
          target: TARGET,
          disk,
          laneStoreDisk: storeDisk,
          load: loadavg(),
          cpus: cpus().length,
          at: new Date().toISOString(),
        },
        null,
        2,
      ),
    )
    console.log(`written ${file}`)
    if (ratio > TARGET) process.exitCode = 1
  } finally {
    for (const d of [project, appData, scratch]) rmSync(d, { recursive: true, force: true })
  }
}

await main()
