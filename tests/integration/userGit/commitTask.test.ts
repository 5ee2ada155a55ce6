import { memoryLogger } from '../../../src/main/workspace/logFile'
import { chmodSync, existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { isAppError } from '../../../src/shared/errors'
import {
  commitTask,
  planTaskCommit,
  readUserGitState,
  taskSnapshotsOf,
  type CommitTaskInput,
} from '../../../src/main/userGit'
import { acquireTaskLock, type SnapshotEngine } from '../../../src/main/snapshots'
import { makeTempDir } from '../../helpers/tempDir'
import {
  commitFiles,
  git,
  gitStatus,
  head,
  initRepo,
  read,
  remove,
  runTask,
  trustBook,
  userState,
  write,
} from './helpers'

// "Commit to my git" against real repositories: one commit of exactly the task's files, everything else of the
// user's repository as it was, and refusals (with their reasons) where a commit would cut into the user's work.
describe('commit a task to the user’s git', () => {
  const dirs: { cleanup(): void }[] = []
  afterEach(() => {
    for (const d of dirs.splice(0)) d.cleanup()
  })

  /** A repository with three committed files and a .gitignore, as a user's project would have. */
  function project(): string {
    const tmp = makeTempDir('ralph-usergit-')
    dirs.push(tmp)
    const dir = tmp.path
    initRepo(dir)
    write(dir, '.gitignore', '*.log\n')
    write(dir, '.git/info/exclude', '*.secret\n')
    write(dir, 'a.txt', 'a\n')
    write(dir, 'b.txt', 'b\n')
    write(dir, 'c.txt', 'c\n')
    write(dir, 'old.txt', 'old\n')
    write(dir, 'conflict.txt', 'base\n')
    git(dir, 'add', '-A')
    git(dir, 'commit', '-q', '-m', 'initial')
    return dir
  }

  const book = trustBook()
  const input = (dir: string, engine: SnapshotEngine, task = 1): CommitTaskInput => ({
    projectDir: dir,
    task,
    snapshots: taskSnapshotsOf(engine),
    trust: book,
  })

  /** The usual task: modifies a.txt, adds new/n[1].txt (a name that is also a glob), deletes old.txt, writes ignored files. */
  const usualTask = (dir: string) =>
    runTask(dir, 1, () => {
      write(dir, 'a.txt', 'a by the task\n')
      write(dir, 'new/n[1].txt', 'new file\n')
      remove(dir, 'old.txt')
      // Snapshots skip what .gitignore ignores; the user's git also ignores what .git/info/exclude names.
      write(dir, 'build.log', 'ignored by .gitignore: not even in the snapshot\n')
      write(dir, 'key.secret', 'ignored by .git/info/exclude only\n')
      // What the loop writes with every task: Ralph's own state, which stays out of the user's history.
      write(dir, '.ralph/summary.md', 'Edited a.txt.\n')
    })
  const TASK_FILES = ['a.txt', 'new/n[1].txt', 'old.txt']

  it('commits exactly the task’s files; the user’s staged, unstaged, untracked changes and stash stay as they were', async () => {
    const dir = project()
    // The user's own work in progress: a stash, a partly staged file, an unstaged edit, an untracked file.
    write(dir, 'c.txt', 'stashed\n')
    git(dir, 'stash', 'push', '-q', '-m', 'my stash')
    write(dir, 'b.txt', 'b staged\n')
    git(dir, 'add', 'b.txt')
    write(dir, 'b.txt', 'b staged, then edited more\n')
    write(dir, 'c.txt', 'c unstaged\n')
    write(dir, 'notes/todo.md', 'untracked\n')
    const engine = await usualTask(dir)
    const before = userState(dir, TASK_FILES)
    const headBefore = head(dir)

    const plan = await planTaskCommit(input(dir, engine))
    expect(plan.refusal).toBeNull()
    expect(plan.branch).toBe('main')
    expect(plan.files.map((f) => [f.path, f.status]).sort()).toEqual([
      ['a.txt', 'modified'],
      ['new/n[1].txt', 'added'],
      ['old.txt', 'deleted'],
    ])
    expect(plan.leftOut).toContainEqual({ path: 'key.secret', reason: 'ignored' })
    expect(plan.leftOut.some((f) => f.path === 'build.log')).toBe(false)
    expect(plan.leftOut.some((f) => f.path.startsWith('.ralph/') && f.reason === 'ralph-state')).toBe(true)
    // The preview wrote nothing.
    expect(userState(dir, TASK_FILES)).toEqual(before)
    expect(head(dir)).toBe(headBefore)

    const result = await commitTask({
      logger: memoryLogger(),
      ...input(dir, engine),
      message: 'Task 1: edit a\n\nThe summary.',
    })
    expect(result.branch).toBe('main')
    expect(result.hash).toMatch(/^[0-9a-f]{7,}$/)
    expect(git(dir, 'rev-parse', 'HEAD').startsWith(result.hash)).toBe(true)
    expect(result.files.sort()).toEqual(TASK_FILES)

    // One commit, on main, on top of the old HEAD, holding exactly the task's files, with the message given.
    expect(git(dir, 'rev-parse', 'HEAD~1').trim()).toBe(headBefore)
    expect(git(dir, 'rev-list', '--count', `${headBefore}..HEAD`).trim()).toBe('1')
    expect(commitFiles(dir)).toEqual(TASK_FILES)
    expect(git(dir, 'log', '-1', '--format=%B')).toBe('Task 1: edit a\n\nThe summary.\n\n')
    expect(git(dir, 'show', 'HEAD:a.txt')).toBe('a by the task\n')
    expect(git(dir, 'show', 'HEAD:new/n[1].txt')).toBe('new file\n')
    expect(gitStatus(dir, 'cat-file', '-e', 'HEAD:old.txt')).not.toBe(0)
    // b.txt's staged content did not ride along.
    expect(git(dir, 'show', 'HEAD:b.txt')).toBe('b\n')

    // Everything else is exactly as before, and the task's files are clean (index = HEAD = disk).
    expect(userState(dir, TASK_FILES)).toEqual(before)
    expect(git(dir, 'status', '--porcelain', '--', 'a.txt', 'new', 'old.txt')).toBe('')
    expect(read(dir, 'b.txt')).toBe('b staged, then edited more\n')
    expect(git(dir, 'show', ':b.txt')).toBe('b staged\n')
    expect(existsSync(join(dir, 'build.log'))).toBe(true)

    // A second commit of the same task finds nothing left to commit.
    const again = await planTaskCommit(input(dir, engine))
    expect(again.refusal?.code).toBe('nothing')
    await expect(
      commitTask({ logger: memoryLogger(), ...input(dir, engine), message: 'again' }),
    ).rejects.toMatchObject({
      kind: 'not-found',
    })
    expect(git(dir, 'rev-list', '--count', `${headBefore}..HEAD`).trim()).toBe('1')
  }, 60_000)

  /** The refusal of both calls, and proof that neither wrote anything. */
  async function expectRefused(dir: string, engine: SnapshotEngine, code: string, text: RegExp) {
    const before = userState(dir, [])
    const headBefore = gitStatus(dir, 'rev-parse', '-q', '--verify', 'HEAD') === 0 ? head(dir) : null
    const index = git(dir, 'ls-files', '-s')
    const plan = await planTaskCommit(input(dir, engine))
    expect(plan.refusal?.code).toBe(code)
    expect(plan.refusal?.message).toMatch(text)
    const err = await commitTask({ logger: memoryLogger(), ...input(dir, engine), message: 'refused' }).then(
      () => null,
      (e: unknown) => e,
    )
    expect(isAppError(err)).toBe(true)
    expect((err as Error).message).toBe(plan.refusal?.message)
    expect(userState(dir, [])).toEqual(before)
    expect(git(dir, 'ls-files', '-s')).toBe(index)
    if (headBefore) expect(head(dir)).toBe(headBefore)
    return plan
  }

  /** A branch `other` whose change to conflict.txt conflicts with main's. */
  function conflictingBranches(dir: string) {
    git(dir, 'switch', '-q', '-c', 'other')
    write(dir, 'conflict.txt', 'other\n')
    git(dir, 'commit', '-q', '-am', 'other side')
    git(dir, 'switch', '-q', 'main')
    write(dir, 'conflict.txt', 'main\n')
    git(dir, 'commit', '-q', '-am', 'main side')
  }

  it('refuses during a merge', async () => {
    const dir = project()
    conflictingBranches(dir)
    const engine = await usualTask(dir)
    expect(gitStatus(dir, 'merge', '-q', 'other')).not.toBe(0)
    await expectRefused(dir, engine, 'operation', /middle of a merge/)
    expect((await readUserGitState(dir, book)) as { operation: unknown }).toMatchObject({
      operation: 'merge',
    })
  }, 60_000)

  it('refuses during a rebase', async () => {
    const dir = project()
    conflictingBranches(dir)
    // The rebase stops on conflict.txt (a rebase needs a clean tree, so the task runs while it is stopped).
    expect(gitStatus(dir, 'rebase', 'other')).not.toBe(0)
    const engine = await usualTask(dir)
    await expectRefused(dir, engine, 'operation', /middle of a rebase/)
    expect((await readUserGitState(dir, book)) as { operation: unknown }).toMatchObject({
      operation: 'rebase',
    })
  }, 60_000)

  it('refuses during a cherry-pick', async () => {
    const dir = project()
    conflictingBranches(dir)
    const engine = await usualTask(dir)
    expect(gitStatus(dir, 'cherry-pick', 'other')).not.toBe(0)
    await expectRefused(dir, engine, 'operation', /middle of a cherry-pick/)
    expect((await readUserGitState(dir, book)) as { operation: unknown }).toMatchObject({
      operation: 'cherry-pick',
    })
  }, 60_000)

  it('refuses when a task file has an unrelated staged change, and commits when the staged change is the task’s', async () => {
    const dir = project()
    const engine = await usualTask(dir)
    // The user staged their own version of a.txt, then put the task's back on disk.
    write(dir, 'a.txt', 'the user’s own a\n')
    git(dir, 'add', 'a.txt')
    write(dir, 'a.txt', 'a by the task\n')
    const plan = await expectRefused(
      dir,
      engine,
      'staged',
      /a\.txt has staged changes that are not this task's/,
    )
    expect(plan.refusal?.paths).toEqual(['a.txt'])
    expect(git(dir, 'show', ':a.txt')).toBe('the user’s own a\n')

    // Staging exactly the task's content (git add after the task) is not unrelated: the commit goes ahead.
    git(dir, 'add', 'a.txt', 'new')
    const result = await commitTask({ logger: memoryLogger(), ...input(dir, engine), message: 'Task 1' })
    expect(result.files.sort()).toEqual(TASK_FILES)
    expect(commitFiles(dir)).toEqual(TASK_FILES)
  }, 60_000)

  it('refuses a file the user untracked with git rm --cached', async () => {
    const dir = project()
    const engine = await usualTask(dir)
    git(dir, 'rm', '-q', '--cached', 'a.txt')
    await expectRefused(dir, engine, 'staged', /a\.txt has staged changes/)
  }, 60_000)

  it('refuses when a task file changed after the task finished', async () => {
    const dir = project()
    const engine = await usualTask(dir)
    write(dir, 'a.txt', 'edited afterwards\n')
    const plan = await expectRefused(dir, engine, 'changed-since', /a\.txt changed after task 1 finished/)
    expect(plan.refusal?.paths).toEqual(['a.txt'])
  }, 60_000)

  it('refuses while a task runs on the project, and lists the files even when it refuses', async () => {
    const dir = project()
    const engine = await usualTask(dir)
    const lock = await acquireTaskLock(dir, 'task 2')
    try {
      await expectRefused(dir, engine, 'task-running', /A task is running/)
    } finally {
      await lock.release()
    }
    git(dir, 'checkout', '-q', '--detach', 'HEAD')
    const plan = await planTaskCommit(input(dir, engine))
    expect(plan.refusal?.code).toBe('detached')
    expect(plan.files.map((f) => f.path).sort()).toEqual(TASK_FILES)
  }, 60_000)

  it('refuses on a detached HEAD', async () => {
    const dir = project()
    git(dir, 'checkout', '-q', '--detach', 'HEAD')
    const engine = await usualTask(dir)
    await expectRefused(dir, engine, 'detached', /detached HEAD/)
    expect(await readUserGitState(dir, book)).toMatchObject({ repo: true, detached: true, branch: null })
  }, 60_000)

  it('refuses a task without an after-task snapshot, and a folder that is not a repository', async () => {
    const dir = project()
    const engine = await usualTask(dir)
    const plan = await planTaskCommit(input(dir, engine, 2))
    expect(plan.refusal?.code).toBe('no-snapshot')
    expect(plan.refusal?.message).toContain('task-2-post')

    const plain = makeTempDir('ralph-usergit-plain-')
    dirs.push(plain)
    write(plain.path, 'x.txt', 'x\n')
    const plainEngine = await runTask(plain.path, 1, () => write(plain.path, 'x.txt', 'y\n'))
    expect((await planTaskCommit(input(plain.path, plainEngine))).refusal?.code).toBe('not-a-repo')
    expect(await readUserGitState(plain.path, book)).toEqual({ repo: false })
    expect(existsSync(join(plain.path, '.git'))).toBe(false)
  }, 60_000)

  it('makes the first commit of a repository that has none yet', async () => {
    const tmp = makeTempDir('ralph-usergit-unborn-')
    dirs.push(tmp)
    const dir = tmp.path
    initRepo(dir)
    write(dir, 'mine.txt', 'the user’s, untracked\n')
    const engine = await runTask(dir, 1, () => write(dir, 'index.html', '<h1>Hi</h1>\n'))
    expect(await readUserGitState(dir, book)).toMatchObject({
      repo: true,
      unborn: true,
      branch: 'main',
      head: null,
    })
    const result = await commitTask({
      logger: memoryLogger(),
      ...input(dir, engine),
      message: 'Task 1: a page',
    })
    expect(result.files).toEqual(['index.html'])
    expect(commitFiles(dir)).toEqual(['index.html'])
    expect(git(dir, 'rev-list', '--count', 'HEAD').trim()).toBe('1')
    expect(git(dir, 'status', '--porcelain', '--', 'mine.txt')).toBe('?? mine.txt\n')
  }, 60_000)

  it('a project in a sub-folder of the repository commits its files at their repository paths', async () => {
    const dir = project()
    const sub = join(dir, 'apps', 'site')
    mkdirSync(sub, { recursive: true })
    write(sub, 'page.html', 'v1\n')
    git(dir, 'add', '-A')
    git(dir, 'commit', '-q', '-m', 'site')
    write(dir, 'a.txt', 'outside the project, unstaged\n')
    const engine = await runTask(sub, 1, () => write(sub, 'page.html', 'v2\n'))
    const result = await commitTask({ logger: memoryLogger(), ...input(sub, engine), message: 'Task 1' })
    expect(result.files).toEqual(['page.html'])
    expect(commitFiles(dir)).toEqual(['apps/site/page.html'])
    expect(read(dir, 'a.txt')).toBe('outside the project, unstaged\n')
  }, 60_000)

  it('a pre-commit hook that refuses leaves the repository as it was, new files untracked again', async () => {
    const dir = project()
    write(dir, '.git/hooks/pre-commit', '#!/bin/sh\necho "lint failed: fix it first" >&2\nexit 1\n')
    chmodSync(join(dir, '.git/hooks/pre-commit'), 0o755)
    const engine = await usualTask(dir)
    const before = userState(dir, [])
    const index = git(dir, 'ls-files', '-s')
    const headBefore = head(dir)
    const err = await commitTask({ logger: memoryLogger(), ...input(dir, engine), message: 'Task 1' }).then(
      () => null,
      (e: unknown) => e,
    )
    expect(isAppError(err, 'git')).toBe(true)
    expect((err as Error).message).toContain('lint failed: fix it first')
    expect(head(dir)).toBe(headBefore)
    expect(git(dir, 'ls-files', '-s')).toBe(index)
    expect(userState(dir, [])).toEqual(before)
    expect(git(dir, 'status', '--porcelain', '--', 'new')).toBe('?? new/\n')
  }, 60_000)

  it('reads the repository state for the header', async () => {
    const dir = project()
    write(dir, 'a.txt', 'changed\n')
    write(dir, 'b.txt', 'staged\n')
    git(dir, 'add', 'b.txt')
    write(dir, 'fresh.txt', 'untracked\n')
    const state = await readUserGitState(dir, book)
    expect(state).toEqual({
      repo: true,
      branch: 'main',
      detached: false,
      unborn: false,
      head: head(dir).slice(0, 7),
      changedFiles: 3,
      stagedFiles: 1,
      // No .ralph/ in this folder: nothing of Ralph's for git to list.
      ralphUntracked: 0,
      operation: null,
      // There before Ralph first saw it, and no task changed it: the user's own, trusted.
      trust: expect.objectContaining({ trusted: true, task: null, message: null, wouldRun: [] }),
    })
  }, 30_000)
})
