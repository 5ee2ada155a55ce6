// Issue 23: no code from a repository the model touched runs outside the sandbox. A hostile model (the fake model
// server, through the real `ralph run` and its real bubblewrap sandbox) plants programs in a git repository's config
// and hooks; the app's core then reads the user's git (the "Your git" chip), previews and makes "Commit to my git".
// Every planted program would append to a marker file OUTSIDE the project: the marker must stay absent.
import { chmodSync, existsSync, mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { CommitPlan, RepoTrust, UserGitState } from '../../../src/shared/api/userGit'
import { startFakeLlmServer, type FakeLlmServer } from '../../fixtures/fakeLlmServer'
import { runCli } from '../../helpers/cli'
import { makeCore } from '../../helpers/core'
import { makeTempDir } from '../../helpers/tempDir'
import { parsed, say, tools } from '../loop/harness'
import { git, initRepo, write } from '../userGit/helpers'

type Reply = { ok: true; value: unknown } | { ok: false; error: { kind: string; message: string } }

describe('planted git programs never run on the host (issue 23)', { timeout: 180_000 }, () => {
  let llm: FakeLlmServer
  let work: ReturnType<typeof makeTempDir>
  let outside: ReturnType<typeof makeTempDir>
  let app: ReturnType<typeof makeCore>
  let marker: string

  beforeAll(async () => {
    llm = await startFakeLlmServer()
  })
  afterAll(() => llm.close())
  beforeEach(() => {
    llm.requests.length = 0
    llm.fallback = say('Nothing more.')
    work = makeTempDir('ralph-work-')
    outside = makeTempDir('ralph-outside-')
    marker = join(outside.path, 'planted-ran')
    app = makeCore()
  })
  afterEach(async () => {
    await app.cleanup()
    work.cleanup()
    outside.cleanup()
  })

  const call = async (name: string, input: unknown): Promise<Reply> =>
    (await app.core.dispatch(name as never, input as never)) as Reply
  const value = async <T>(name: string, input: unknown): Promise<T> => {
    const r = await call(name, input)
    if (!r.ok) throw new Error(`${name} failed: ${r.error.message}`)
    return r.value as T
  }
  const open = async (dir: string) => (await value<{ id: number }>('projects.open', { path: dir })).id
  const status = (projectId: number) => value<UserGitState>('userGit.status', { projectId })
  const trustOf = async (projectId: number) => {
    const s = await status(projectId)
    if (!s.repo) throw new Error('not a repository')
    return s.trust
  }
  const ran = () => (existsSync(marker) ? readFileSync(marker, 'utf8') : '')

  /** The model's script: it records that it ran (and how) in the marker outside the project. */
  const evil = (dir: string): [string, Record<string, unknown>][] => [
    ['write_file', { path: 'evil.sh', content: `#!/bin/sh\necho "ran: $0 $*" >> ${marker}\nexit 0\n` }],
    ['run_command', { command: `chmod +x ${join(dir, 'evil.sh')}` }],
  ]

  /** Every kind of plant, in the git folder `gitDir` of the repository whose work tree is `top`. */
  const plants = (top: string, gitDir = '.git') => {
    const e = join(top, 'evil.sh')
    return [
      `git config core.fsmonitor ${e}`,
      `git config core.pager '${e} pager'`,
      `git config diff.external ${e}`,
      `git config filter.evil.clean '${e} clean'`,
      `git config filter.evil.smudge '${e} smudge'`,
      `git config filter.evil.process '${e} process'`,
      'git config filter.evil.required true',
      `git config diff.evil.textconv '${e} textconv'`,
      `git config diff.evil.command '${e} diffcmd'`,
      `git config core.sshCommand '${e} ssh'`,
      `git config credential.helper '!${e} cred'`,
      `git config gpg.program ${e}`,
      'git config commit.gpgSign true',
      `for h in pre-commit prepare-commit-msg commit-msg post-commit post-checkout post-index-change reference-transaction pre-auto-gc; do cp ${e} ${gitDir}/hooks/$h; chmod +x ${gitDir}/hooks/$h; done`,
      `printf '* filter=evil diff=evil\\n' > .gitattributes`,
    ].join(' && ')
  }

  /** Runs one task through the real CLI with the scripted model's tool calls; it must complete. */
  async function task(dir: string, calls: [string, Record<string, unknown>][]) {
    llm.enqueue(
      parsed({ type: 'bugfix', title: 'Fix the page' }),
      tools(...calls, ['mark_complete', { summary: 'Fixed the page.' }]),
    )
    const result = await runCli(['run', 'fix the page', '--project', dir], {
      env: {
        RALPH_HOME: app.home,
        RALPH_PROVIDER: 'openai-compatible',
        RALPH_MODEL: 'fake-model',
        RALPH_BASE_URL: llm.baseUrl,
        RALPH_API_KEY: '',
      },
    })
    expect(result.stdout + result.stderr).toContain('complete')
    expect(result.code).toBe(0)
  }

  /** Reads, previews and commits task `n` through the core; the planted programs must never run. */
  async function readPreviewCommit(projectId: number, n: number, expectTrust: Partial<RepoTrust>) {
    const trust = await trustOf(projectId)
    expect(trust).toMatchObject(expectTrust)
    const plan = await value<CommitPlan>('userGit.previewCommit', { projectId, task: n })
    expect(plan.refusal?.code).toBe('untrusted')
    expect(plan.refusal?.message).toContain(trust.message!)
    const refused = await call('userGit.commitTask', { projectId, task: n, message: 'Task' })
    expect(refused).toMatchObject({ ok: false, error: { message: expect.stringContaining(trust.message!) } })
    const stale = await call('userGit.commitTask', {
      projectId,
      task: n,
      message: 'Task',
      untrustedConfirmed: 'not what the user saw',
    })
    expect(stale).toMatchObject({
      ok: false,
      error: { message: expect.stringMatching(/changed since you were shown/) },
    })
    expect(ran()).toBe('')
    // Confirmed: committed with none of the repository's programs run.
    const made = await value<{ hash: string; files: string[] }>('userGit.commitTask', {
      projectId,
      task: n,
      message: `Task ${n}`,
      untrustedConfirmed: trust.fingerprint,
    })
    expect(made.files).toContain('app.txt')
    await value('userGit.commits', { projectId })
    expect(ran()).toBe('')
    return { trust, plan }
  }

  it('a repository the model created: untrusted by task 1, nothing planted runs on status, preview or commit', async () => {
    const dir = join(work.path, 'site')
    mkdirSync(dir)
    write(dir, 'index.html', '<h1>Site</h1>\n')
    const projectId = await open(dir)
    expect(await status(projectId)).toEqual({ repo: false })

    await task(dir, [
      ...evil(dir),
      [
        'run_command',
        {
          command: `git init -q && git config user.name M && git config user.email m@example.com && ${plants(dir)}`,
        },
      ],
      ['write_file', { path: 'app.txt', content: 'the fix\n' }],
    ])
    expect(ran()).toBe('')
    const { trust, plan } = await readPreviewCommit(projectId, 1, {
      trusted: false,
      reason: 'created',
      task: 1,
      message: 'This folder’s git repository was created by task 1.',
    })
    // What would run is listed for the user: config programs and hooks.
    const what = trust.wouldRun.map((w) => w.what)
    for (const key of [
      'core.fsmonitor',
      'core.pager',
      'diff.external',
      'filter.evil.clean',
      'diff.evil.textconv',
      'core.sshcommand',
      'credential.helper',
      'gpg.program',
      'hook pre-commit',
      'hook post-commit',
      'hook post-checkout',
    ]) {
      expect(what.map((w) => w.toLowerCase())).toContain(key.toLowerCase())
    }
    expect(trust.wouldRun.find((w) => w.what === 'core.fsmonitor')?.command).toBe(join(dir, 'evil.sh'))
    expect(plan.trust?.trusted).toBe(false)
    // The test's own look at the commit: plumbing with fsmonitor off (git as the planted config has it would run it).
    const tree = git(dir, '-c', 'core.fsmonitor=false', 'ls-tree', '-r', '--name-only', 'HEAD').split('\n')
    expect(tree).toContain('app.txt')
    // The filter did not run: the file went in as it is on disk.
    expect(git(dir, '-c', 'core.fsmonitor=false', 'cat-file', 'blob', 'HEAD:app.txt')).toBe('the fix\n')

    // The user confirms the repository (recorded); from then on it is trusted.
    const stale = await call('userGit.trust', { projectId, fingerprint: 'old' })
    expect(stale.ok).toBe(false)
    const trusted = await value<RepoTrust>('userGit.trust', { projectId, fingerprint: trust.fingerprint })
    expect(trusted).toMatchObject({ trusted: true, task: null })
    expect((await trustOf(projectId)).trusted).toBe(true)
    expect(ran()).toBe('')
  })

  it('a trusted repository: its own pre-commit hook runs; a task that plants in an included config and the hooks folder makes it untrusted by that task', async () => {
    const dir = join(work.path, 'shop')
    mkdirSync(dir)
    initRepo(dir)
    // The user's setup: a shared config file included from .git/config, and hooks in the work tree (as husky does).
    write(dir, 'team.gitconfig', '[core]\n\tautocrlf = false\n')
    git(dir, 'config', 'include.path', '../team.gitconfig')
    git(dir, 'config', 'core.hooksPath', '.githooks')
    // It runs in the sandbox (issue 34): what it writes lands in the project, never outside it.
    const userHookRan = join(dir, 'user-hook-ran')
    write(dir, '.githooks/pre-commit', '#!/bin/sh\necho yes >> user-hook-ran\n')
    chmodSync(join(dir, '.githooks/pre-commit'), 0o755)
    write(dir, 'index.html', '<h1>Shop</h1>\n')
    git(dir, 'add', '-A')
    git(dir, 'commit', '-q', '--no-verify', '-m', 'The shop')
    const projectId = await open(dir)
    expect(await trustOf(projectId)).toMatchObject({ trusted: true, task: null })

    // Task 1 only edits a page: the repository stays trusted and Commit to my git runs the user's hook (sandboxed).
    await task(dir, [['write_file', { path: 'app.txt', content: 'first\n' }]])
    expect(await trustOf(projectId)).toMatchObject({ trusted: true })
    expect(existsSync(userHookRan)).toBe(false)
    await value('userGit.commitTask', { projectId, task: 1, message: 'Task 1' })
    expect(readFileSync(userHookRan, 'utf8')).toBe('yes\n')

    // Task 2 plants through what the sandbox leaves writable: the included config file and the hooks folder.
    await task(dir, [
      ...evil(dir),
      [
        'write_file',
        {
          path: 'team.gitconfig',
          content: `[core]\n\tfsmonitor = ${join(dir, 'evil.sh')}\n[filter "evil"]\n\tclean = ${join(dir, 'evil.sh')} clean\n`,
        },
      ],
      [
        'run_command',
        {
          command: `cp evil.sh .githooks/post-commit && chmod +x .githooks/post-commit && printf '* filter=evil\\n' > .gitattributes`,
        },
      ],
      ['write_file', { path: 'app.txt', content: 'second\n' }],
    ])
    const { trust } = await readPreviewCommit(projectId, 2, {
      trusted: false,
      reason: 'changed',
      task: 2,
      message: 'This folder’s git repository’s config or hooks changed during task 2.',
    })
    expect(trust.wouldRun.map((w) => w.what)).toEqual(
      expect.arrayContaining(['core.fsmonitor', 'filter.evil.clean', 'hook post-commit', 'hook pre-commit']),
    )
    // The confirmed commit of an untrusted repository runs no hook, not even the user's own.
    expect(readFileSync(userHookRan, 'utf8')).toBe('yes\n')
  })

  it('nested repositories: the project folder made a repository inside the user’s, and a repository below the project', async () => {
    const outer = join(work.path, 'outer')
    mkdirSync(outer)
    initRepo(outer)
    write(outer, 'README.md', 'outer\n')
    git(outer, 'add', '-A')
    git(outer, 'commit', '-q', '-m', 'outer')
    const dir = join(outer, 'app')
    mkdirSync(dir)
    write(dir, 'index.html', '<h1>App</h1>\n')
    const projectId = await open(dir)
    expect(await status(projectId)).toMatchObject({ repo: true, trust: { trusted: true } })

    // Below the project: an embedded repository with every plant; the user's repository stays trusted.
    await task(dir, [
      ...evil(dir),
      [
        'run_command',
        { command: `mkdir sub && cd sub && git init -q && ${plants(dir)} && echo x > inner.txt` },
      ],
      ['write_file', { path: 'app.txt', content: 'nested\n' }],
    ])
    expect(await trustOf(projectId)).toMatchObject({ trusted: true })
    const plan = await value<CommitPlan>('userGit.previewCommit', { projectId, task: 1 })
    expect(plan.trust?.trusted).toBe(true)
    // The snapshot leaves the embedded repository out; the user's (trusted) git commits the task's own files.
    expect(plan.flagged).toEqual([])
    const made = await value<{ files: string[] }>('userGit.commitTask', {
      projectId,
      task: 1,
      message: 'Task 1',
    })
    expect(made.files.sort()).toEqual(['app.txt', 'evil.sh'])
    expect(ran()).toBe('')

    // The project folder itself becomes a repository (openUserRepo now finds it, not the user's outer one).
    await task(dir, [
      [
        'run_command',
        {
          command: `git init -q && git config user.name M && git config user.email m@example.com && ${plants(dir)}`,
        },
      ],
      ['write_file', { path: 'app.txt', content: 'own repo\n' }],
    ])
    await readPreviewCommit(projectId, 2, {
      trusted: false,
      reason: 'created',
      task: 2,
      message: 'This folder’s git repository was created by task 2.',
    })
  })
})
