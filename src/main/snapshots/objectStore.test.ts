import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { memoryLogger } from '../workspace/logFile'
import { SnapshotEngine } from './engine'
import { DEFAULT_SIZE_CAP } from './exclusions'
import { ShadowGit } from './git'
import { ObjectStore } from './objectStore'
import { refsAllNameCommits } from './refCheck'
import { stageWorkingTree } from './stage'
import { removeDir, tempProject, write } from './testkit'
import { inProcessWriter } from './writerPaths'

// A store that borrows another's objects through objects/info/alternates, as a lane's store borrows its project's
// (lanes/laneCopy.ts): what git reads there, the in-process readers read too; what is written stays its own.
let project: string
let lane: string
let projectGit: string
let laneGit: string
beforeEach(() => {
  project = tempProject('ralph-objects-project-')
  lane = tempProject('ralph-objects-lane-')
  projectGit = join(project, '.ralph/snapshots.git')
  laneGit = join(lane, '.ralph/snapshots.git')
})
afterEach(() => {
  removeDir(project)
  removeDir(lane)
})

const git = (gitDir: string, work: string, ...args: string[]): string =>
  execFileSync('git', [`--git-dir=${gitDir}`, `--work-tree=${work}`, ...args], {
    cwd: work,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: work, GIT_CONFIG_NOSYSTEM: '1' },
  }).trim()

/** The project's first snapshot, and the lane's store made by the engine and pointed at the project's objects. */
async function borrowingStore(): Promise<string> {
  write(project, 'src/a.txt', 'a\n')
  write(project, 'src/b.txt', 'b\n')
  const { commit } = await new SnapshotEngine({ projectDir: project, logger: memoryLogger() }).save({
    kind: 'manual',
  })
  await new SnapshotEngine({ projectDir: lane, logger: memoryLogger() }).init()
  mkdirSync(join(laneGit, 'objects/info'), { recursive: true })
  writeFileSync(join(laneGit, 'objects/info/alternates'), `# the project's\n${join(projectGit, 'objects')}\n`)
  git(laneGit, lane, 'update-ref', 'refs/heads/snapshots', commit)
  return commit
}

describe('a store that borrows objects (objects/info/alternates)', () => {
  it('reads the borrowed objects, loose or packed, and writes what it stores into its own objects only', async () => {
    const commit = await borrowingStore()
    const tree = git(projectGit, project, 'rev-parse', `${commit}^{tree}`)
    const blob = git(projectGit, project, 'rev-parse', `${commit}:src/a.txt`)
    const store = new ObjectStore(laneGit)
    expect(store.has(blob) && store.holds(commit) && store.holds(tree)).toBe(true)
    expect(store.typeOf(commit)).toBe('commit')
    expect(store.typeOf(tree)).toBe('tree')
    // Packed in the project's store: still found, and typed from the pack.
    git(projectGit, project, 'repack', '-a', '-d', '-q')
    git(projectGit, project, 'prune-packed')
    const fresh = new ObjectStore(laneGit)
    expect(fresh.holds(commit) && fresh.has(blob)).toBe(true)
    expect(fresh.typeOf(commit)).toBe('commit')
    expect(fresh.has('deadbeefdeadbeefdeadbeefdeadbeefdeadbeef')).toBe(false)
    // A write decides by the store's own objects, as before: the borrowed blob is stored in the lane's store too.
    expect(fresh.write('blob', Buffer.from('a\n'))).toBe(blob)
    expect(existsSync(join(laneGit, 'objects', blob.slice(0, 2), blob.slice(2)))).toBe(true)
    expect(existsSync(join(projectGit, 'objects', blob.slice(0, 2), blob.slice(2)))).toBe(false)
  })

  it('vouches for refs naming borrowed commits without git, and for nothing once the borrowing is gone', async () => {
    const commit = await borrowingStore()
    expect(new ObjectStore(laneGit).readLoose(commit)?.type).toBe('commit')
    expect(refsAllNameCommits(laneGit)).toBe(true)
    writeFileSync(join(laneGit, 'objects/info/alternates'), '')
    // Not vouched for: git's own check (repair.ts) decides, which finds the commit missing.
    expect(refsAllNameCommits(laneGit)).toBe(false)
    expect(new ObjectStore(laneGit).readLoose(commit)).toBeNull()
  })

  it.skipIf(process.platform === 'win32' || !inProcessWriter.stage)(
    "stages a checkout of the borrowed snapshot in-process: the trees it rewrites name the project's blobs",
    async () => {
      const commit = await borrowingStore()
      git(laneGit, lane, 'read-tree', '--reset', '-u', commit)
      write(lane, 'src/a.txt', 'changed\n')
      const result = await stageWorkingTree(new ShadowGit(laneGit, lane), lane, DEFAULT_SIZE_CAP, {
        log: memoryLogger(),
      })
      expect(result.staged, 'staged in-process').toBeDefined()
      // The tree is git's: src/ names b.txt's blob, which only the project's store holds.
      expect(git(laneGit, lane, 'write-tree')).toBe(result.staged!.tree)
      expect(git(laneGit, lane, 'ls-tree', '-r', '--name-only', result.staged!.tree)).toMatch(/src\/b\.txt/)
    },
  )
})
