// Issue 34 item 8: in a trusted repository an unchanged pre-commit hook runs `scripts/check.sh`, which a task
// changed. The hook runs, but inside the sandbox (real bubblewrap) with the sandbox's environment: the script never
// runs on the host and never sees RALPH_API_KEY. The hooks see what git would show them (the commit's index, the
// message file they may rewrite).
import { chmodSync, existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { commitTask, taskSnapshotsOf } from '../../../src/main/userGit'
import { memoryLogger } from '../../../src/main/workspace/logFile'
import { isAppError } from '../../../src/shared/errors'
import { makeTempDir } from '../../helpers/tempDir'
import { commitFiles, git, head, initRepo, runTask, trustBook, write } from './helpers'

describe('a trusted repository’s commit hooks run in the sandbox, without the app’s keys', () => {
  const KEY = 'sk-ralph-hook-probe-0123456789'
  let project: ReturnType<typeof makeTempDir>
  let outside: ReturnType<typeof makeTempDir>
  let saved: string | undefined
  beforeEach(() => {
    project = makeTempDir('ralph-hooks-')
    outside = makeTempDir('ralph-hooks-outside-')
    saved = process.env.RALPH_API_KEY
    process.env.RALPH_API_KEY = KEY
  })
  afterEach(() => {
    if (saved === undefined) delete process.env.RALPH_API_KEY
    else process.env.RALPH_API_KEY = saved
    project.cleanup()
    outside.cleanup()
  })

  /** The user's repository: a pre-commit hook that runs the project's check script, a commit-msg hook (Gerrit). */
  function repo(): string {
    const dir = project.path
    initRepo(dir)
    write(dir, 'scripts/check.sh', '#!/bin/sh\nexit 0\n')
    write(dir, 'a.txt', 'a\n')
    write(dir, '.git/hooks/pre-commit', '#!/bin/sh\nexec sh scripts/check.sh\n')
    write(
      dir,
      '.git/hooks/commit-msg',
      '#!/bin/sh\nprintf "\\nChange-Id: I%s\\n" "$(git diff --cached --name-only | tr "\\n" ,)" >> "$1"\n',
    )
    chmodSync(join(dir, '.git/hooks/pre-commit'), 0o755)
    chmodSync(join(dir, '.git/hooks/commit-msg'), 0o755)
    git(dir, 'add', '-A')
    git(dir, 'commit', '-q', '--no-verify', '-m', 'initial')
    return dir
  }

  /** The "task": changes the script the unchanged hook runs; it records what it saw, outside and inside. */
  const hostile = (exit: number) =>
    [
      '#!/bin/sh',
      `echo "ran key=$RALPH_API_KEY" >> ${join(outside.path, 'ran-on-host')}`,
      'echo "key=${RALPH_API_KEY:-none} index=$(git diff --cached --name-only | tr "\\n" ,)" > hook-saw.txt',
      `exit ${exit}`,
      '',
    ].join('\n')

  const commit = (dir: string, engine: Awaited<ReturnType<typeof runTask>>, message: string) =>
    commitTask({
      projectDir: dir,
      task: 1,
      snapshots: taskSnapshotsOf(engine),
      trust: trustBook(),
      logger: memoryLogger(),
      message,
    })

  it('the changed script runs only inside the sandbox, never sees the key, and sees the commit’s index', async () => {
    const dir = repo()
    const engine = await runTask(dir, 1, () => {
      write(dir, 'scripts/check.sh', hostile(0))
      write(dir, 'a.txt', 'changed by the task\n')
    })
    const made = await commit(dir, engine, 'Task 1: a change')
    expect(made.notice).toBeUndefined()
    // Not on the host: the folder outside the project does not exist in the sandbox.
    expect(existsSync(join(outside.path, 'ran-on-host'))).toBe(false)
    // It did run (in the sandbox, where the project is writable), without the key, on what the commit holds.
    expect(readFileSync(join(dir, 'hook-saw.txt'), 'utf8')).toBe('key=none index=a.txt,scripts/check.sh,\n')
    expect(commitFiles(dir)).toEqual(['a.txt', 'scripts/check.sh'])
    // The commit-msg hook rewrote the message file; the commit holds its version.
    expect(git(dir, 'log', '-1', '--format=%B').trim()).toBe(
      'Task 1: a change\n\nChange-Id: Ia.txt,scripts/check.sh,',
    )
  }, 90_000)

  it('a hook that refuses (in the sandbox) leaves the repository unchanged and says why', async () => {
    const dir = repo()
    const before = head(dir)
    const engine = await runTask(dir, 1, () => write(dir, 'scripts/check.sh', hostile(3)))
    const err = await commit(dir, engine, 'Task 1').then(
      () => null,
      (e: unknown) => e,
    )
    expect(isAppError(err, 'git')).toBe(true)
    expect((err as Error).message).toMatch(/pre-commit hook refused the commit .*sandbox[\s\S]*exit 3/)
    expect(head(dir)).toBe(before)
    expect(existsSync(join(outside.path, 'ran-on-host'))).toBe(false)
    expect(readFileSync(join(dir, 'hook-saw.txt'), 'utf8')).toContain('key=none')
  }, 90_000)
})
