import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ShadowGit } from '../snapshots/git'
import { appendHistory, QUEUE_REF } from './history'
import { updateRefIfUnchanged } from './refUpdate'

// Real git on a real bare store: the history written in-process must be what git itself would have written.
let dir: string
let gitDir: string
const git = (...args: string[]) =>
  execFileSync('git', ['--git-dir', gitDir, ...args], { encoding: 'utf8', stdio: 'pipe' }).trim()

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ralph-history-'))
  gitDir = join(dir, 'store.git')
  execFileSync('git', ['init', '-q', '--bare', gitDir])
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

describe('appendHistory', () => {
  it('chains commits holding plan.jsonl that git reads, verifies and would have written byte for byte', async () => {
    const shadow = new ShadowGit(gitDir, dir)
    const first = await appendHistory(
      shadow,
      '{"t":"spec","spec":"a.md"}\n',
      'set spec\n\nRalph-Op: set-spec\n',
    )
    const second = await appendHistory(shadow, '{"t":"spec","spec":"b.md"}\n', 'set spec b\n')

    expect(git('rev-parse', QUEUE_REF)).toBe(second)
    expect(git('rev-list', QUEUE_REF).split('\n')).toEqual([second, first])
    expect(git('show', `${second}:plan.jsonl`)).toBe('{"t":"spec","spec":"b.md"}')
    expect(git('log', '-1', '--format=%B', first)).toBe('set spec\n\nRalph-Op: set-spec')
    git('fsck', '--strict', '--no-dangling')

    // The same tree, parent, identity, time and message through git's own commit-tree give the same name.
    const time = git('log', '-1', '--format=%ct', second)
    const env = {
      ...process.env,
      GIT_AUTHOR_NAME: shadow.identity.name,
      GIT_AUTHOR_EMAIL: shadow.identity.email,
      GIT_COMMITTER_NAME: shadow.identity.name,
      GIT_COMMITTER_EMAIL: shadow.identity.email,
      GIT_AUTHOR_DATE: `${time} +0000`,
      GIT_COMMITTER_DATE: `${time} +0000`,
    }
    const tree = git('rev-parse', `${second}^{tree}`)
    const byGit = execFileSync('git', ['--git-dir', gitDir, 'commit-tree', tree, '-p', first, '-F', '-'], {
      input: 'set spec b\n',
      env,
      encoding: 'utf8',
    }).trim()
    expect(byGit).toBe(second)
  })
})

describe('updateRefIfUnchanged', () => {
  it('moves the ref only from the expected value, and never while another writer holds the lock', async () => {
    const shadow = new ShadowGit(gitDir, dir)
    const a = await appendHistory(shadow, 'a\n', 'a\n')
    const b = await appendHistory(shadow, 'b\n', 'b\n')

    expect(await updateRefIfUnchanged(gitDir, QUEUE_REF, a, null)).toBe('moved')
    expect(await updateRefIfUnchanged(gitDir, QUEUE_REF, a, a)).toBe('moved')
    expect(git('rev-parse', QUEUE_REF)).toBe(b)

    writeFileSync(join(gitDir, `${QUEUE_REF}.lock`), '')
    expect(await updateRefIfUnchanged(gitDir, QUEUE_REF, a, b)).toBe('locked')
    expect(git('rev-parse', QUEUE_REF)).toBe(b)
    rmSync(join(gitDir, `${QUEUE_REF}.lock`))

    expect(await updateRefIfUnchanged(gitDir, QUEUE_REF, a, b)).toBe('updated')
    expect(readFileSync(join(gitDir, QUEUE_REF), 'utf8')).toBe(`${a}\n`)
    // A ref git packed away is read from packed-refs and overridden by the loose one, as git does.
    git('pack-refs', '--all')
    expect(await updateRefIfUnchanged(gitDir, QUEUE_REF, b, a)).toBe('updated')
    expect(git('rev-parse', QUEUE_REF)).toBe(b)
  })
})
