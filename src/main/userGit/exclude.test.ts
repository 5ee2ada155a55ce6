import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { RepoTrust } from '../../shared/api/userGit'
import { git, initRepo, write } from '../../../tests/integration/userGit/helpers'
import { makeTempDir } from '../../../tests/helpers/tempDir'
import { excludeRalph, ralphExcludeLine, withExcludeLine } from './exclude'
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

describe('the exclude line', () => {
  it('anchors the project’s .ralph/ at the repository’s top and escapes glob characters', () => {
    expect(ralphExcludeLine('')).toBe('/.ralph/')
    expect(ralphExcludeLine('apps/site/')).toBe('/apps/site/.ralph/')
    expect(ralphExcludeLine('a*b?[c]/')).toBe('/a\\*b\\?\\[c]/.ralph/')
  })

  it('is added once, under a comment, after what the file held', () => {
    expect(withExcludeLine('', '/.ralph/')).toMatch(/^# Ralph Studio.*\n\/\.ralph\/\n$/)
    expect(withExcludeLine('*.log', '/.ralph/')).toMatch(/^\*\.log\n# Ralph Studio.*\n\/\.ralph\/\n$/)
    expect(withExcludeLine('*.log\n/.ralph/\n', '/.ralph/')).toBeNull()
    expect(withExcludeLine('  /.ralph/  \r\n', '/.ralph/')).toBeNull()
  })
})

// On real repositories: the state counts Ralph's untracked files apart (never "clean" while git lists them), and
// the exclude action makes `git status` quiet about them without touching anything the user shares.
describe('excludeRalph and the state on a real repository', () => {
  const dirs: ReturnType<typeof makeTempDir>[] = []
  afterEach(() => dirs.splice(0).forEach((d) => d.cleanup()))
  const temp = () => {
    const tmp = makeTempDir('ralph-usergit-exclude-')
    dirs.push(tmp)
    return tmp.path
  }
  const repo = () => {
    const dir = temp()
    initRepo(dir)
    write(dir, 'index.html', '<h1>Hi</h1>\n')
    git(dir, 'add', '-A')
    git(dir, 'commit', '-q', '-m', 'initial')
    return dir
  }
  const ralphFiles = (dir: string) => {
    for (const f of ['status.txt', 'phase.txt', 'config.json', 'notes/a.md'])
      write(dir, join('.ralph', f), 'x\n')
    // Ralph's own .gitignore keeps its snapshot store out: git never lists what it ignores.
    write(dir, '.ralph/.gitignore', 'snapshots.git/\n')
    write(dir, '.ralph/snapshots.git/HEAD', 'ref: refs/heads/main\n')
  }
  const porcelain = (dir: string) =>
    git(dir, 'status', '--porcelain', '--untracked-files=all').split('\n').filter(Boolean)

  it('counts Ralph’s untracked files apart; after the exclude git lists none, .gitignore untouched', async () => {
    const dir = repo()
    ralphFiles(dir)
    expect(porcelain(dir)).toHaveLength(5)
    expect(await readUserGitState(dir, book)).toMatchObject({ changedFiles: 0, ralphUntracked: 5 })

    const done = await excludeRalph(dir)
    expect(done).toEqual({ file: join(dir, '.git', 'info', 'exclude'), line: '/.ralph/', added: true })
    expect(readFileSync(done.file, 'utf8')).toContain('\n/.ralph/\n')
    expect(porcelain(dir)).toEqual([])
    expect(await readUserGitState(dir, book)).toMatchObject({ changedFiles: 0, ralphUntracked: 0 })
    expect(existsSync(join(dir, '.gitignore'))).toBe(false)
    expect(existsSync(join(dir, '.ralph', '.gitignore'))).toBe(true)
    // Nothing else of the user's repository moved: no commit, nothing staged.
    expect(git(dir, 'rev-list', '--count', 'HEAD').trim()).toBe('1')
    expect(git(dir, 'diff', '--cached', '--name-only')).toBe('')

    // Asked again: nothing written twice.
    const text = readFileSync(done.file, 'utf8')
    expect(await excludeRalph(dir)).toMatchObject({ added: false })
    expect(readFileSync(done.file, 'utf8')).toBe(text)
  }, 30_000)

  it('in a project that is a sub-folder of the repository, hides that project’s .ralph/ only', async () => {
    const dir = repo()
    mkdirSync(join(dir, 'site'))
    ralphFiles(join(dir, 'site'))
    write(dir, 'other/.ralph/status.txt', 'another project\n')
    expect(await readUserGitState(join(dir, 'site'), book)).toMatchObject({
      changedFiles: 1,
      ralphUntracked: 5,
    })
    expect(await excludeRalph(join(dir, 'site'))).toMatchObject({ line: '/site/.ralph/', added: true })
    expect(porcelain(dir)).toEqual(['?? other/.ralph/status.txt'])
    expect(await readUserGitState(join(dir, 'site'), book)).toMatchObject({
      changedFiles: 1,
      ralphUntracked: 0,
    })
  }, 30_000)

  it('in a linked worktree, writes the exclude file git reads for it (the main repository’s)', async () => {
    const main = repo()
    const linked = join(temp(), 'wt')
    git(main, 'worktree', 'add', '-q', linked)
    ralphFiles(linked)
    const done = await excludeRalph(linked)
    expect(done.file).toBe(join(main, '.git', 'info', 'exclude'))
    expect(porcelain(linked)).toEqual([])
  }, 30_000)

  it('refuses outside a repository, saying nothing was changed', async () => {
    const dir = temp()
    ralphFiles(dir)
    await expect(excludeRalph(dir)).rejects.toMatchObject({
      kind: 'not-found',
      message: expect.stringContaining('not in a git repository'),
    })
  })
})
