import { existsSync, lstatSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { ShadowGit } from './git'
import { CredentialDetector, NestedRepoDetector, isAlwaysExcluded, listRalphFiles } from './exclusions'
import { writeFreshIndex } from './indexFile'
import { peekIndex } from './indexPeek'
import { readIndex } from './indexRead'
import { indexEntryCount } from './store'
import { prepack, type Prepacked } from './prepack'
import { stageInProcess, type InProcessStaged } from './stageInProcess'
import { LOOSE_LIMIT } from './objectStore'
import type { SkippedFile } from './types'
import { throwIfCancelled, type StageHooks } from './stageHooks'
import { isAppError } from '../../shared/errors'
import { attempt, fallbackTo, isMissing, type Logger } from '../workspace'
import { inProcessWriter } from './writerPaths'
import { traceFallback } from './traceGit'

export interface StageResult {
  skipped: SkippedFile[]
  nestedRepos: string[]
  /** Permission bits of the regular files staged by this pass (see modes.ts); unusual ones only after a bulk first pass. */
  modes: Map<string, number>
  /** Set when the pass staged in-process: the index's tree is written already (see stageInProcess.ts). */
  staged?: InProcessStaged
  /**
   * Set when the pass found nothing to stage and left the index as git status wrote it: the tree its cache-tree
   * names (what write-tree would print), or null when that is not valid.
   */
  unchanged?: { tree: string | null }
}

/**
 * Whether to stage in-process rather than through update-index + write-tree: on a small index, and for a pass of
 * many files on any index. Measured inside one long-running process (scripts/bench-snapshot-paths.ts, issue #25):
 * on 1,000 files a save of 100 changes took 2-4× less time in-process; on 10,000 files the same save was about
 * even (0.9-1.6×), while an undo, which restages a few files, took longer (0.7×): reading the whole index is
 * faster in git's C. A pass of many files still goes in-process on a large index, as git would write each blob
 * and tree as a loose file (~200 files created and renamed for 100 changes) where this path writes one pack.
 */
async function inProcessPays(git: ShadowGit, toAdd: number): Promise<boolean> {
  if (!inProcessWriter.stage || process.platform === 'win32') return false
  return toAdd >= PACKED_PASS || (await indexEntryCount(git.indexDir)) <= SMALL_INDEX
}

const SMALL_INDEX = 2000
/** A pass of this many files (mostly new or changed) stores about as many blobs: in-process, one pack. */
const PACKED_PASS = LOOSE_LIMIT

/**
 * Brings the shadow index up to the working tree. `git status` finds untracked, modified and deleted paths:
 * the stat cache in the kept index means unchanged files are neither read nor hashed, and the untracked cache
 * means unchanged folders are not listed again. The size cap and nested repos are filtered here, before
 * anything is hashed, so a huge file never reaches the store.
 */
export async function stageWorkingTree(
  git: ShadowGit,
  projectDir: string,
  sizeCap: number,
  hooks: StageHooks,
): Promise<StageResult> {
  // Git's stat emulation on Windows differs from Node's (inode numbers), so there git always builds the index.
  // The bulk path writes into the store itself: never through a read-only overlay.
  if (
    inProcessWriter.firstSave &&
    process.platform !== 'win32' &&
    git.overlay === null &&
    (await indexEntryCount(git.indexDir)) === 0
  ) {
    const first = await stageFirst(git, projectDir, sizeCap, hooks)
    if (first !== null) return first
  }
  throwIfCancelled(hooks)
  if (git.overlay === null) await dropTrackedCredentials(git, projectDir)
  return stagePass(git, projectDir, sizeCap)
}

/** Named after the rules it checked with: a store checked under older rules is checked once more. */
const CREDENTIALS_CHECKED = 'ralph-credentials-checked-v1'

/**
 * Snapshots taken before credential stores were left out may still track some, and status never lists an
 * unchanged tracked file again. Once per store they leave the index, so the next snapshot lists them as skipped.
 */
async function dropTrackedCredentials(git: ShadowGit, projectDir: string): Promise<void> {
  const marker = credentialsMarker(git.gitDir)
  if (existsSync(marker)) return
  const credentials = new CredentialDetector(projectDir)
  const tracked = (await trackedPaths(git)).filter((p) => credentials.skipOf(p) !== null)
  if (tracked.length > 0) {
    await git.run(['update-index', '-z', '--force-remove', '--stdin'], { input: tracked.join('\0') })
  }
  mkdirSync(dirname(marker), { recursive: true })
  writeFileSync(marker, '')
}

function credentialsMarker(gitDir: string): string {
  return join(gitDir, 'info', CREDENTIALS_CHECKED)
}

/**
 * A store whose index was checked out from a tree of a checked store (a lane's, from the project's) holds no tracked
 * credential either: it is marked checked, which spares its first snapshot a look at every folder (one lstat each,
 * taken at the moment every lane starts). An unchecked source leaves it to be checked as usual.
 */
export function inheritCredentialsCheck(fromGitDir: string, toGitDir: string): void {
  if (!existsSync(credentialsMarker(fromGitDir))) return
  const marker = credentialsMarker(toGitDir)
  mkdirSync(dirname(marker), { recursive: true })
  writeFileSync(marker, '')
}

/**
 * Every path the index tracks, as `ls-files -z` names them: read from the index itself when this process reads it
 * (a fresh store — a lane's, whose index is its checkout — is checked once, and git costs more than the reading),
 * else from git.
 */
async function trackedPaths(git: ShadowGit): Promise<string[]> {
  const index = readIndex(git.indexDir)
  if (index === null) return git.fields(['ls-files', '-z'])
  return index.names.map((name) => name.toString('utf8'))
}

/**
 * A first snapshot of many files: nothing is tracked yet, so every file is read once, stored by fast-import and
 * named here, and the index (trees included) is written directly. A normal pass then stages whatever changed
 * meanwhile (and whatever could not be read), reports skipped files and builds git's caches, while fast-import
 * finishes compressing. Null when there are too few files to gain anything: the normal pass does everything.
 */
async function stageFirst(
  git: ShadowGit,
  projectDir: string,
  sizeCap: number,
  hooks: StageHooks,
): Promise<StageResult | null> {
  hooks.onProgress?.({ phase: 'listing', done: 0, total: null })
  const detector = new NestedRepoDetector(projectDir)
  const credentials = new CredentialDetector(projectDir)
  const candidates = new Set<string>()
  // On an empty index every file is untracked: list them all in one scan (status would stop at `src/`).
  for (const path of await git.fields(['ls-files', '-z', '-o', '--exclude-standard'])) {
    // `dir/` is a nested repository; the normal pass reports it, and the credentials it skips.
    if (path.endsWith('/') || isAlwaysExcluded(path) || detector.containing(path) !== null) continue
    if (credentials.skipOf(path) !== null) continue
    candidates.add(path)
  }
  for (const file of listRalphFiles(projectDir)) candidates.add(file)
  if (candidates.size < BULK_THRESHOLD) return null
  throwIfCancelled(hooks)

  // From here on a failure never packs the files a second time: update-index finds what fast-import stored.
  const packed = await prepack(git, projectDir, [...candidates], sizeCap, hooks).catch((err: unknown) => {
    if (isAppError(err, 'cancelled')) throw err
    return null
  })
  hooks.onProgress?.({ phase: 'saving', done: candidates.size, total: candidates.size })
  if (packed === null) return stagePass(git, projectDir, sizeCap, false)
  const writtenAt = Math.floor(Date.now() / 1000)
  const log = hooks.log
  if (packed.trees === null || packed.entries.length === 0 || !writeIndexOrNot(git, packed, log)) {
    // Git stores every file itself now; only fast-import must be done with the store first.
    await packed.done.catch(
      fallbackTo(log, 'Packing a first snapshot up front failed; git stores the files', undefined),
    )
    return stagePass(git, projectDir, sizeCap, false)
  }
  // Git re-checks entries modified in the same second as the index ("racily clean"), and for a symlink it
  // compares the stored blob, which fast-import may not have written yet: the link would look changed and be
  // stored again, loose. Only then does status wait for the pack (a second of margin for coarse clocks).
  if (packed.entries.hasSymlinkModifiedSince(writtenAt - 1)) {
    // A failure here is seen again below (the settled pack), which starts the staging over.
    await packed.done.catch((err: unknown) => traceFallback(`packing failed: ${String(err)}`))
  }
  // `.ralph/` files just indexed need no second add: status reports any that changed since.
  const indexedState = new Set(packed.entries.paths.filter((p) => p.startsWith('.ralph/')))
  const [pass, pack] = await Promise.allSettled([
    stagePass(git, projectDir, sizeCap, true, indexedState),
    packed.done,
  ])
  if (pack.status === 'rejected') {
    // The index names objects git did not store as computed here: start again, with git reading every file.
    rmSync(join(git.indexDir, 'index'), { force: true })
    return stagePass(git, projectDir, sizeCap, false)
  }
  if (pass.status === 'rejected') throw pass.reason
  const modes = new Map(packed.entries.unusualModes)
  for (const [path, perm] of pass.value.modes) modes.set(path, perm)
  return { ...pass.value, modes }
}

/**
 * One staging pass. Many files to add (a big checkout, or a first snapshot that could not be written directly)
 * are packed up front unless `prepackBulk` is false. `.ralph/` files are always added (the user's ignore rules
 * may hide them from status), except those in `trackedState`, known to be in the index already.
 */
async function stagePass(
  git: ShadowGit,
  projectDir: string,
  sizeCap: number,
  prepackBulk = true,
  trackedState: ReadonlySet<string> = new Set(),
  mayRepeat = true,
): Promise<StageResult> {
  const result = await stageOnce(git, projectDir, sizeCap, prepackBulk, trackedState)
  if (!result.folderReplacedFile || !mayRepeat) return result
  // Git lists nothing inside a folder whose path the index still holds as a file: once the file has left the
  // index, a second pass finds the folder's files. (Its change counts are since the first pass: see engine.)
  const again = await stagePass(git, projectDir, sizeCap, prepackBulk, trackedState, false)
  return { ...again, modes: new Map([...result.modes, ...again.modes]) }
}

/** What status listed, sorted by what must happen to it (decided from the path alone, before any file is read). */
interface Sorted {
  nestedRepos: Set<string>
  candidates: Set<string>
  toRemove: Set<string>
  undecodable: SkippedFile[]
  credentialSkips: Set<string>
}

function sortListed(projectDir: string, listed: readonly Listed[]): Sorted {
  const detector = new NestedRepoDetector(projectDir)
  const credentials = new CredentialDetector(projectDir)
  const sorted: Sorted = {
    nestedRepos: new Set(),
    candidates: new Set(),
    toRemove: new Set(),
    undecodable: [],
    credentialSkips: new Set(),
  }
  /** Inside a nested repository, always excluded, or a credential store: noted where it is listed, never stored. */
  const neverStored = (path: string): boolean => {
    const repo = detector.containing(path)
    if (repo !== null) {
      sorted.nestedRepos.add(repo)
      return true
    }
    if (isAlwaysExcluded(path)) return true
    // Credential stores, the app data folder, token files (DESIGN.md §14): listed once each, never stored.
    const credential = credentials.skipOf(path)
    if (credential !== null) sorted.credentialSkips.add(credential)
    return credential !== null
  }
  for (const { status, path } of listed) {
    if (path.endsWith('/')) {
      // git reports an embedded repository as one `dir/` entry; adding it would record a gitlink.
      sorted.nestedRepos.add(path.slice(0, -1))
      continue
    }
    if (neverStored(path)) {
      if (status !== '?') sorted.toRemove.add(path)
      continue
    }
    if (status === '?' && hasUndecodableName(projectDir, path)) {
      sorted.undecodable.push({ path, reason: 'unreadable' })
      continue
    }
    sorted.candidates.add(path)
  }
  return sorted
}

/**
 * Looks at each candidate on disk: what is there is added (a path that is gone too: `--remove` drops it), and
 * what cannot be stored (a folder now, over the cap, a pipe or device) leaves the index and may be reported.
 */
function examineCandidates(
  projectDir: string,
  sizeCap: number,
  candidates: Iterable<string>,
  toRemove: Set<string>,
  skipped: SkippedFile[],
): { toAdd: string[]; modes: Map<string, number>; folderReplacedFile: boolean } {
  const toAdd: string[] = []
  const modes = new Map<string, number>()
  let folderReplacedFile = false
  for (const path of candidates) {
    let st
    try {
      st = lstatSync(join(projectDir, path))
    } catch (err) {
      // Gone (`--remove` drops it from the index) or unreadable (update-index reports it): git decides.
      if (!isMissing(err)) traceFallback(`${path} could not be examined (${String(err)})`)
      toAdd.push(path)
      continue
    }
    if (st.isDirectory()) {
      toRemove.add(path) // a tracked file replaced by a folder; the folder's files are listed on their own
      folderReplacedFile = true
    } else if (st.isFile() && st.size > sizeCap) {
      skipped.push({ path, reason: 'too-large', size: st.size })
      toRemove.add(path)
    } else if (!st.isFile() && !st.isSymbolicLink()) {
      // A tracked file replaced by a named pipe, socket or device: there is no content to store (and opening a
      // pipe would wait forever). It leaves the snapshot and is reported as skipped.
      skipped.push({ path, reason: 'unreadable' })
      toRemove.add(path)
    } else {
      toAdd.push(path)
      if (st.isFile()) modes.set(path, st.mode & 0o7777)
    }
  }
  return { toAdd, modes, folderReplacedFile }
}

async function stageOnce(
  git: ShadowGit,
  projectDir: string,
  sizeCap: number,
  prepackBulk: boolean,
  trackedState: ReadonlySet<string>,
): Promise<StageResult & { folderReplacedFile: boolean }> {
  const { listed, unreadableDirs } = await listChanges(git)
  const { nestedRepos, candidates, toRemove, undecodable, credentialSkips } = sortListed(projectDir, listed)
  // A tracked `.ralph/` file that changed is listed by status like any other; only untracked ones can be hidden
  // by the user's ignore rules. When status listed nothing else, those already in the index are left out, so an
  // unchanged project starts no update-index. Otherwise every one is added (git finds nothing to do for the
  // unchanged ones), which costs less than reading the index here.
  const peek =
    candidates.size === 0 && toRemove.size === 0 && nestedRepos.size === 0
      ? peekIndex(git.indexDir, '.ralph/')
      : null
  for (const file of listRalphFiles(projectDir)) {
    if (!trackedState.has(file) && !peek?.under.has(file)) candidates.add(file)
  }

  // Folders git could not open are left out; say so rather than leave them out in silence.
  const skipped: SkippedFile[] = [
    ...undecodable,
    ...unreadableDirs.map((path): SkippedFile => ({ path, reason: 'unreadable' })),
    ...[...credentialSkips].sort().map((path): SkippedFile => ({ path, reason: 'credentials' })),
  ]
  const { toAdd, modes, folderReplacedFile } = examineCandidates(
    projectDir,
    sizeCap,
    candidates,
    toRemove,
    skipped,
  )
  const done = (extra: Partial<StageResult> = {}) => {
    for (const s of skipped) modes.delete(s.path)
    return { skipped, nestedRepos: [...nestedRepos], modes, folderReplacedFile, ...extra }
  }

  const bulk = toAdd.length >= BULK_THRESHOLD
  if (!bulk && git.overlay === null && (await inProcessPays(git, toAdd.length))) {
    const staged = stageInProcess(git.gitDir, projectDir, { toAdd, toRemove, nestedRepos: [...nestedRepos] })
    if (typeof staged !== 'string') {
      for (const repo of [...nestedRepos].sort()) skipped.push({ path: repo, reason: 'nested-repo' })
      skipped.push(...staged.unreadable)
      return done({ staged })
    }
    traceFallback(staged)
  }
  if (nestedRepos.size > 0) {
    // Files a nested repo's folder held before it became a repo must leave the snapshot too.
    const tracked = await git.fields([
      'ls-files',
      '-z',
      '--',
      ...[...nestedRepos].map((d) => `:(literal)${d}/`),
    ])
    for (const path of tracked) toRemove.add(path)
    for (const repo of [...nestedRepos].sort()) skipped.push({ path: repo, reason: 'nested-repo' })
  }
  // Nothing to stage: the index is as status left it (it was peeked after status ran).
  if (toRemove.size === 0 && toAdd.length === 0) return done({ unchanged: { tree: peek?.tree ?? null } })
  await stageThroughGit(git, projectDir, sizeCap, { toAdd, toRemove, skipped, bulk, prepackBulk })
  return done()
}

/** update-index does the staging: removals first, then additions (packed up front when there are many). */
async function stageThroughGit(
  git: ShadowGit,
  projectDir: string,
  sizeCap: number,
  work: {
    toAdd: string[]
    toRemove: Set<string>
    skipped: SkippedFile[]
    bulk: boolean
    prepackBulk: boolean
  },
): Promise<void> {
  const { toAdd, toRemove, skipped, bulk } = work
  if (toRemove.size > 0) {
    await git.run(['update-index', '-z', '--force-remove', '--stdin'], { input: [...toRemove].join('\0') })
  }
  if (bulk && work.prepackBulk) {
    // Best effort: should packing fail, update-index stores the blobs itself (as one pack: see addPaths).
    await prepack(git, projectDir, toAdd, sizeCap)
      .then((p) => p.done)
      .catch((err: unknown) => traceFallback(`packing up front failed: ${String(err)}`))
  }
  await addPaths(git, toAdd, skipped, bulk)
  // Adding a path drops its folder from the untracked cache. After a bulk add that is most folders, and the
  // next save would list them all again; rebuilding the cache now keeps every later save incremental.
  if (bulk) await listChanges(git)
}

/**
 * Git reports names as bytes and we read them as UTF-8, so a name that is not valid UTF-8 arrives with U+FFFD in
 * it and no file answers to it. Such a file cannot be stored yet: it is reported as skipped rather than left out
 * in silence. (A name really holding U+FFFD exists, so it is stored as usual.)
 */
function hasUndecodableName(projectDir: string, path: string): boolean {
  if (!path.includes('\uFFFD')) return false
  try {
    return lstatSync(join(projectDir, path), { throwIfNoEntry: false }) === undefined
  } catch (err) {
    // ENOTDIR and the like: the normal path treats it as gone (and update-index reports what it cannot read).
    if (!isMissing(err)) traceFallback(`${path} could not be examined (${String(err)})`)
    return false
  }
}

/** Writes the fresh index; false (and update-index does the work) if git's lock is taken or the write fails. */
function writeIndexOrNot(git: ShadowGit, packed: Prepacked, log: Logger): boolean {
  const why = "Could not write a first snapshot's index directly; git builds it"
  return attempt(
    log,
    why,
    () => (writeFreshIndex(git.gitDir, packed.entries, packed.trees?.cacheTree), true),
    false,
  )
}

interface Listed {
  /** '?' untracked, otherwise how the work tree differs from the index (M, D, T). */
  status: string
  /** A path ending in '/' is a nested repository. */
  path: string
}

/**
 * Paths whose work tree differs from the shadow index. Status shows a new folder as one `dir/` entry (that is
 * what lets the untracked cache skip unchanged folders), so such folders are expanded with `ls-files`, which
 * names every file in them and reports a nested repository as `dir/`. Status may take the index lock to save
 * refreshed stat data and the untracked cache: this runs under the project lock, so nothing else is writing.
 */
async function listChanges(git: ShadowGit): Promise<{ listed: Listed[]; unreadableDirs: string[] }> {
  const res = await git.run(
    ['status', '--porcelain=v1', '-z', '--no-renames', '--untracked-files=normal', '--ignore-submodules=all'],
    { env: { GIT_OPTIONAL_LOCKS: '1' } },
  )
  const fields = splitFields(res.stdout.toString('utf8'))
  const unreadable = new Set(unreadableIn(res.stderr))
  const listed: Listed[] = []
  const newFolders: string[] = []
  for (const entry of fields) {
    const worktree = entry[1]
    const path = entry.slice(3)
    if (entry.startsWith('??')) {
      if (path.endsWith('/')) newFolders.push(path)
      else listed.push({ status: '?', path })
    } else if (worktree !== ' ') {
      // The first column compares the index with the last snapshot: nothing to stage for it.
      listed.push({ status: worktree!, path })
    }
  }
  if (newFolders.length > 0) {
    const inside = await git.run([
      'ls-files',
      '-z',
      '-o',
      '--exclude-standard',
      '--',
      ...newFolders.map((d) => `:(literal)${d}`),
    ])
    for (const path of splitFields(inside.stdout.toString('utf8'))) listed.push({ status: '?', path })
    for (const dir of unreadableIn(inside.stderr)) unreadable.add(dir)
  }
  return { listed, unreadableDirs: [...unreadable].sort() }
}

/** Folders git warned it could not open (no permission): `warning: could not open directory 'a/b/': …`. */
function unreadableIn(stderr: string): string[] {
  return [...stderr.matchAll(/could not open directory '(.+?)\/?': Permission denied/g)].map((m) => m[1]!)
}

function splitFields(out: string): string[] {
  const parts = out.split('\0')
  if (parts.length > 0 && parts[parts.length - 1] === '') parts.pop()
  return parts
}

// Above this many files in one save (a first snapshot, a big checkout), blobs and trees are packed up front
// (see prepack.ts); should that fail, blobs still stream into one pack (git's bulk check-in) instead of a
// loose file each. Only this call sees the setting, so diffs, merges and rollbacks treat the objects alike.
export const BULK_THRESHOLD = 1000

/** Adds/updates paths; a file git cannot read (permissions) is skipped and reported, not fatal. */
async function addPaths(
  git: ShadowGit,
  paths: string[],
  skipped: SkippedFile[],
  bulkAdd: boolean,
): Promise<void> {
  let pending = paths
  const bulk = bulkAdd ? ['-c', 'core.bigFileThreshold=1'] : []
  for (let attempt = 0; pending.length > 0 && attempt < 20; attempt++) {
    const res = await git.run([...bulk, 'update-index', '-z', '--add', '--remove', '--stdin'], {
      input: pending.join('\0'),
      okCodes: [0, 1, 128],
    })
    if (res.code === 0) return
    const bad = new Set<string>()
    for (const m of res.stderr.matchAll(/Unable to process path (.+)$/gm)) bad.add(m[1]!.trim())
    const unreadable = pending.filter((p) => bad.has(p))
    if (unreadable.length === 0) {
      await git.run([...bulk, 'update-index', '-z', '--add', '--remove', '--stdin'], {
        input: pending.join('\0'),
      })
      return
    }
    for (const path of unreadable) skipped.push({ path, reason: 'unreadable' })
    const drop = new Set(unreadable)
    pending = pending.filter((p) => !drop.has(p))
  }
}
