// Creating a lane: a small project of its own (issue #38). Its working copy is checked out from one snapshot commit
// with the lane's own snapshot store: `work/.ralph/snapshots.git`, made as the SnapshotEngine makes every store, whose
// objects borrow the project's store through `objects/info/alternates` (nothing is copied, and nothing the lane does
// can prune the project's objects). The checkout writes the lane store's own index, so the lane's first snapshot
// finds every file stat-fresh. The user's `.git`, the project's store (its index, HEAD, refs) and the project's files
// are never written.
import { lstat, mkdir, realpath, rename, rm, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { AppError } from '../../shared/errors'
import {
  BRANCH_REF,
  inheritCredentialsCheck,
  ObjectStore,
  ShadowGit,
  SnapshotEngine,
  storeLooksComplete,
  storePaths,
} from '../snapshots'
import { noteFailure, type Logger } from '../workspace'
import { readLanesConfig } from './config'
import { copyListed, readWorktreeInclude, type CopyReport } from './copyListed'
import { LANE_WORK, laneDir, lanesRoot, projectLanesDir, writeMarker, type LaneMarker } from './laneFolder'

export interface CreateLaneOptions {
  appDataDir: string
  projectId: string
  projectDir: string
  lane: number
  task: number | null
  /** A snapshot tag or commit of the project's store. */
  base: string
  logger: Logger
  gitBinary?: string
  now?: () => number
}

export interface Lane {
  dir: string
  /** The lane's project folder: its files and its own `.ralph/` (the loop runs here with projectDir = workDir). */
  workDir: string
  /** The lane's own snapshot store (`workDir/.ralph/snapshots.git`), borrowing the project's objects. */
  storeDir: string
  /** The lane store's index: the checkout's stat data. */
  indexFile: string
  marker: LaneMarker
  copy: CopyReport
  /** The git of the lane: its own store, work tree and index (every call). */
  git: LaneGit
}

/** A ShadowGit whose every call uses the lane's own index. */
export class LaneGit {
  readonly shadow: ShadowGit
  constructor(
    gitDir: string,
    workDir: string,
    readonly indexFile: string,
    gitBinary?: string,
  ) {
    this.shadow = new ShadowGit(gitDir, workDir, undefined, gitBinary)
  }
  private env = (extra?: Record<string, string>) => ({ ...extra, GIT_INDEX_FILE: this.indexFile })
  text(args: string[], opts: Parameters<ShadowGit['text']>[1] = {}): Promise<string> {
    return this.shadow.text(args, { ...opts, env: this.env(opts.env) })
  }
  run(args: string[], opts: Parameters<ShadowGit['run']>[1] = {}): ReturnType<ShadowGit['run']> {
    return this.shadow.run(args, { ...opts, env: this.env(opts.env) })
  }
}

export async function createLane(opts: CreateLaneOptions): Promise<Lane> {
  const { gitDir } = storePaths(opts.projectDir)
  if (!storeLooksComplete(gitDir))
    throw new AppError('not-found', `${opts.projectDir} has no snapshot store yet: take a snapshot first.`)
  const config = await readLanesConfig(opts.projectDir)
  const projectGit = new ShadowGit(gitDir, opts.projectDir, undefined, opts.gitBinary)
  const base = await resolveCommit(projectGit, opts.base)
  const dir = laneDir(opts.appDataDir, opts.projectId, opts.lane)
  await makeLanesParent(opts.appDataDir, opts.projectId)
  try {
    await mkdir(dir, { mode: 0o700 })
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
    throw new AppError(
      'busy',
      `Lane ${opts.lane} of this project already exists (${dir}). Remove it first (ralph lanes clean).`,
    )
  }
  const workDir = join(dir, LANE_WORK)
  const storeDir = storePaths(workDir).gitDir
  const indexFile = join(storeDir, 'index')
  const git = new LaneGit(storeDir, workDir, indexFile, opts.gitBinary)
  const here = await lstat(dir)
  const marker: LaneMarker = {
    ralph: 'lane',
    version: 1,
    projectId: opts.projectId,
    lane: opts.lane,
    task: opts.task,
    base,
    createdAt: (opts.now ?? Date.now)(),
    state: 'creating',
    folder: { dev: here.dev, ino: here.ino },
    copied: [],
  }
  // The marker comes first: a lane killed half-made is still recognisably Ralph's and can be cleaned.
  await writeMarker(dir, marker)
  try {
    await mkdir(workDir, { mode: 0o700 })
    await makeLaneStore(workDir, gitDir, base, opts.logger, opts.gitBinary)
    await git.run(['read-tree', '--reset', '-u', base])
    const include = (await readWorktreeInclude(opts.projectDir)) ?? []
    const copy = await copyListed({
      git: projectGit,
      indexFile,
      patternFile: join(dir, 'copy-patterns'),
      projectDir: opts.projectDir,
      workDir,
      patterns: [...config.copy, ...include],
    })
    for (const s of copy.skipped) noteFailure(opts.logger, `Lane ${opts.lane}: did not copy ${s.path}`, s.why)
    const ready: LaneMarker = { ...marker, state: 'ready', copied: copy.copied }
    await writeMarker(dir, ready)
    return { dir, workDir, storeDir, indexFile, marker: ready, copy, git }
  } catch (err) {
    // Nothing half-made stays behind (the folder is ours: we just made it, and rm never follows a link in it).
    await rm(dir, { recursive: true, force: true }).catch((e: unknown) =>
      noteFailure(opts.logger, `Could not remove the half-made lane ${dir}`, e),
    )
    throw err
  }
}

/**
 * The lane's store, created by the SnapshotEngine's own init (the same settings, exclusions and marker as every
 * store), then pointed at the project's objects and positioned at the base (so the lane's first snapshot counts
 * its changes, and reads its file modes, against the base).
 */
async function makeLaneStore(
  workDir: string,
  projectGitDir: string,
  base: string,
  logger: Logger,
  gitBinary?: string,
): Promise<void> {
  await new SnapshotEngine({ projectDir: workDir, logger, ...(gitBinary ? { gitBinary } : {}) }).init()
  const storeDir = storePaths(workDir).gitDir
  const info = join(storeDir, 'objects', 'info')
  await mkdir(info, { recursive: true })
  await writeFile(join(info, 'alternates'), `${await realpath(join(projectGitDir, 'objects'))}\n`)
  // Its index is a tree of the project's store, checked for tracked credentials as that store was.
  inheritCredentialsCheck(projectGitDir, storeDir)
  // The branch's loose ref, written as update-ref writes it (a temporary file renamed into place; the store keeps
  // no reflog): `base` is a commit this store now reads through its alternates (resolveCommit checked it).
  const ref = join(storeDir, ...BRANCH_REF.split('/'))
  await mkdir(dirname(ref), { recursive: true })
  await writeFile(`${ref}.lock`, `${base}\n`, { flag: 'wx' })
  await rename(`${ref}.lock`, ref)
}

/** Creates `<app data>/lanes/<project>/` (private), refusing one that is a symbolic link. */
async function makeLanesParent(appDataDir: string, projectId: string): Promise<void> {
  const root = lanesRoot(appDataDir)
  const parent = projectLanesDir(appDataDir, projectId)
  await mkdir(parent, { recursive: true, mode: 0o700 })
  for (const p of [root, parent]) {
    const st = await lstat(p)
    if (!st.isDirectory())
      throw new AppError('io', `${p} is not a plain folder (a symbolic link?): lanes are not created there.`)
  }
}

async function resolveCommit(git: ShadowGit, ref: string): Promise<string> {
  if (ref.startsWith('-') || ref.trim() === '')
    throw new AppError('invalid-input', `"${ref}" is not a snapshot tag or commit.`)
  // A commit named in full (what the build passes) is read in-process; anything else (a tag, a packed delta) git
  // resolves, as for every ref before.
  if (SHA.test(ref) && storedCommit(git.gitDir, ref)) return ref
  const res = await git.run(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { okCodes: [0, 1, 128] })
  const sha = res.stdout.toString('utf8').trim()
  if (res.code !== 0 || !/^[0-9a-f]{40}$/.test(sha))
    throw new AppError('not-found', `The snapshot "${ref}" is not in this project's snapshot store.`)
  return sha
}

const SHA = /^[0-9a-f]{40}$/

/** Whether the store certainly holds `sha` as a commit; false when not, or not readable here: git decides then. */
function storedCommit(gitDir: string, sha: string): boolean {
  try {
    return new ObjectStore(gitDir).typeOf(sha) === 'commit'
  } catch (err) {
    // A store this process does not read (UnsupportedStore, an unreadable pack index): rev-parse answers, and
    // reports what is wrong with it.
    if (err instanceof Error) return false
    throw err
  }
}
