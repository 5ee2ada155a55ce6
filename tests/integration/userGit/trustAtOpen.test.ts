import { realpathSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { createCore } from '../../../src/main/api/core'
import { makeTempDir } from '../../helpers/tempDir'
import { initRepo } from './helpers'

// DESIGN.md §14: what Ralph saw of a folder's git is recorded when the project is opened, before any task and
// before anything asks for the repository's status, so a repository there at open is the user's own.
describe('the git trust record at open', () => {
  const cleanups: (() => Promise<void> | void)[] = []
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c()
  })

  it('is written by projects.open alone, trusted for a repository that was already there', async () => {
    const work = makeTempDir('ralph-trust-open-')
    const home = makeTempDir('ralph-home-')
    cleanups.push(work.cleanup, home.cleanup)
    initRepo(work.path)
    const core = createCore({ appDataDir: home.path, env: {}, host: { kind: 'web', openedFrom: 'test' } })
    cleanups.push(() => core.close())
    const opened = await core.dispatch('projects.open', { path: work.path })
    expect(opened.ok).toBe(true)

    const db = new Database(join(home.path, 'ralph.db'), { readonly: true, fileMustExist: true })
    cleanups.push(() => {
      db.close()
    })
    const row = () =>
      db
        .prepare<
          [],
          { git_dir: string | null; untrusted_task: number | null }
        >('SELECT git_dir, untrusted_task FROM user_repo_trust')
        .get()
    await expect.poll(row).toMatchObject({ untrusted_task: null })
    expect(realpathSync(row()!.git_dir!)).toBe(realpathSync(join(work.path, '.git')))
  })
})
