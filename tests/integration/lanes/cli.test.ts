// `ralph lanes` and `ralph build --parallel` through the real CLI (issue #38): lanes made from a real snapshot store
// are listed with their disk use, clean removes Ralph's and leaves alone what it did not make (a symlinked lane's
// target above all), a running build keeps its lanes, and more lanes than the build can run are refused.
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { runCli } from '../../helpers/cli'
import { makeTempDir } from '../../helpers/tempDir'
import { createLane, keepLaneState, laneProjectId, MARKER_FILE, removeLane } from '../../../src/main/lanes'
import { acquireTaskLock, SnapshotEngine } from '../../../src/main/snapshots'
import { write } from '../../../src/main/snapshots/testkit'
import { memoryLogger } from '../../../src/main/workspace/logFile'

let tmp: { path: string; cleanup(): void }
let project: string
let appData: string
let env: NodeJS.ProcessEnv
const log = memoryLogger()

beforeEach(() => {
  tmp = makeTempDir('ralph-lanes-cli-')
  project = join(tmp.path, 'project')
  appData = join(tmp.path, 'appdata')
  mkdirSync(project)
  // The CLI's app data folder is the one the lanes are made in; no provider is needed by these commands.
  env = { RALPH_HOME: appData, RALPH_PROVIDER: '', RALPH_MODEL: '', RALPH_BASE_URL: '', RALPH_API_KEY: '' }
})
afterEach(() => tmp.cleanup())

const ralph = (...args: string[]) => runCli([...args, '--project', project], { env })

async function snapshot(): Promise<string> {
  const engine = new SnapshotEngine({ projectDir: project, logger: log })
  await engine.init()
  return (await engine.save({ kind: 'task-pre', task: 1 })).commit
}

const makeLane = (lane: number, base: string) =>
  createLane({
    appDataDir: appData,
    projectId: laneProjectId(project),
    projectDir: project,
    lane,
    task: lane + 10,
    base,
    logger: log,
  })

interface ListedLane {
  lane: number
  task: number | null
  state: string
  reason: string | null
  base: string | null
  ageMs: number | null
  diskBytes: number
  disk: string
  bytes: number
  files: number
}

describe('ralph lanes', { timeout: 120_000 }, () => {
  it('lists lanes with their disk use, cleans only what Ralph made, and says when there are none', async () => {
    const empty = await ralph('lanes')
    expect(empty.code).toBe(0)
    expect(empty.stdout).toMatch(/^No lanes for this project\. .*ralph build --parallel N/)

    for (let i = 0; i < 30; i++)
      write(project, `src/f${i}.ts`, `export const v${i} = '${'x'.repeat(2000)}'\n`)
    const base = await snapshot()
    await makeLane(1, base)
    await makeLane(2, base)

    const listed = await ralph('lanes', '--json')
    expect(listed.code).toBe(0)
    const out = JSON.parse(listed.stdout) as {
      ok: boolean
      projectId: string
      lanesDir: string
      buildRunning: boolean
      totalDiskBytes: number
      lanes: ListedLane[]
    }
    expect(out).toMatchObject({
      ok: true,
      projectId: laneProjectId(project),
      lanesDir: join(appData, 'lanes', laneProjectId(project)),
      buildRunning: false,
    })
    expect(out.lanes.map((l) => [l.lane, l.task, l.state, l.base])).toEqual([
      [1, 11, 'ready', base],
      [2, 12, 'ready', base],
    ])
    for (const l of out.lanes) {
      expect(l.files).toBeGreaterThanOrEqual(30)
      expect(l.bytes).toBeGreaterThan(30 * 2000)
      expect(l.diskBytes).toBeGreaterThanOrEqual(l.bytes)
      expect(l.ageMs).toBeGreaterThanOrEqual(0)
      expect(l.disk).toBe(`${(l.diskBytes / 1024).toFixed(1)} KB`)
    }
    expect(out.totalDiskBytes).toBe(out.lanes[0]!.diskBytes + out.lanes[1]!.diskBytes)

    const text = await ralph('lanes')
    expect(text.code).toBe(0)
    expect(text.stdout).toMatch(/^2 lanes of .* KB on disk:/)
    expect(text.stdout).toMatch(
      new RegExp(`lane 1 +task 11 +ready +[0-9.]+ KB +base ${base.slice(0, 7)} +made `),
    )
    expect(text.stdout).toContain('ralph lanes clean removes them')

    // Lane 3 replaced by a link to a folder of the user's; lane 4's marker changed outside Ralph.
    const userFolder = join(tmp.path, 'user-folder')
    write(userFolder, 'precious.txt', 'keep me\n')
    const l3 = await makeLane(3, base)
    renameSync(l3.dir, join(tmp.path, 'moved-lane-3'))
    symlinkSync(userFolder, l3.dir)
    const l4 = await makeLane(4, base)
    const marker4 = join(l4.dir, MARKER_FILE)
    writeFileSync(marker4, readFileSync(marker4, 'utf8').replace('"lane": 4', '"lane": 7'))

    const mixed = await ralph('lanes')
    expect(mixed.stdout).toMatch(/lane 3 +no task +symlink .*\n +a symbolic link, not a folder Ralph made\n/)
    expect(mixed.stdout).toMatch(
      /lane 4 +no task +not-ralphs .*\n +its ralph-lane.json names project .* lane 7/,
    )
    expect(mixed.stdout).toContain(
      'ralph lanes clean removes the others and leaves lane 4 alone (Ralph did not make it).',
    )

    // A running build holds the project: its lanes are in use and nothing is removed.
    const lock = await acquireTaskLock(project, 'test build')
    const busy = await ralph('lanes', 'clean')
    await lock.release()
    expect(busy.code).toBe(4)
    expect(busy.stderr).toMatch(/lanes are in use.*Nothing was removed/)
    expect(existsSync(join(appData, 'lanes', laneProjectId(project), 'lane-1'))).toBe(true)

    const cleaned = await ralph('lanes', 'clean', '--json')
    expect(cleaned.code).toBe(4) // a lane was left: the user has to look at it
    const result = JSON.parse(cleaned.stdout) as {
      ok: boolean
      removed: { lane: number; linkOnly: boolean; freedBytes: number }[]
      left: { lane: number; reason: string }[]
      freedBytes: number
    }
    expect(result.ok).toBe(false)
    expect(result.removed.map((r) => [r.lane, r.linkOnly])).toEqual([
      [1, false],
      [2, false],
      [3, true],
    ])
    expect(result.freedBytes).toBe(out.totalDiskBytes)
    expect(result.left).toEqual([
      { lane: 4, dir: l4.dir, reason: expect.stringMatching(/names project .* lane 7/) },
    ])
    expect(readFileSync(join(userFolder, 'precious.txt'), 'utf8')).toBe('keep me\n')
    expect(lstatSync(userFolder).isDirectory()).toBe(true)
    expect(existsSync(l3.dir)).toBe(false)
    expect(existsSync(join(l4.workDir, 'src/f0.ts'))).toBe(true)

    const again = await ralph('lanes', 'clean')
    expect(again.code).toBe(4)
    expect(again.stdout).toMatch(/^✗ Left lane 4: .*Check it and remove it yourself/)
  })

  it('lists the kept work of stopped lanes, and clean discards it', async () => {
    write(project, 'a.txt', 'a\n')
    const base = await snapshot()
    const l1 = await makeLane(1, base)
    write(l1.workDir, 'a.txt', 'begun\n')
    const kept = await keepLaneState({ lane: l1, projectDir: project, task: 11, taskId: 't-one', base })
    await removeLane(appData, laneProjectId(project), 1)

    const text = await ralph('lanes')
    expect(text.stdout).toMatch(/^No lanes for this project\./)
    expect(text.stdout).toMatch(
      /Work of 1 stopped lane kept in the snapshot store .*\n +task 11 +t-one +from lane 1 +base [0-9a-f]{7} +kept .* ago +refs\/lanes\/11\/stopped/,
    )
    const listed = JSON.parse((await ralph('lanes', '--json')).stdout) as { kept: unknown[] }
    expect(listed.kept).toEqual([
      { task: 11, taskId: 't-one', lane: 1, base, commit: kept.commit, ref: kept.ref, keptAt: kept.keptAt },
    ])
    const cleaned = await ralph('lanes', 'clean', '--json')
    expect(cleaned.code).toBe(0)
    expect(JSON.parse(cleaned.stdout)).toMatchObject({
      ok: true,
      removed: [],
      discarded: [{ task: 11, taskId: 't-one' }],
    })
    expect(JSON.parse((await ralph('lanes', '--json')).stdout)).toMatchObject({ kept: [] })
  })

  it('refuses --parallel outside 1–8', async () => {
    const bad = ['0', '9', 'x']
    const refused = await Promise.all(bad.map((n) => ralph('build', '--parallel', n)))
    refused.forEach((r, i) => {
      expect(r.code).toBe(2)
      expect(r.stderr).toBe(
        `ralph: --parallel takes a number of lanes from 1 to 8, got "${bad[i]}". See "ralph build --help".\n`,
      )
    })
  })
})
