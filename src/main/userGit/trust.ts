// Whether a commit may run the user's repository's own hooks and filters (DESIGN.md §14). A repository is trusted
// when it was there before Ralph first saw the folder (or the user confirmed it) and neither its config (with what
// it includes) nor its hooks changed during a task. Ralph records what it saw when it first sees the folder and
// before each task, and compares after each task; reads never run any of it either way (safeGit.ts).
import { createHash } from 'node:crypto'
import { lstat, open, readdir, realpath } from 'node:fs/promises'
import { homedir } from 'node:os'
import { isAbsolute, join, resolve } from 'node:path'
import type { RepoTrust } from '../../shared/api/userGit'
import { AppError } from '../../shared/errors'
import { runningTask } from '../snapshots'
import { type Db, RepoTrustRepo, type RepoTrustRow } from '../store'
import { fallbackTo, ifUnreadable, isUnreadable, type Logger } from '../workspace'
import { findUserRepo, gitError } from './repo'
import { programsInConfig, readConfig, type ConfigEntry } from './safeGit'

/** What Ralph sees of the repository around a folder now. */
export interface RepoSight {
  /** The git folder; null outside a repository. */
  gitDir: string | null
  /** Of the git folder's path, its config files, the config they include, and every hook (names, modes, bytes). */
  fingerprint: string
  /** What git would run from this repository's own config and hooks. */
  programs: { what: string; command: string }[]
}

const NO_REPO = 'no-repository'
/** A hook (or config file) is hashed up to this size, then its size stands for the rest. */
const HASH_LIMIT = 4 * 1024 * 1024

export async function seeRepo(projectDir: string): Promise<RepoSight> {
  const found = await findUserRepo(projectDir)
  if (!found) return { gitDir: null, fingerprint: NO_REPO, programs: [] }
  let entries: ConfigEntry[]
  try {
    entries = await readConfig(found.top)
  } catch (err) {
    throw gitError(err, 'read your repository’s config')
  }
  const hash = createHash('sha256')
  const add = (...parts: string[]) => {
    for (const p of parts) hash.update(`${p.length}:${p}\0`)
  }
  add('git-dir', found.gitDir, 'common-dir', found.commonDir)
  for (const file of [join(found.commonDir, 'config'), join(found.gitDir, 'config.worktree')]) {
    add('file', file, await fileDigest(file))
  }
  // The values local config gives, includes followed: a change in an included file shows here.
  for (const e of entries)
    if (e.scope === 'local' || e.scope === 'worktree') add('entry', e.scope, e.key, e.value)
  // And the bytes of every file it includes, also under a condition that does not hold now (includeIf onbranch:…
  // would take effect at the next checkout). A relative path is relative to the config file: the git folder.
  for (const e of entries) {
    if (
      (e.scope === 'local' || e.scope === 'worktree') &&
      /^include(if\..+)?\.path$/i.test(e.key) &&
      e.value
    ) {
      add('include', e.value, await fileDigest(resolveFrom(found.commonDir, e.value)))
    }
  }

  const hookDirs = new Set([join(found.commonDir, 'hooks')])
  for (const e of entries) {
    if (e.key.toLowerCase() === 'core.hookspath' && e.value) hookDirs.add(resolveFrom(found.top, e.value))
  }
  const programs = programsInConfig(entries)
  for (const dir of hookDirs) {
    add('hooks', dir)
    for (const hook of await listHooks(dir)) {
      add('hook', hook.name, String(hook.executable), hook.digest)
      if (hook.executable && !hook.name.endsWith('.sample')) {
        programs.push({ what: `hook ${hook.name}`, command: join(dir, hook.name) + hook.firstLine })
      }
    }
  }
  return { gitDir: found.gitDir, fingerprint: hash.digest('hex'), programs }
}

/** A path from config: `~/` is the home folder, a relative one is relative to `base`. */
function resolveFrom(base: string, value: string): string {
  if (value.startsWith('~/')) return join(homedir(), value.slice(2))
  return isAbsolute(value) ? value : resolve(base, value)
}

async function fileDigest(file: string): Promise<string> {
  let handle
  try {
    const st = await lstat(file)
    if (!st.isFile()) return st.isSymbolicLink() ? 'symlink' : 'not-a-file'
    // Opened only once it is known to be a regular file: a FIFO planted as a hook must not hang the read.
    handle = await open(file, 'r')
    const size = Math.min(st.size, HASH_LIMIT)
    const buf = Buffer.alloc(size)
    await handle.read(buf, 0, size, 0)
    return `${st.size}:${createHash('sha256').update(buf).digest('hex')}`
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'absent'
    throw err
  } finally {
    await handle?.close()
  }
}

interface Hook {
  name: string
  executable: boolean
  digest: string
  /** " — " and the first line after the #! line, to show what it does. */
  firstLine: string
}

async function listHooks(dir: string): Promise<Hook[]> {
  let names: string[]
  try {
    names = (await readdir(dir)).sort()
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') return []
    throw err
  }
  const hooks: Hook[] = []
  for (const name of names) {
    const path = join(dir, name)
    const st = await lstat(path).catch(ifUnreadable(null))
    if (!st) continue
    // git follows a symlinked hook: what it points at is what would run.
    const target = st.isSymbolicLink() ? await realpath(path).catch(ifUnreadable(null)) : path
    const tst = target ? await lstat(target).catch(ifUnreadable(null)) : null
    const executable = !!tst?.isFile() && (tst.mode & 0o111) !== 0
    const digest = `${st.isSymbolicLink() ? `link→${target ?? '?'}` : ''}${target ? await fileDigest(target) : 'dangling'}`
    hooks.push({ name, executable, digest, firstLine: executable && target ? await firstLine(target) : '' })
  }
  return hooks
}

async function firstLine(file: string): Promise<string> {
  let handle
  try {
    handle = await open(file, 'r')
    const buf = Buffer.alloc(512)
    const { bytesRead } = await handle.read(buf, 0, 512, 0)
    const lines = buf
      .subarray(0, bytesRead)
      .toString('utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#!'))
    return lines[0] ? ` — ${lines[0].slice(0, 160)}` : ''
  } catch (err) {
    // A hook we cannot read is still listed, without its first line.
    if (isUnreadable(err)) return ''
    throw err
  } finally {
    await handle?.close()
  }
}

/**
 * The one hook of the task lifecycle (loop/runTask.ts, shared by the app's TaskRunner, `ralph run` and
 * `ralph build`): the baseline before task N, the comparison when it ends. A comparison that fails (git unreadable
 * at the end) leaves the task pending, and the next look at the repository compares it.
 */
export async function watchUserRepo(
  db: Db,
  projectDir: string,
  task: number,
  logger: Logger,
): Promise<{ end(): Promise<void> }> {
  const book = new RepoTrustBook(db)
  await book.beforeTask(projectDir, task)
  return {
    end: () =>
      book
        .afterTask(projectDir, task)
        .catch(
          fallbackTo(
            logger,
            `the repository of ${projectDir} could not be compared after task ${task}`,
            undefined,
          ),
        ),
  }
}

/** The trust record of project folders (SQLite), and the comparisons around tasks. */
export class RepoTrustBook {
  private readonly rows: RepoTrustRepo

  constructor(db: Db) {
    this.rows = new RepoTrustRepo(db)
  }

  /**
   * The repository's trust now. The first look records it as Ralph found it (there before Ralph: trusted). A task
   * whose end was never compared (its process died) is compared now, unless a task is still running.
   */
  async current(projectDir: string): Promise<RepoTrust> {
    const key = await keyOf(projectDir)
    const sight = await seeRepo(projectDir)
    let row = this.rows.get(key)
    if (!row) row = this.rows.put(baseline(key, sight))
    else if (row.pendingTask !== null) {
      if (await runningTask(projectDir)) {
        // Mid-task: a change is not settled yet, but nothing the task wrote is trusted meanwhile.
        if (differs(row, sight)) return view(sight, taint(row, sight, row.pendingTask))
        return view(sight, row)
      }
      row = this.rows.put(settle(row, sight, row.pendingTask))
    } else if (differs(row, sight)) {
      // Changed with no task running: the user's own change (a hook they added, a git init of theirs).
      row = this.rows.put({ ...row, gitDir: sight.gitDir, fingerprint: sight.fingerprint })
    }
    return view(sight, row)
  }

  /**
   * Before task N: what the repository is now is the baseline its end is compared with. A repository git cannot
   * read now gets a baseline nothing will match, so whatever it is after the task counts as the task's.
   */
  async beforeTask(projectDir: string, task: number): Promise<void> {
    const key = await keyOf(projectDir)
    const sight = await seeRepo(projectDir).catch(
      (err: unknown): RepoSight => ({
        gitDir: null,
        fingerprint: `unreadable before task ${task}: ${(err as Error).message}`,
        programs: [],
      }),
    )
    let row = this.rows.get(key)
    // An earlier task's end that was never compared (a crash) is compared first; a resumed task keeps its baseline.
    if (row && row.pendingTask !== null && row.pendingTask !== task) row = settle(row, sight, row.pendingTask)
    if (row?.pendingTask === task) return
    const base = row ? { ...row, gitDir: sight.gitDir, fingerprint: sight.fingerprint } : baseline(key, sight)
    this.rows.put({ ...base, pendingTask: task })
  }

  /** After task N: a repository it created, or whose config or hooks it changed, is untrusted "by task N". */
  async afterTask(projectDir: string, task: number): Promise<void> {
    const key = await keyOf(projectDir)
    const row = this.rows.get(key)
    if (!row) return
    this.rows.put(settle(row, await seeRepo(projectDir), task))
  }

  /**
   * The user trusts the repository as they saw it (`fingerprint`, from the status or preview): refused when it
   * changed since, so a confirmation never covers something the user was not shown.
   */
  async confirm(projectDir: string, fingerprint: string): Promise<RepoTrust> {
    const key = await keyOf(projectDir)
    const now = await this.current(projectDir)
    if (now.fingerprint !== fingerprint) throw changedSinceShown()
    if (await runningTask(projectDir)) {
      throw new AppError(
        'busy',
        'A task is running and may still change the repository: trust it once it has finished.',
      )
    }
    const row = this.rows.get(key)!
    this.rows.put({ ...row, untrustedTask: null, untrustedReason: null, confirmedAt: Date.now() })
    return { ...now, trusted: true, reason: null, task: null, message: null }
  }
}

export function changedSinceShown(): AppError {
  return new AppError(
    'git',
    'The repository’s config or hooks changed since you were shown them. Look at the list again, then confirm.',
  )
}

async function keyOf(projectDir: string): Promise<string> {
  return realpath(projectDir).catch(ifUnreadable(resolve(projectDir)))
}

const differs = (row: RepoTrustRow, sight: RepoSight) =>
  row.gitDir !== sight.gitDir || row.fingerprint !== sight.fingerprint

function baseline(key: string, sight: RepoSight): Omit<RepoTrustRow, 'updatedAt'> {
  return {
    projectPath: key,
    gitDir: sight.gitDir,
    fingerprint: sight.fingerprint,
    untrustedTask: null,
    untrustedReason: null,
    pendingTask: null,
    confirmedAt: null,
  }
}

/** The row once task N's changes are known; an already untrusted repository keeps its first reason. */
function taint(row: RepoTrustRow, sight: RepoSight, task: number): RepoTrustRow {
  if (!differs(row, sight) || sight.gitDir === null || row.untrustedTask !== null) return row
  const reason = row.gitDir === sight.gitDir ? 'changed' : 'created'
  return { ...row, untrustedTask: task, untrustedReason: reason }
}

function settle(row: RepoTrustRow, sight: RepoSight, task: number): RepoTrustRow {
  return {
    ...taint(row, sight, task),
    gitDir: sight.gitDir,
    fingerprint: sight.fingerprint,
    pendingTask: null,
  }
}

function view(sight: RepoSight, row: RepoTrustRow): RepoTrust {
  const task = row.untrustedTask
  const trusted = task === null
  return {
    trusted,
    reason: trusted ? null : row.untrustedReason,
    task,
    message: trusted
      ? null
      : row.untrustedReason === 'created'
        ? `This folder’s git repository was created by task ${task}.`
        : `This folder’s git repository’s config or hooks changed during task ${task}.`,
    wouldRun: sight.programs,
    fingerprint: sight.fingerprint,
  }
}
