// "Commit to my git": one commit of a task's changed files on the user's current branch (DESIGN.md §5).
// The only place that writes to the user's repository, and only when the user asks. Never a push.
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FileStatusResult } from 'simple-git'
import type { CommitPlan, CommitRefusal, FlaggedFile, RepoTrust } from '../../shared/api/userGit'
import { AppError, isAppError, type ErrorKind } from '../../shared/errors'
import { runningTask } from '../snapshots'
import { type Logger, RALPH_DIR } from '../workspace'
import {
  gitError,
  headCommit,
  openUserRepo,
  operationInProgress,
  operationWords,
  type UserRepo,
} from './repo'
import { stateOf } from './commits'
import { flagFiles } from './flagged'
import { AFTER_COMMIT_HOOK, presentHooks, runHookSandboxed, runHooksBeforeCommit } from './commitHooks'
import { commitGitAt, neutralGitWithIndex, plainGitAt } from './safeGit'
import { changedSinceShown } from './trust'
import type { TaskChange, TaskSnapshots } from './taskChanges'

export interface CommitTaskInput {
  projectDir: string
  task: number
  snapshots: TaskSnapshots
  /** The full hash of the commit this task got earlier, if any: while HEAD still holds it, a second is refused. */
  earlier?: () => string | null
  /** The repository's trust now (trust.ts: the app's record); an untrusted repository is committed to only when confirmed. */
  trust: { current(projectDir: string): Promise<RepoTrust> }
  /** Project-relative paths the user lets in although a check flagged them (a blocked path, a secret). */
  allow?: readonly string[]
}

/** The commit just made, for the record of it (the app keeps it in SQLite so the card survives a restart). */
export interface MadeCommit {
  /** The full hash. */
  hash: string
  branch: string
  /** The message's first line. */
  subject: string
}

export interface CommitResult {
  hash: string
  branch: string
  files: string[]
  /** Set when the repository's hooks were skipped, saying why (no sandbox could run them). */
  notice?: string
}

/** What `git status` says about one path: every line it printed for it (a path can be staged-deleted and untracked). */
interface PathStatus {
  entries: FileStatusResult[]
}

/** A plan the commit can act on: the refusal-free case, with what it needs that the contract does not show. */
interface Ready {
  plan: CommitPlan
  repo: UserRepo
  head: string | null
  branch: string
  /** Repo-relative paths git sees as changed (the pathspec of the commit). */
  commitPaths: string[]
  /** Repo-relative paths that are untracked now, so `git add` must introduce them. */
  untracked: string[]
  trust: RepoTrust
}

/**
 * Everything that decides whether the commit may go ahead, and what it would hold. Reads only: the preview shows
 * this, and the commit runs it again right before it writes.
 */
export async function planTaskCommit(input: CommitTaskInput): Promise<CommitPlan> {
  const result = await prepare(input)
  return 'refusal' in result ? result.plan : result.ready.plan
}

/** Serialises commits per repository in this process (a double click must not make two commits). */
const queues = new Map<string, Promise<unknown>>()

/**
 * Makes the commit. `record` runs inside the per-repository queue, right after the commit: a second commit queued
 * behind this one already sees it as `earlier` and is refused.
 */
export interface CommitInput extends CommitTaskInput {
  message: string
  record?: (made: MadeCommit) => void
  /** An untrusted repository: the fingerprint of the config and hooks the user was shown and confirmed. */
  untrustedConfirmed?: string
  /** Where a failure the commit survives is recorded. */
  logger: Logger
}

export async function commitTask(input: CommitInput): Promise<CommitResult> {
  const repo = await openUserRepo(input.projectDir)
  const key = repo?.top ?? input.projectDir
  const previous = queues.get(key) ?? Promise.resolve()
  // After the previous commit, however it ended: its failure is its own caller's.
  const run = Promise.allSettled([previous]).then(() => commitNow(input))
  queues.set(key, run)
  try {
    return await run
  } finally {
    if (queues.get(key) === run) queues.delete(key)
  }
}

async function commitNow(input: CommitInput): Promise<CommitResult> {
  const result = await prepare(input)
  if ('refusal' in result) throw refusalError(result.refusal)
  const { repo, head, branch, commitPaths, untracked, trust } = result.ready
  // A trusted repository's hooks and filters are the user's own, but a hook may run files a task changed: the
  // hooks run in the sandbox first (commitHooks.ts), then git commits with hooks off and without the app's keys in
  // its environment. An untrusted repository's run not at all (the user confirmed the commit having been shown
  // what they are).
  const writer = trust.trusted ? commitGitAt(repo.top) : repo.git
  const spec = (paths: string[]) => paths.map(literal)

  // The message goes through a file: it may be long, and on the command line it would be parsed as arguments.
  // The folder is private (mkdtemp: 0700) and is the hooks' HOME in the sandbox.
  const tmp = await realpath(await mkdtemp(join(tmpdir(), 'ralph-commit-')))
  const messageFile = join(tmp, 'COMMIT_EDITMSG')
  await writeFile(messageFile, input.message.endsWith('\n') ? input.message : `${input.message}\n`)
  let message = input.message
  let notice: string | null = null
  let hooks: Awaited<ReturnType<typeof presentHooks>> = []
  let added = false
  let made: string
  try {
    if (trust.trusted) {
      hooks = await presentHooks(plainGitAt(repo.top), repo.top)
      if (hooks.length > 0) {
        const run = {
          top: repo.top,
          home: tmp,
          indexFile: join(tmp, 'index'),
          messageFile,
          logger: input.logger,
        }
        await stageForHooks(repo.top, head, spec(commitPaths), run.indexFile)
        const before = await runHooksBeforeCommit(hooks, run)
        message = before.message
        notice = before.skipped
      }
    }
    // `git commit -- <paths>` (the --only form) commits those paths as they are on disk, from a temporary index
    // built on HEAD, and leaves every other entry of the user's index as it was. It only takes paths git already
    // knows, so the task's new files are added first (and removed from the index again if the commit fails).
    if (untracked.length > 0) {
      await writer.raw(['add', '--', ...spec(untracked)])
      added = true
    }
    await writer.raw(['commit', '-q', '--file', messageFile, '--', ...spec(commitPaths)])
    const now = await headCommit(repo)
    // simple-git resolves a failed git that wrote nothing to stderr: check that exactly one commit was made.
    const parent = now ? await parentOf(repo, now) : null
    if (now === null || now === head || parent !== head) {
      throw new AppError(
        'git',
        'Git did not make the commit and did not say why. Your repository is unchanged.',
      )
    }
    added = false
    made = now
    if (hooks.includes(AFTER_COMMIT_HOOK) && notice === null) {
      // git ignores post-commit's exit status too: a failure is recorded, the commit stands.
      const after = await runHookSandboxed(AFTER_COMMIT_HOOK, {
        top: repo.top,
        home: tmp,
        indexFile: join(tmp, 'index'),
        messageFile,
        logger: input.logger,
      }).catch((err: unknown) => ({ ran: false as const, why: (err as Error).message }))
      if (!after.ran || !after.ok)
        input.logger.warn(`the post-commit hook of ${repo.top} failed`, after.ran ? after.output : after.why)
    }
  } catch (err) {
    if (added) {
      // Back to untracked, as they were: the user's index is left as we found it.
      await repo.git
        .raw(['rm', '--cached', '-q', '--ignore-unmatch', '--', ...spec(untracked)])
        .catch((undo: unknown) =>
          // The commit's own failure is the one reported; this one is only recorded.
          input.logger?.warn('the files added for a failed commit could not be unstaged', undo),
        )
    }
    throw commitError(err)
  } finally {
    await rm(tmp, { recursive: true, force: true })
  }
  // Outside the try: from here on the commit exists, and no failure may claim the repository is unchanged.
  const subject = message.trim().split('\n')[0]!.trim()
  input.record?.({ hash: made, branch, subject })
  try {
    const short = (await repo.git.raw(['rev-parse', '--short', made])).trim()
    const files = await filesOfCommit(repo, made)
    return {
      hash: short,
      branch,
      files: files.map((p) => fromRepoPath(repo, p)),
      ...(notice !== null ? { notice } : {}),
    }
  } catch (err) {
    throw gitError(err, 'read the new commit')
  }
}

/**
 * The index `git commit -- <paths>` would commit from, for the pre-commit hook to see: HEAD plus the task's paths
 * as they are on disk, in a private file (the user's index is not touched). Built by a neutral git.
 */
async function stageForHooks(top: string, head: string | null, pathspec: string[], indexFile: string) {
  const git = await neutralGitWithIndex(top, indexFile)
  await git.raw(head === null ? ['read-tree', '--empty'] : ['read-tree', head])
  await git.raw(['add', '-A', '--', ...pathspec])
}

type Prepared = { refusal: CommitRefusal; plan: CommitPlan } | { ready: Ready }
type Refusal = Omit<CommitRefusal, 'paths'> & { paths?: string[] }

/** The plan with its refusal, as `prepare` answers. */
function refused(plan: CommitPlan, r: Refusal): { refusal: CommitRefusal; plan: CommitPlan } {
  const refusal = { code: r.code, message: r.message, paths: r.paths ?? [] }
  return { refusal, plan: { ...plan, refusal } }
}

async function prepare(input: CommitTaskInput & { untrustedConfirmed?: string }): Promise<Prepared> {
  const { projectDir, task, snapshots } = input
  let base: CommitPlan = {
    task,
    files: [],
    leftOut: [],
    refusal: null,
    branch: null,
    flagged: [],
    trust: null,
  }
  const repo = await openUserRepo(projectDir)
  if (!repo)
    return refused(base, {
      code: 'not-a-repo',
      message: 'This project is not in a git repository, so there is nothing to commit to.',
    })
  const trust = await input.trust.current(projectDir)
  base = { ...base, trust }
  if (await runningTask(projectDir)) {
    return refused(base, {
      code: 'task-running',
      message: 'A task is running and still changing files: commit once it has finished.',
    })
  }
  let changes: TaskChange[]
  try {
    changes = await snapshots.changes(task)
  } catch (err) {
    if (isAppError(err, 'not-found')) return refused(base, { code: 'no-snapshot', message: err.message })
    throw err
  }
  try {
    return await inspectRepo(input, repo, trust, base, changes)
  } catch (err) {
    throw gitError(err, 'read your repository')
  }
}

/** The user's repository against the task's changes: what the commit would hold, and whether it may go ahead. */
async function inspectRepo(
  input: CommitTaskInput & { untrustedConfirmed?: string },
  repo: UserRepo,
  trust: RepoTrust,
  base: CommitPlan,
  changes: TaskChange[],
): Promise<Prepared> {
  const { task, snapshots } = input
  // Ralph's own state (.ralph/: status, counters, the plan) changes with every task; it stays out of the user's
  // history, which gets the project's work only.
  const inRalph = (p: string) => p === RALPH_DIR || p.startsWith(`${RALPH_DIR}/`)
  const leftOut: CommitPlan['leftOut'] = changes
    .filter((c) => inRalph(c.path))
    .map((c) => ({ path: c.path, reason: 'ralph-state' as const }))
  let candidates = changes.filter((c) => !inRalph(c.path))

  const operation = await operationInProgress(repo)
  const head = await headCommit(repo)
  // Limited to the task's files (with none, tracked files only: all that is needed then is the branch).
  const status = await repo.git.status([
    '--ignore-submodules=all',
    ...(candidates.length > 0
      ? ['--', ...candidates.map((c) => literal(toRepoPath(repo, c.path)))]
      : ['-uno']),
  ])
  const branch = status.detached ? null : status.current
  const earlier = input.earlier?.() ?? null
  const standing = earlier ? await stateOf(repo, earlier, head) : null
  if (standing?.state === 'on-branch') {
    return refused(
      { ...base, branch },
      {
        code: 'committed',
        message: `Task ${task} is already committed on this branch (${standing.short}): a second commit would duplicate it.`,
      },
    )
  }
  // The files come first: a refused dialog still shows what the commit would hold.
  // Files the user's git ignores and does not track stay out, as `git add` would leave them.
  const ignored = new Set(
    candidates.length > 0 ? await repo.git.checkIgnore(candidates.map((c) => toRepoPath(repo, c.path))) : [],
  )
  for (const c of candidates) {
    if (ignored.has(toRepoPath(repo, c.path))) leftOut.push({ path: c.path, reason: 'ignored' })
  }
  candidates = candidates.filter((c) => !ignored.has(toRepoPath(repo, c.path)))
  // Verification's checks, on what the commit would add: a blocked path or a secret goes in only when the user
  // lets that file in.
  const flagged = await flagFiles(repo, candidates, head, new Set(input.allow ?? []))
  const plan: CommitPlan = { ...base, branch, files: candidates, leftOut, flagged }
  const early = repoStateRefusal({
    task,
    operation,
    detached: status.detached,
    branch,
    files: candidates.length,
  })
  if (early) return refused(plan, early)

  // The commit takes the files as they are on disk, so they must still be what the task left.
  const since = await snapshots.changedSince(task)
  const edited = candidates.filter((c) => since.has(c.path)).map((c) => c.path)
  const paths = sortPaths(repo, candidates, status.files)
  const late = pathRefusal({ task, edited, flagged, ...paths })
  if (late) return refused(plan, late)
  if (!trust.trusted && input.untrustedConfirmed !== trust.fingerprint) {
    if (input.untrustedConfirmed !== undefined) throw changedSinceShown()
    return refused(plan, {
      code: 'untrusted',
      message: `${trust.message} Ralph runs none of its hooks, filters or other programs; confirm to commit without them.`,
    })
  }
  // `branch` is set: repoStateRefusal refused a detached HEAD.
  const { commitPaths, untracked } = paths
  return { ready: { plan, repo, head, branch: branch!, commitPaths, untracked, trust } }
}

/** What the repository's state refuses, before any path is looked at: an operation, a detached HEAD, no files. */
export function repoStateRefusal(f: {
  task: number
  operation: keyof typeof operationWords | null
  detached: boolean
  branch: string | null
  files: number
}): Refusal | null {
  if (f.operation) {
    return {
      code: 'operation',
      message: `Your repository is in the middle of ${operationWords[f.operation]}. Finish it or abort it (git ${f.operation} --continue or --abort), then commit.`,
    }
  }
  // A commit on a detached HEAD belongs to no branch and is easily lost at the next checkout: the commit goes on
  // "the current branch", so there must be one.
  if (f.detached || !f.branch) {
    return {
      code: 'detached',
      message:
        'Your repository has no branch checked out (detached HEAD). Check out a branch (git switch <branch>), then commit.',
    }
  }
  if (f.files === 0) {
    return { code: 'nothing', message: `Task ${f.task} changed no files that belong in your repository.` }
  }
  return null
}

/** The task's files by what git says of them: conflicted, staged by the user, to commit, to add first. */
function sortPaths(
  repo: UserRepo,
  candidates: TaskChange[],
  files: FileStatusResult[],
): { conflicted: string[]; staged: string[]; commitPaths: string[]; untracked: string[] } {
  const byPath = new Map<string, PathStatus>()
  for (const f of files) {
    const s = byPath.get(f.path) ?? { entries: [] }
    s.entries.push(f)
    byPath.set(f.path, s)
  }
  const conflicted: string[] = []
  const staged: string[] = []
  const commitPaths: string[] = []
  const untracked: string[] = []
  for (const c of candidates) {
    const rel = toRepoPath(repo, c.path)
    const s = byPath.get(rel)
    // Not listed: the same in HEAD, the index and on disk (already committed, or a deleted file git never had).
    if (!s) continue
    if (s.entries.some(isUnmerged)) conflicted.push(c.path)
    else if (hasUnrelatedStage(s)) staged.push(c.path)
    commitPaths.push(rel)
    if (s.entries.some((e) => e.index === '?') && !s.entries.some(isStaged)) untracked.push(rel)
  }
  return { conflicted, staged, commitPaths, untracked }
}

/** What the task's files refuse: edited since, conflicts, the user's staged changes, nothing left, flagged files. */
export function pathRefusal(f: {
  task: number
  edited: string[]
  conflicted: string[]
  staged: string[]
  commitPaths: string[]
  flagged: FlaggedFile[]
}): Refusal | null {
  const { task, edited, conflicted, staged } = f
  if (edited.length > 0) {
    return {
      code: 'changed-since',
      message: `${list(edited)} changed after task ${task} finished (edited by you or a later task), so the commit would not hold just this task's work. Commit ${edited.length === 1 ? 'it' : 'them'} yourself.`,
      paths: edited,
    }
  }
  if (conflicted.length > 0) {
    return {
      code: 'staged',
      message: `${list(conflicted)} ${conflicted.length === 1 ? 'has' : 'have'} unresolved conflicts in your repository. Resolve them (or git checkout --theirs/--ours), then commit.`,
      paths: conflicted,
    }
  }
  if (staged.length > 0) {
    return {
      code: 'staged',
      message: `${list(staged)} ${staged.length === 1 ? 'has' : 'have'} staged changes that are not this task's (git add'ed content that differs from the file on disk). Committing would replace them. Commit or unstage them first (git restore --staged <file>).`,
      paths: staged,
    }
  }
  if (f.commitPaths.length === 0) {
    return {
      code: 'nothing',
      message: `Your repository already holds task ${task}'s changes: there is nothing to commit.`,
    }
  }
  const flaggedOut = f.flagged.filter((x) => !x.allowed)
  if (flaggedOut.length > 0) {
    return {
      code: 'flagged',
      message: `${list(unique(flaggedOut))} ${unique(flaggedOut).length === 1 ? 'is' : 'are'} not committed: ${flagWords(flaggedOut)}. Tick “Commit anyway” for a file only if it belongs in your repository.`,
      paths: unique(flaggedOut),
    }
  }
  return null
}

const STAGED = new Set(['M', 'A', 'D', 'R', 'C', 'T'])
const isStaged = (e: FileStatusResult) => STAGED.has(e.index)
const isUnmerged = (e: FileStatusResult) =>
  e.index === 'U' ||
  e.working_dir === 'U' ||
  (e.index === 'A' && e.working_dir === 'A') ||
  (e.index === 'D' && e.working_dir === 'D')

/**
 * A staged change is "unrelated" when the index entry differs from HEAD *and* from the file on disk. The file on
 * disk is the task's result (`changedSince` checked that), so an index entry equal to it is the task's own change,
 * staged by the user (`git add` after the task): committing it loses nothing. An index entry that differs from it
 * is something else the user staged (their own edit, a `git rm --cached`), and `git commit -- <path>` would
 * silently replace it with the disk's content, so we refuse instead. We never stage anything ourselves except
 * inside one commit, whose failure unstages it again, so any staged entry found here is the user's.
 */
function hasUnrelatedStage(s: PathStatus): boolean {
  if (!s.entries.some(isStaged)) return false
  // Y (index → disk) not clean, or the path also listed as untracked (staged as deleted but still on disk).
  return s.entries.some((e) => (e.working_dir !== ' ' && e.working_dir !== undefined) || e.index === '?')
}

/** Pathspec magic off: a task's file named `*.ts` or `[1].txt` means that file, not a pattern. */
const literal = (repoPath: string) => `:(literal)${repoPath}`

const toRepoPath = (repo: UserRepo, projectPath: string) => `${repo.prefix}${projectPath}`
const fromRepoPath = (repo: UserRepo, repoPath: string) =>
  repo.prefix && repoPath.startsWith(repo.prefix) ? repoPath.slice(repo.prefix.length) : repoPath

async function parentOf(repo: UserRepo, commit: string): Promise<string | null> {
  const out = (await repo.git.raw(['rev-list', '--parents', '-n', '1', commit])).trim().split(' ')
  return out[1] ?? null
}

async function filesOfCommit(repo: UserRepo, commit: string): Promise<string[]> {
  const out = await repo.git.raw([
    'diff-tree',
    '--root',
    '--no-commit-id',
    '--no-renames',
    '--name-only',
    '-r',
    '-z',
    commit,
  ])
  return out.split('\0').filter(Boolean)
}

const unique = (files: FlaggedFile[]) => [...new Set(files.map((f) => f.path))]

function flagWords(files: FlaggedFile[]): string {
  const kinds = new Set(files.map((f) => f.reason))
  const words = []
  if (kinds.has('blocked-path')) words.push('a path verification blocks (keys, .env files and the like)')
  if (kinds.has('secret')) words.push('a secret in the added lines')
  return words.join(' and ')
}

function list(paths: string[]): string {
  const shown = paths.slice(0, 3).join(', ')
  return paths.length > 3 ? `${shown} and ${paths.length - 3} more` : shown
}

const refusalKind: Record<CommitRefusal['code'], ErrorKind> = {
  'not-a-repo': 'not-found',
  'no-snapshot': 'not-found',
  nothing: 'not-found',
  operation: 'busy',
  'task-running': 'busy',
  detached: 'git',
  staged: 'git',
  'changed-since': 'git',
  committed: 'git',
  untrusted: 'git',
  flagged: 'invalid-input',
}

export function refusalError(refusal: CommitRefusal): AppError {
  return new AppError(refusalKind[refusal.code], refusal.message, { refusal })
}

/** A commit git itself refused: most often the user's pre-commit or commit-msg hook. */
function commitError(err: unknown): AppError {
  if (err instanceof AppError) return err
  const e = gitError(err, 'commit')
  if (e.kind !== 'git') return e
  return new AppError(
    'git',
    `Git refused the commit (a hook of yours, or its configuration): ${e.message.replace(/^Could not commit: /, '')}\nYour repository is unchanged.`,
  )
}
