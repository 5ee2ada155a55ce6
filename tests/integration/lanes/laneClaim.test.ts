// A spare lane taken by a task (issue #38) against real git and real files: made with no task at one snapshot, it is
// moved to the task's base (only the paths that differ are written, the lane's index and branch follow) and its
// marker names the task; a lane made for a task, or a spare whose marker was changed, is refused.
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { makeTempDir } from '../../helpers/tempDir'
import { BRANCH_REF, SnapshotEngine } from '../../../src/main/snapshots'
import { write } from '../../../src/main/snapshots/testkit'
import { memoryLogger } from '../../../src/main/workspace/logFile'
import { claimLane, createLane, MARKER_FILE } from '../../../src/main/lanes'

let tmp: { path: string; cleanup(): void }
const log = memoryLogger()
beforeEach(() => {
  tmp = makeTempDir('ralph-lane-claim-')
})
afterEach(() => tmp.cleanup())

it('moves a spare lane to the task’s base and names the task; refuses a task’s lane and a changed marker', async () => {
  const project = join(tmp.path, 'project')
  const appDataDir = join(tmp.path, 'appdata')
  write(project, 'keep.txt', 'same\n')
  write(project, 'old.txt', 'only in the first\n')
  write(project, 'edit.txt', 'first\n')
  const engine = new SnapshotEngine({ projectDir: project, logger: log })
  await engine.init()
  const first = (await engine.save({ kind: 'manual' })).commit
  write(project, 'edit.txt', 'second\n')
  write(project, 'new.txt', 'only in the second\n')
  rmSync(join(project, 'old.txt'))
  const second = (await engine.save({ kind: 'manual' })).commit
  const made = { appDataDir, projectId: 'p1', projectDir: project, logger: log }

  const spare = await createLane({ ...made, lane: 3, task: null, base: first })
  const keepBefore = readFileSync(join(spare.workDir, 'keep.txt'), 'utf8')
  const claimed = await claimLane(spare, 7, second)
  const at = (f: string) => readFileSync(join(claimed.workDir, f), 'utf8')
  expect([at('keep.txt'), at('edit.txt'), at('new.txt')]).toEqual([
    keepBefore,
    'second\n',
    'only in the second\n',
  ])
  expect(() => at('old.txt')).toThrow(/ENOENT/)
  expect(claimed.marker).toMatchObject({ lane: 3, task: 7, base: second, state: 'ready' })
  const onDisk = JSON.parse(readFileSync(join(claimed.dir, MARKER_FILE), 'utf8')) as {
    task: number
    base: string
  }
  expect([onDisk.task, onDisk.base]).toEqual([7, second])
  // The lane's store follows: its branch is the base, and nothing differs from it.
  expect((await claimed.git.text(['rev-parse', BRANCH_REF])).trim()).toBe(second)
  expect((await claimed.git.text(['status', '--porcelain', '--untracked-files=no'])).trim()).toBe('')

  // A lane made for a task is no spare.
  await expect(claimLane(claimed, 8, first)).rejects.toThrow(/not a spare lane/)
  // A spare whose marker was changed since it was made is refused, and nothing is written in it.
  const other = await createLane({ ...made, lane: 4, task: null, base: first })
  const file = join(other.dir, MARKER_FILE)
  writeFileSync(file, readFileSync(file, 'utf8').replace('"lane": 4', '"lane": 5'))
  await expect(claimLane(other, 9, second)).rejects.toThrow(
    /Spare lane 4 cannot be used: .*names project p1 lane 5/,
  )
  expect(readFileSync(join(other.workDir, 'edit.txt'), 'utf8')).toBe('first\n')
})
