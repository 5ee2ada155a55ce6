import { afterEach, describe, expect, it } from 'vitest'
import { createCore, type Core } from '../../../src/main/api/core'
import type { CommitPlan, UserCommit } from '../../../src/shared/api/userGit'
import { makeTempDir } from '../../helpers/tempDir'
import { git, head, initRepo, runTask, write } from './helpers'

// "Committed <hash>" is kept in the app's SQLite: a new core on the same app data folder still knows the task is
// committed, and checks it against the user's repository as it is now (reset away: offered again, honestly).
describe('a task’s commit to the user’s git survives a restart', () => {
  const cleanups: (() => Promise<void> | void)[] = []
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c()
  })

  function openCore(home: string): Core {
    const core = createCore({ appDataDir: home, env: {}, host: { kind: 'web', openedFrom: 'test' } })
    cleanups.push(() => core.close())
    return core
  }

  async function call<T>(core: Core, name: string, input: unknown): Promise<T> {
    const r = await core.dispatch(name, input)
    if (!r.ok) throw new Error(`${name}: ${r.error.kind}: ${r.error.message}`)
    return r.value as T
  }

  const commits = async (core: Core, projectId: number) =>
    (await call<{ commits: UserCommit[] }>(core, 'userGit.commits', { projectId })).commits
  const preview = (core: Core, projectId: number) =>
    call<CommitPlan>(core, 'userGit.previewCommit', { projectId, task: 1 })

  it('reads the commit back after a restart, refuses a duplicate, and offers it again once reset away', async () => {
    const work = makeTempDir('ralph-usercommits-')
    const home = makeTempDir('ralph-home-')
    cleanups.push(work.cleanup, home.cleanup)
    const dir = work.path
    initRepo(dir)
    write(dir, 'index.html', '<h1>Bakery</h1>\n')
    git(dir, 'add', '-A')
    git(dir, 'commit', '-q', '-m', 'initial')
    const base = head(dir)
    await runTask(dir, 1, () => write(dir, 'hours.html', '<p>9 to 5</p>\n'))

    let core = openCore(home.path)
    const { id: projectId } = await call<{ id: number }>(core, 'projects.open', { path: dir })
    expect(await commits(core, projectId)).toEqual([])
    const made = await call<{ hash: string }>(core, 'userGit.commitTask', {
      projectId,
      task: 1,
      message: 'Add opening hours\n\nA page with the hours.',
    })
    const first = head(dir)
    expect(first.startsWith(made.hash)).toBe(true)
    await core.close()

    // A new core on the same data folder: the card's query says committed, with the hash.
    core = openCore(home.path)
    expect(await call<{ id: number }>(core, 'projects.open', { path: dir })).toMatchObject({ id: projectId })
    expect(await commits(core, projectId)).toEqual([
      {
        task: 1,
        runId: null,
        hash: first,
        shortHash: made.hash,
        branch: 'main',
        subject: 'Add opening hours',
        committedAt: expect.any(Number),
        state: 'on-branch',
      },
    ])
    // The dialog and the commit itself refuse a duplicate while HEAD holds it.
    expect((await preview(core, projectId)).refusal).toMatchObject({
      code: 'committed',
      message: `Task 1 is already committed on this branch (${made.hash}): a second commit would duplicate it.`,
    })
    expect(await core.dispatch('userGit.commitTask', { projectId, task: 1, message: 'again' })).toMatchObject(
      { ok: false, error: { kind: 'git', message: expect.stringContaining('already committed') } },
    )
    expect(git(dir, 'rev-list', '--count', `${base}..HEAD`).trim()).toBe('1')

    // Reset away, the files kept: no longer on this branch, and committing again is allowed and recorded.
    git(dir, 'reset', '-q', '--mixed', 'HEAD~1')
    expect((await commits(core, projectId))[0]).toMatchObject({ hash: first, state: 'off-branch' })
    expect((await preview(core, projectId)).refusal).toBeNull()
    const again = await call<{ hash: string }>(core, 'userGit.commitTask', {
      projectId,
      task: 1,
      message: 'Add opening hours, again',
    })
    const second = head(dir)
    expect(second).not.toBe(first)
    expect(await commits(core, projectId)).toMatchObject([
      { hash: second, shortHash: again.hash, subject: 'Add opening hours, again', state: 'on-branch' },
    ])

    // `git reset --hard HEAD~1`: the card offers committing again (the dialog then says why it cannot: the files
    // are no longer what the task left).
    git(dir, 'reset', '-q', '--hard', 'HEAD~1')
    expect((await commits(core, projectId))[0]).toMatchObject({ hash: second, state: 'off-branch' })
    expect((await preview(core, projectId)).refusal?.code).not.toBe('committed')

    // Gone from the repository altogether (reflog expired, garbage collected): missing.
    git(dir, 'update-ref', '-d', 'ORIG_HEAD')
    git(dir, 'reflog', 'expire', '--expire=now', '--all')
    git(dir, 'gc', '-q', '--prune=now')
    expect((await commits(core, projectId))[0]).toMatchObject({ hash: second, state: 'missing' })
  }, 60_000)
})
