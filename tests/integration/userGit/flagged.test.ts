import { memoryLogger } from '../../../src/main/workspace/logFile'
import { afterEach, describe, expect, it } from 'vitest'
import { isAppError } from '../../../src/shared/errors'
import { commitTask, planTaskCommit, taskSnapshotsOf, type CommitTaskInput } from '../../../src/main/userGit'
import type { SnapshotEngine } from '../../../src/main/snapshots'
import { makeTempDir } from '../../helpers/tempDir'
import { commitFiles, git, head, initRepo, runTask, trustBook, write } from './helpers'

// "Commit to my git" runs verification's checks (blocked paths, secrets in the added lines) and refuses a flagged
// file unless the user lets that file in: it used to commit .env, deploy.pem and a GitHub token without a word.
describe('Commit to my git refuses blocked paths and secrets unless overridden per file', () => {
  const dirs: { cleanup(): void }[] = []
  afterEach(() => {
    for (const d of dirs.splice(0)) d.cleanup()
  })

  // A token of real shape: secretlint passes a repeated pattern (ghp_ + 'A1b2…' ×4) as a placeholder.
  const TOKEN = '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'
  const book = trustBook()
  const input = (dir: string, engine: SnapshotEngine, allow?: string[]): CommitTaskInput => ({
    projectDir: dir,
    task: 1,
    snapshots: taskSnapshotsOf(engine),
    trust: book,
    allow,
  })

  async function project() {
    const tmp = makeTempDir('ralph-flagged-')
    dirs.push(tmp)
    const dir = tmp.path
    initRepo(dir)
    write(dir, 'src/config.js', 'export const url = "https://example.com"\n')
    git(dir, 'add', '-A')
    git(dir, 'commit', '-q', '-m', 'initial')
    const engine = await runTask(dir, 1, () => {
      write(dir, '.env', 'DATABASE_URL=postgres://localhost/app\n')
      write(dir, 'deploy.pem', '-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----\n')
      write(
        dir,
        'src/config.js',
        `export const url = "https://example.com"\nexport const token = "${TOKEN}"\n`,
      )
      write(dir, 'README.md', 'How to deploy.\n')
    })
    return { dir, engine }
  }

  it('lists each flagged file and why (the secret masked), and refuses the commit', async () => {
    const { dir, engine } = await project()
    const before = head(dir)
    const plan = await planTaskCommit(input(dir, engine))
    expect(plan.refusal).toMatchObject({ code: 'flagged' })
    expect(plan.refusal!.paths.sort()).toEqual(['.env', 'deploy.pem', 'src/config.js'])
    const byPath = new Map(plan.flagged.map((f) => [`${f.path} ${f.reason}`, f]))
    expect(byPath.get('.env blocked-path')?.detail).toMatch(/\.env/)
    expect(byPath.get('deploy.pem blocked-path')?.detail).toMatch(/\*\.pem/)
    expect(byPath.get('src/config.js secret')?.detail).toMatch(/line 2: GitHub token \(ghp_…/)
    expect(plan.flagged.every((f) => !f.allowed)).toBe(true)
    // Never the secret itself.
    expect(JSON.stringify(plan)).not.toContain(TOKEN)
    expect(plan.files.map((f) => f.path).sort()).toEqual(['.env', 'README.md', 'deploy.pem', 'src/config.js'])

    const err = await commitTask({ logger: memoryLogger(), ...input(dir, engine), message: 'Task 1' }).then(
      () => null,
      (e: unknown) => e,
    )
    expect(isAppError(err)).toBe(true)
    expect((err as Error).message).toMatch(/\.env, deploy\.pem, src\/config\.js are not committed/)
    expect(head(dir)).toBe(before)

    // Overriding two of three is still a refusal, for the third.
    const partly = await planTaskCommit(input(dir, engine, ['.env', 'deploy.pem']))
    expect(partly.refusal).toMatchObject({ code: 'flagged', paths: ['src/config.js'] })
    await expect(
      commitTask({
        logger: memoryLogger(),
        ...input(dir, engine, ['.env', 'deploy.pem']),
        message: 'Task 1',
      }),
    ).rejects.toThrow(/src\/config\.js is not committed/)
    expect(head(dir)).toBe(before)
  }, 60_000)

  it('commits once the user lets each flagged file in', async () => {
    const { dir, engine } = await project()
    const allow = ['.env', 'deploy.pem', 'src/config.js']
    const plan = await planTaskCommit(input(dir, engine, allow))
    expect(plan.refusal).toBeNull()
    expect(plan.flagged.every((f) => f.allowed)).toBe(true)
    await commitTask({ logger: memoryLogger(), ...input(dir, engine, allow), message: 'Task 1' })
    expect(commitFiles(dir)).toEqual(['.env', 'README.md', 'deploy.pem', 'src/config.js'])
  }, 60_000)
})
