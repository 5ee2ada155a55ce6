import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { SnapshotEngine } from '../../../src/main/snapshots'
import { openDatabase } from '../../../src/main/store/database'
import { RepoTrustBook } from '../../../src/main/userGit'
import { memoryLogger } from '../../../src/main/workspace/logFile'

/** The environment of a git the test runs: none of ours (a GIT_DIR would point it elsewhere), no global config. */
function gitEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('GIT_')) env[k] = v
  return { ...env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' }
}

/** Runs git in `dir` as the user would; returns stdout (not trimmed). */
export function git(dir: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd: dir,
    env: gitEnv(),
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  })
}

/** Like `git`, for commands expected to fail (a conflicting merge): returns the exit status. */
export function gitStatus(dir: string, ...args: string[]): number {
  try {
    git(dir, ...args)
    return 0
  } catch (err) {
    return (err as { status?: number }).status ?? 1
  }
}

/** A repository with the user's identity in its own config (the app never passes one). */
export function initRepo(dir: string): void {
  git(dir, 'init', '-q', '-b', 'main')
  git(dir, 'config', 'user.name', 'Test User')
  git(dir, 'config', 'user.email', 'user@example.com')
  git(dir, 'config', 'commit.gpgsign', 'false')
}

export function write(dir: string, rel: string, text: string): void {
  mkdirSync(dirname(join(dir, rel)), { recursive: true })
  writeFileSync(join(dir, rel), text)
}

export const read = (dir: string, rel: string) => readFileSync(join(dir, rel), 'utf8')
export const remove = (dir: string, rel: string) => rmSync(join(dir, rel))

/** Runs a "task" the way the loop brackets one: task-N-pre, the task's edits, task-N-post. */
export async function runTask(projectDir: string, task: number, edit: () => void): Promise<SnapshotEngine> {
  const engine = new SnapshotEngine({ projectDir, logger: memoryLogger() })
  await engine.save({ kind: 'task-pre', task })
  edit()
  await engine.save({ kind: 'task-post', task })
  return engine
}

/**
 * Everything of the user's repository that a commit of `taskPaths` must leave alone: the status of every other
 * path, the index and both diffs outside those paths, the stash, the branch, and the bytes of untracked files.
 */
export function userState(dir: string, taskPaths: string[]) {
  const exclude = taskPaths.map((p) => `:(exclude,literal)${p}`)
  const status = git(dir, 'status', '--porcelain=v1', '-z', '--untracked-files=all')
    .split('\0')
    .filter((l) => l && !taskPaths.includes(l.slice(3)))
  const untracked = status
    .filter((l) => l.startsWith('?? '))
    .map((l) => [l.slice(3), readFileSync(join(dir, l.slice(3)), 'utf8')])
  return {
    branch: git(dir, 'rev-parse', '--abbrev-ref', 'HEAD').trim(),
    status,
    index: git(dir, 'ls-files', '-s', '--', '.', ...exclude),
    staged: git(dir, 'diff', '--cached', '--', '.', ...exclude),
    unstaged: git(dir, 'diff', '--', '.', ...exclude),
    stash: git(dir, 'stash', 'list', '--format=%H %s'),
    untracked,
  }
}

export const head = (dir: string) => git(dir, 'rev-parse', 'HEAD').trim()

/** The paths a commit changed against its parent (or all of them for a root commit), sorted. */
export const commitFiles = (dir: string, rev = 'HEAD') =>
  git(dir, 'diff-tree', '--root', '--no-commit-id', '--no-renames', '--name-only', '-r', '-z', rev)
    .split('\0')
    .filter(Boolean)
    .sort()

/**
 * The trust record as the app keeps it, in a real in-memory SQLite database: a repository it first sees is the
 * user's (trusted), as when the user opens a folder that already has its own git.
 */
export function trustBook(): RepoTrustBook {
  return new RepoTrustBook(openDatabase(':memory:'))
}
