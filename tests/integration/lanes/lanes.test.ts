// Lanes against real git and real files (issue #38): a lane is an exact checkout of a snapshot with a snapshot store
// of its own that borrows the project's objects, made without touching the project or the user's repository; copies
// never follow a link; cleanup removes only what Ralph made and never reaches the project's store; merge-tree tells
// clean merges from conflicts.
import { execFileSync } from 'node:child_process'
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  renameSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { makeTempDir } from '../../helpers/tempDir'
import { SnapshotEngine, ShadowGit, storePaths } from '../../../src/main/snapshots'
import { fingerprint, userGit, write } from '../../../src/main/snapshots/testkit'
import { memoryLogger } from '../../../src/main/workspace/logFile'
import {
  commitLaneResult,
  createLane,
  discardKept,
  fetchLaneSnapshots,
  keepLaneState,
  listKept,
  listLanes,
  MARKER_FILE,
  mergeOnto,
  removeLane,
  resumeStart,
  type Lane,
} from '../../../src/main/lanes'

let tmp: { path: string; cleanup(): void }
let project: string
let appData: string
let fakeHome: string
const log = memoryLogger()
/** A store's mark that its index was checked for tracked credentials (snapshots/stage.ts). */
const CHECKED = 'info/ralph-credentials-checked-v1'

beforeEach(() => {
  tmp = makeTempDir('ralph-lanes-')
  project = join(tmp.path, 'project')
  appData = join(tmp.path, 'appdata')
  fakeHome = join(tmp.path, 'home')
  mkdirSync(project)
  write(fakeHome, '.ssh/id_rsa', 'PRIVATE KEY stand-in\n')
})
afterEach(() => tmp.cleanup())

async function snapshot(task = 1): Promise<string> {
  const engine = new SnapshotEngine({ projectDir: project, logger: log })
  await engine.init()
  return (await engine.save({ kind: 'task-pre', task })).commit
}

const lane = (n: number, base: string, task: number | null = n): Promise<Lane> =>
  createLane({ appDataDir: appData, projectId: 'p1', projectDir: project, lane: n, task, base, logger: log })

const store = (): ShadowGit => new ShadowGit(storePaths(project).gitDir, project)
const storeGit = (...args: string[]): string =>
  execFileSync('git', [`--git-dir=${storePaths(project).gitDir}`, ...args], { encoding: 'utf8' })
const laneGit = (l: Lane, ...args: string[]): string =>
  execFileSync('git', [`--git-dir=${l.storeDir}`, `--work-tree=${l.workDir}`, ...args], { encoding: 'utf8' })
/** Objects a store holds itself (loose and packed), not those it borrows. */
const ownObjects = (gitDir: string): number => {
  const v = execFileSync('git', [`--git-dir=${gitDir}`, 'count-objects', '-v'], { encoding: 'utf8' })
  return Number(/^count: (\d+)/m.exec(v)![1]) + Number(/^in-pack: (\d+)/m.exec(v)![1])
}

/** A lane's result committed in its own store as its task's post snapshot, then fetched into the project's. */
async function bringBack(l: Lane, task: number): Promise<string> {
  const commit = await commitLaneResult(l, `task ${task}`)
  laneGit(l, 'update-ref', `refs/tags/task-${task}-post`, commit)
  const fetched = await fetchLaneSnapshots({ projectDir: project, laneStoreDir: l.storeDir, task })
  expect(fetched).toEqual({ pre: null, post: commit })
  return commit
}

describe('lanes', () => {
  it('checks out an exact copy of a 200-file snapshot, copies the listed files, and touches nothing of the project', async () => {
    for (let i = 0; i < 210; i++) write(project, `src/m${i % 7}/f${i}.ts`, `export const v${i} = ${i}\n`)
    write(project, 'bin/run.sh', '#!/bin/sh\necho hi\n')
    chmodSync(join(project, 'bin/run.sh'), 0o755)
    symlinkSync('src/m0/f0.ts', join(project, 'link-to-f0'))
    write(project, '.gitignore', '.env\nnode_modules/\n*.local\n')
    write(project, '.env', 'API=1\n')
    write(project, 'node_modules/pkg/index.js', 'module.exports = 1\n')
    write(project, 'conf/db.local', 'db\n')
    write(project, '.worktreeinclude', '# gitignore-style\n*.local\n')
    write(project, '.ralph/config.json', JSON.stringify({ lanes: { copy: ['.env'] } }))
    userGit(project, 'init', '-q')
    userGit(project, 'add', 'src')
    userGit(project, 'commit', '-qm', 'user')
    const userHead = userGit(project, 'rev-parse', 'HEAD')
    const userStatus = userGit(project, 'status', '--porcelain')
    const base = await snapshot()
    const storeIndex = statSync(join(storePaths(project).gitDir, 'index')).mtimeMs
    const projectBefore = fingerprint(project)

    const l = await lane(1, 'task-1-pre')
    expect(l.marker.base).toBe(base)
    expect(l.copy.copied).toEqual(['.env', 'conf/db.local'])
    expect(existsSync(join(l.workDir, 'node_modules'))).toBe(false) // ignored and not listed: not copied

    const tracked = storeGit('ls-tree', '-r', '--name-only', '-z', base).split('\0').filter(Boolean)
    expect(tracked.length).toBeGreaterThan(210)
    const want = new Map([...fingerprint(project)].filter(([p]) => tracked.includes(p)))
    const got = fingerprint(l.workDir)
    for (const c of l.copy.copied) {
      expect(got.get(c)).toBe(fingerprint(project).get(c))
      got.delete(c)
    }
    expect(got).toEqual(want)
    expect(readlinkSync(join(l.workDir, 'link-to-f0'))).toBe('src/m0/f0.ts')
    expect(statSync(join(l.workDir, 'bin/run.sh')).mode & 0o111).not.toBe(0)

    // The project, the user's repository and the store's own index are as they were.
    expect(fingerprint(project)).toEqual(projectBefore)
    expect(userGit(project, 'rev-parse', 'HEAD')).toBe(userHead)
    expect(userGit(project, 'status', '--porcelain')).toBe(userStatus)
    expect(statSync(join(storePaths(project).gitDir, 'index')).mtimeMs).toBe(storeIndex)
    expect(l.dir.startsWith(join(appData, 'lanes', 'p1'))).toBe(true)

    // The lane's own store: made like every store, borrowing the project's objects (none copied), at the base, with
    // an index that matches the checkout, so the lane's first snapshot finds nothing to store.
    expect(l.storeDir).toBe(join(l.workDir, '.ralph/snapshots.git'))
    expect(existsSync(join(l.storeDir, 'info/ralph-store'))).toBe(true)
    // The project's store was checked for tracked credentials, so the lane's (a tree of it) is marked checked too.
    expect(existsSync(join(storePaths(project).gitDir, CHECKED))).toBe(true)
    expect(existsSync(join(l.storeDir, CHECKED))).toBe(true)
    expect(readFileSync(join(l.storeDir, 'objects/info/alternates'), 'utf8').trim()).toBe(
      realpathSync(join(storePaths(project).gitDir, 'objects')),
    )
    expect(ownObjects(l.storeDir)).toBe(0)
    expect(laneGit(l, 'rev-parse', 'refs/heads/snapshots').trim()).toBe(base)
    expect(laneGit(l, 'tag')).toBe('')
    laneGit(l, 'diff-files', '--quiet') // exits 1 (and throws) when a file's stat data does not match
    const laneEngine = new SnapshotEngine({ projectDir: l.workDir, logger: log })
    const first = await laneEngine.save({ kind: 'task-pre', task: 7 })
    expect(first).toMatchObject({ added: 0, modified: 0, deleted: 0 })
    expect(laneGit(l, 'rev-parse', `${first.commit}^{tree}`)).toBe(storeGit('rev-parse', `${base}^{tree}`))
    expect(ownObjects(l.storeDir)).toBe(1) // the snapshot's commit alone
    expect(storeGit('tag')).not.toMatch(/task-7/)

    const [listed] = await listLanes(appData, 'p1')
    expect(listed).toMatchObject({ lane: 1, state: 'ready', task: 1, base })
    expect(listed!.files).toBeGreaterThan(210)
    expect(listed!.bytes).toBeGreaterThan(210 * 20)
    expect(listed!.diskBytes).toBeGreaterThanOrEqual(listed!.bytes)

    await expect(lane(1, base)).rejects.toThrow(/already exists/)
    await expect(lane(2, 'task-9-pre')).rejects.toThrow(/not in this project's snapshot store/)
    // A full name is read in-process (the build's way): only a commit the store holds makes a lane.
    const tree = storeGit('rev-parse', `${base}^{tree}`).trim()
    for (const notACommit of ['f'.repeat(40), tree])
      await expect(lane(2, notACommit)).rejects.toThrow(/not in this project's snapshot store/)
    expect(existsSync(join(appData, 'lanes', 'p1', 'lane-2'))).toBe(false)

    // A project store not checked yet: the lane's is not marked, and its first snapshot checks it.
    unlinkSync(join(storePaths(project).gitDir, CHECKED))
    const unchecked = await lane(3, base)
    expect(existsSync(join(unchecked.storeDir, CHECKED))).toBe(false)
    await new SnapshotEngine({ projectDir: unchecked.workDir, logger: log }).save({
      kind: 'task-pre',
      task: 8,
    })
    expect(existsSync(join(unchecked.storeDir, CHECKED))).toBe(true)
  })

  it('never copies through a symbolic link: a planted .env link and a linked folder are skipped', async () => {
    write(project, 'a.txt', 'a\n')
    symlinkSync(join(fakeHome, '.ssh/id_rsa'), join(project, '.env'))
    symlinkSync(join(fakeHome, '.ssh'), join(project, 'keys'))
    write(
      project,
      '.ralph/config.json',
      JSON.stringify({ lanes: { copy: ['.env', 'keys/*', 'id_rsa', 'HEAD', 'snapshots.git'] } }),
    )
    write(project, '.gitignore', '.env\nkeys\n')
    const base = await snapshot()
    const l = await lane(1, base)
    expect(l.copy.copied).toEqual([])
    expect(l.copy.skipped.map((s) => s.path)).toContain('.env')
    expect(l.copy.skipped.find((s) => s.path === '.env')!.why).toMatch(/symbolic link/)
    expect(existsSync(join(l.workDir, '.env'))).toBe(false)
    expect(existsSync(join(l.workDir, 'keys'))).toBe(false)
    expect(existsSync(join(l.workDir, 'id_rsa'))).toBe(false)
    // The lane's store is its own, not a copy of the project's: none of the project's tags or objects.
    expect(laneGit(l, 'tag')).toBe('')
    expect(ownObjects(l.storeDir)).toBe(0)
    expect(readFileSync(join(fakeHome, '.ssh/id_rsa'), 'utf8')).toBe('PRIVATE KEY stand-in\n')
  })

  it('cleans only what Ralph made: a lane turned symlink loses the link only, a tampered marker is refused', async () => {
    write(project, 'a.txt', 'a\n')
    const base = await snapshot()
    const tagsBefore = storeGit('tag')
    const objectsBefore = ownObjects(storePaths(project).gitDir)
    const l1 = await lane(1, base)
    const l2 = await lane(2, base)
    const l3 = await lane(3, base)

    // Lane 1 replaced by a link to the user's home.
    renameSync(l1.dir, join(tmp.path, 'moved-lane-1'))
    symlinkSync(fakeHome, l1.dir)
    // Lane 2's marker edited to name another project.
    const m2 = join(l2.dir, MARKER_FILE)
    writeFileSync(m2, readFileSync(m2, 'utf8').replace('"projectId": "p1"', '"projectId": "p9"'))
    // Lane 3 moved away, and a folder with lane 3's marker copied in takes its place.
    renameSync(l3.dir, join(tmp.path, 'moved-lane-3'))
    mkdirSync(l3.dir)
    writeFileSync(join(l3.dir, MARKER_FILE), readFileSync(join(tmp.path, 'moved-lane-3', MARKER_FILE)))
    write(l3.dir, 'user-data.txt', 'mine\n')

    const states = (await listLanes(appData, 'p1')).map((x) => [x.lane, x.state])
    expect(states).toEqual([
      [1, 'symlink'],
      [2, 'not-ralphs'],
      [3, 'not-ralphs'],
    ])

    const r1 = await removeLane(appData, 'p1', 1)
    expect(r1).toMatchObject({ removed: 'link-only' })
    expect(r1.removed === 'link-only' && r1.message).toMatch(/target is untouched/)
    expect(existsSync(l1.dir)).toBe(false)
    expect(readFileSync(join(fakeHome, '.ssh/id_rsa'), 'utf8')).toBe('PRIVATE KEY stand-in\n')

    await expect(removeLane(appData, 'p1', 2)).rejects.toThrow(/names project p9 lane 2/)
    expect(existsSync(join(l2.workDir, 'a.txt'))).toBe(true)
    await expect(removeLane(appData, 'p1', 3)).rejects.toThrow(/made for another folder/)
    expect(readFileSync(join(l3.dir, 'user-data.txt'), 'utf8')).toBe('mine\n')

    // A real lane holding a link to the home: removed, and the link's target is untouched.
    const l4 = await lane(4, base)
    symlinkSync(fakeHome, join(l4.workDir, 'home-link'))
    const r4 = await removeLane(appData, 'p1', 4)
    expect(r4).toMatchObject({ removed: 'lane' })
    expect(r4.removed === 'lane' && r4.freedBytes).toBeGreaterThan(0)
    expect(lstatSync(fakeHome).isDirectory()).toBe(true)
    expect(readFileSync(join(fakeHome, '.ssh/id_rsa'), 'utf8')).toBe('PRIVATE KEY stand-in\n')
    expect(await removeLane(appData, 'p1', 4)).toMatchObject({ removed: 'nothing' })

    // An empty lane folder (a removal killed after its marker went): listed as incomplete, and removed.
    const l6 = await lane(6, base)
    await removeLane(appData, 'p1', 6)
    mkdirSync(l6.dir)
    expect((await listLanes(appData, 'p1')).find((x) => x.lane === 6)?.state).toBe('incomplete')
    expect(await removeLane(appData, 'p1', 6)).toMatchObject({ removed: 'lane' })
    expect(existsSync(l6.dir)).toBe(false)

    // A lane whose creation was killed after its marker: listed as incomplete, and removable.
    const l5 = await lane(5, base)
    const m5 = join(l5.dir, MARKER_FILE)
    writeFileSync(m5, readFileSync(m5, 'utf8').replace('"state": "ready"', '"state": "creating"'))
    expect((await listLanes(appData, 'p1')).find((x) => x.lane === 5)).toMatchObject({ state: 'incomplete' })
    expect(await removeLane(appData, 'p1', 5)).toMatchObject({ removed: 'lane' })

    // Removing lanes never reaches the project's store through their alternates.
    expect(storeGit('tag')).toBe(tagsBefore)
    expect(ownObjects(storePaths(project).gitDir)).toBe(objectsBefore)
    storeGit('fsck', '--strict', '--no-dangling')
  })

  it('refuses the other tamperings: a linked or broken marker, a file as a lane, a linked lanes folder', async () => {
    write(project, 'a.txt', 'a\n')
    const base = await snapshot()
    // Lane 1's marker replaced by a link to a marker Ralph wrote (lane 2's, moved out): never read through the link.
    const l1 = await lane(1, base)
    const l2 = await lane(2, base)
    const outside = join(tmp.path, 'marker-copy.json')
    renameSync(join(l2.dir, MARKER_FILE), outside)
    writeFileSync(outside, readFileSync(outside, 'utf8').replace('"lane": 2', '"lane": 1'))
    unlinkSync(join(l1.dir, MARKER_FILE))
    symlinkSync(outside, join(l1.dir, MARKER_FILE))
    // Lane 2 now has no marker at all; lane 3's is not JSON; lane 4 is a file, not a folder.
    const l3 = await lane(3, base)
    writeFileSync(join(l3.dir, MARKER_FILE), '{ "ralph": "lane", ')
    writeFileSync(join(appData, 'lanes', 'p1', 'lane-4'), 'a file of the user\n')
    // Lane 5's working copy replaced by a link to the user's home: removing the lane removes the link only.
    const l5 = await lane(5, base)
    renameSync(l5.workDir, join(tmp.path, 'moved-work-5'))
    symlinkSync(fakeHome, l5.workDir)

    expect((await listLanes(appData, 'p1')).map((x) => [x.lane, x.state, x.reason])).toEqual([
      [1, 'not-ralphs', `its ${MARKER_FILE} is not a regular file`],
      [2, 'not-ralphs', `it has no ${MARKER_FILE}: Ralph did not make it`],
      [3, 'not-ralphs', `its ${MARKER_FILE} is not valid JSON (it was changed outside Ralph)`],
      [4, 'not-ralphs', 'not a folder'],
      [5, 'ready', undefined],
    ])
    await expect(removeLane(appData, 'p1', 1)).rejects.toThrow(/not a regular file/)
    await expect(removeLane(appData, 'p1', 2)).rejects.toThrow(/Ralph did not make it/)
    await expect(removeLane(appData, 'p1', 3)).rejects.toThrow(/not valid JSON/)
    await expect(removeLane(appData, 'p1', 4)).rejects.toThrow(/is not a folder Ralph made \(a file\)/)
    for (const l of [l1, l2, l3]) expect(existsSync(join(l.workDir, 'a.txt'))).toBe(true)
    expect(readFileSync(outside, 'utf8')).toContain('"lane": 1')
    expect(readFileSync(join(appData, 'lanes', 'p1', 'lane-4'), 'utf8')).toBe('a file of the user\n')
    expect(await removeLane(appData, 'p1', 5)).toMatchObject({ removed: 'lane' })
    expect(readFileSync(join(fakeHome, '.ssh/id_rsa'), 'utf8')).toBe('PRIVATE KEY stand-in\n')

    // The project's lanes folder replaced by a link to a folder elsewhere holding a real lane: nothing in it is
    // removed, whatever its marker says.
    const elsewhere = join(tmp.path, 'elsewhere')
    renameSync(join(appData, 'lanes', 'p1'), elsewhere)
    symlinkSync(elsewhere, join(appData, 'lanes', 'p1'))
    await expect(removeLane(appData, 'p1', 3)).rejects.toThrow(/is not a plain folder under/)
    expect(existsSync(join(elsewhere, 'lane-3', 'work', 'a.txt'))).toBe(true)
  })

  it('keeps a stopped lane’s work on its base; resumes it as is, merged onto a new base, or not on a conflict', async () => {
    write(project, 'a.txt', 'a\n')
    write(project, 'b.txt', 'b\n')
    const base = await snapshot(1)
    const l1 = await lane(1, base, 7)
    write(l1.workDir, 'a.txt', 'A from the lane\n')
    write(l1.workDir, 'new.txt', 'begun\n')
    const kept = await keepLaneState({ lane: l1, projectDir: project, task: 7, taskId: 't-one', base })
    expect(kept).toMatchObject({ ref: 'refs/lanes/7/stopped', task: 7, taskId: 't-one', lane: 1, base })
    expect(storeGit('rev-parse', `${kept.ref}^`).trim()).toBe(base)
    expect(storeGit('show', `${kept.ref}:a.txt`)).toBe('A from the lane\n')
    expect(storeGit('show', `${kept.ref}:new.txt`)).toBe('begun\n')
    expect(await listKept(project)).toEqual([kept])
    await removeLane(appData, 'p1', 1)
    expect(await listKept(project)).toEqual([kept]) // the lane is gone, its work is not

    // Same base: the next lane starts from the kept work itself.
    expect(await resumeStart(project, kept, base)).toEqual({
      kind: 'resume',
      commit: kept.commit,
      merged: false,
      notes: [],
    })
    // Another task merged since (b.txt): the kept work merged onto it.
    write(project, 'b.txt', 'B from another task\n')
    const moved = await resumeStart(project, kept, await snapshot(2))
    expect(moved).toMatchObject({ kind: 'resume', merged: true })
    const at = moved.kind === 'resume' ? moved.commit : ''
    expect(storeGit('show', `${at}:a.txt`)).toBe('A from the lane\n')
    expect(storeGit('show', `${at}:b.txt`)).toBe('B from another task\n')
    expect(storeGit('show', `${at}:new.txt`)).toBe('begun\n')
    // One that changed the same lines: the kept work cannot be carried over, and says where.
    write(project, 'a.txt', 'a changed by another task\n')
    const clash = await resumeStart(project, kept, await snapshot(3))
    expect(clash).toMatchObject({ kind: 'discard' })
    expect(clash.kind === 'discard' && clash.reason).toMatch(
      /task 7\) conflicts .* in a\.txt: it starts afresh/,
    )

    await discardKept(project, kept)
    expect(await listKept(project)).toEqual([])
    expect(storeGit('for-each-ref', 'refs/lanes/')).not.toMatch(/stopped/)
  })

  it('merges lane results with merge-tree: disjoint edits merge clean, the same lines conflict', async () => {
    const lines = (n: string) => Array.from({ length: 20 }, (_, i) => `${n} line ${i}`).join('\n') + '\n'
    write(project, 'a.txt', lines('a'))
    write(project, 'b.txt', lines('b'))
    write(project, '.gitignore', '.env\n')
    write(project, '.env', 'SECRET=1\n')
    write(project, '.ralph/config.json', JSON.stringify({ lanes: { copy: ['.env'] } }))
    const base = await snapshot()
    const [l1, l2, l3] = [await lane(1, base), await lane(2, base), await lane(3, base)]
    write(l1.workDir, 'a.txt', lines('a').replace('a line 3', 'A FROM LANE 1'))
    write(l2.workDir, 'a.txt', lines('a').replace('a line 3', 'A FROM LANE 2'))
    write(l3.workDir, 'b.txt', lines('b').replace('b line 9', 'B FROM LANE 3'))
    write(l3.workDir, 'new/c.txt', 'new file\n')
    const [c1, c2] = [await bringBack(l1, 1), await bringBack(l2, 2)]
    // Only what the project's store lacks moves: lane 3's commit, its two trees and two blobs.
    const objectsBefore = ownObjects(storePaths(project).gitDir)
    const c3 = await bringBack(l3, 3)
    expect(ownObjects(storePaths(project).gitDir) - objectsBefore).toBe(5)
    expect(storeGit('rev-parse', 'refs/lanes/3/post').trim()).toBe(c3)
    expect(storeGit('tag')).not.toMatch(/task-3-post/) // not in the project's timeline
    expect(storeGit('rev-parse', `${c3}^`).trim()).toBe(base)
    expect(storeGit('ls-tree', '-r', '--name-only', c3)).not.toMatch(/\.env/) // the copied file is the user's
    // A lane whose own objects are packed: the pack comes with its index, and the project's store stays whole.
    const l5 = await lane(5, base)
    write(l5.workDir, 'packed.txt', 'from a pack\n')
    const c5 = await commitLaneResult(l5, 'task 5')
    laneGit(l5, 'repack', '-a', '-d', '-l', '-q')
    expect(readdirSync(join(l5.storeDir, 'objects/pack')).filter((f) => f.endsWith('.idx'))).toHaveLength(1)
    laneGit(l5, 'update-ref', 'refs/tags/task-5-post', c5)
    expect(await fetchLaneSnapshots({ projectDir: project, laneStoreDir: l5.storeDir, task: 5 })).toEqual({
      pre: null,
      post: c5,
    })
    expect(storeGit('show', `refs/lanes/5/post:packed.txt`)).toBe('from a pack\n')
    storeGit('fsck', '--strict', '--no-dangling')

    const l4 = await lane(4, base)
    unlinkSync(join(l4.workDir, 'a.txt'))
    const c4 = await bringBack(l4, 4)
    expect(await mergeOnto(store(), c1, c4)).toEqual({
      kind: 'conflict',
      conflicts: [{ path: 'a.txt', kinds: ['CONFLICT (modify/delete)'] }],
    })

    const conflict = await mergeOnto(store(), c1, c2)
    expect(conflict).toEqual({
      kind: 'conflict',
      conflicts: [{ path: 'a.txt', kinds: ['CONFLICT (contents)'] }],
    })

    const clean = await mergeOnto(store(), c1, c3)
    expect(clean.kind).toBe('clean')
    const tree = clean.kind === 'clean' ? clean.tree : ''
    expect(storeGit('cat-file', 'blob', `${tree}:a.txt`)).toContain('A FROM LANE 1')
    expect(storeGit('cat-file', 'blob', `${tree}:b.txt`)).toContain('B FROM LANE 3')
    expect(storeGit('cat-file', 'blob', `${tree}:new/c.txt`)).toBe('new file\n')
  })
})
