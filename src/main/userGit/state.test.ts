import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { RepoTrust } from '../../shared/api/userGit'
import { git, initRepo, write } from '../../../tests/integration/userGit/helpers'
import { makeTempDir } from '../../../tests/helpers/tempDir'
import { readUserGitState } from './state'

const trusted: RepoTrust = {
  trusted: true,
  reason: null,
  task: null,
  message: null,
  wouldRun: [],
  fingerprint: '',
}
const book = { current: async () => trusted }

describe('readUserGitState: Ralph’s own files are not the user’s changes (#26)', () => {
  const dirs: ReturnType<typeof makeTempDir>[] = []
  afterEach(() => dirs.splice(0).forEach((d) => d.cleanup()))
  const repo = () => {
    const tmp = makeTempDir('ralph-usergit-state-')
    dirs.push(tmp)
    initRepo(tmp.path)
    write(tmp.path, 'index.html', '<h1>Hi</h1>\n')
    git(tmp.path, 'add', '-A')
    git(tmp.path, 'commit', '-q', '-m', 'initial')
    return tmp.path
  }
  const ralphFiles = (dir: string) => {
    for (const f of ['status', 'phase', 'taskCounter', 'config.json', 'plan.jsonl', 'notes/a.md'])
      write(dir, join('.ralph', f), 'x\n')
  }

  it('a repository with only Ralph’s .ralph/ folder untracked has no changes of the user’s; theirs are counted', async () => {
    const dir = repo()
    ralphFiles(dir)
    expect(
      git(dir, 'status', '--porcelain', '--untracked-files=all').split('\n').filter(Boolean),
    ).toHaveLength(6)
    // …counted apart: git lists them, so the header never calls this repository clean.
    expect(await readUserGitState(dir, book)).toMatchObject({
      repo: true,
      changedFiles: 0,
      stagedFiles: 0,
      ralphUntracked: 6,
    })
    write(dir, 'index.html', '<h1>Hello</h1>\n')
    write(dir, 'draft.md', 'notes\n')
    git(dir, 'add', 'draft.md')
    expect(await readUserGitState(dir, book)).toMatchObject({ changedFiles: 2, stagedFiles: 1 })
  }, 30_000)

  it('in a project that is a sub-folder of the repository, leaves out that project’s .ralph/ only', async () => {
    const dir = repo()
    mkdirSync(join(dir, 'site'))
    ralphFiles(join(dir, 'site'))
    // A folder merely named like it elsewhere is the user's.
    write(dir, 'docs/.ralphy/x.md', 'mine\n')
    expect(await readUserGitState(join(dir, 'site'), book)).toMatchObject({ changedFiles: 1 })
  }, 30_000)
})
