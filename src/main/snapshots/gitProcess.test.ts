// Time limits, aborts and the stall check of shadow-git calls, with real git and real named pipes.
import { execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { isAppError } from '../../shared/errors'
import { processesWithArg, uniqueSleep, waitFor } from '../sandbox/testkit'
import { findBlockingFiles } from './blockingFiles'
import { SnapshotEngine } from './engine'
import { GIT_TIMEOUT_BASE_MS, GIT_TIMEOUT_STORE_WIDE_MS, ShadowGit, gitTimeoutMs, shadowEnv } from './git'
import { liveGitCount } from './gitProcess'
import { removeDir, tempProject, write } from './testkit'
import { memoryLogger } from '../workspace/logFile'

const posix = process.platform !== 'win32'
let dir: string
let engine: SnapshotEngine
beforeEach(async () => {
  dir = tempProject()
  write(dir, 'src/a.ts', 'a\n')
  engine = new SnapshotEngine({ projectDir: dir, logger: memoryLogger() })
  await engine.open()
  await engine.save({ kind: 'manual' })
})
afterEach(() => removeDir(dir))

const shadow = () => new ShadowGit(join(dir, '.ralph/snapshots.git'), dir)
const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected a failure')
    },
    (err: unknown) => err,
  )

describe('shadow-git calls', () => {
  it('scale their time limit with the operation', () => {
    expect(gitTimeoutMs(['status', '-z'])).toBe(GIT_TIMEOUT_BASE_MS)
    expect(gitTimeoutMs(['-c', 'core.bigFileThreshold=1', 'update-index', '--stdin'], 'a\0b\0c\0')).toBe(
      GIT_TIMEOUT_BASE_MS + 60,
    )
    expect(gitTimeoutMs(['--git-dir=x', 'repack', '-a', '-d'])).toBe(GIT_TIMEOUT_STORE_WIDE_MS)
  })

  it('run with the code-running settings neutralised, for child git processes too', () => {
    const env = shadowEnv({ PATH: process.env.PATH })
    const out = execFileSync('git', ['config', '--get', 'core.fsmonitor'], { env, cwd: dir }).toString()
    expect(out.trim()).toBe('false')
    // A git started by git (here through an alias) sees them as well.
    const nested = execFileSync(
      'git',
      ['-c', 'alias.show-hooks=!git config --get core.hooksPath', 'show-hooks'],
      { env, cwd: dir },
    ).toString()
    expect(nested.trim()).toBe(process.platform === 'win32' ? 'nul' : '/dev/null')
  })

  it.skipIf(!posix)('are stopped at their time limit with a message naming the command', async () => {
    execFileSync('mkfifo', [join(dir, 'src/.gitignore')])
    const err = await failure(shadow().run(['status', '--porcelain'], { timeoutMs: 200 }))
    expect(isAppError(err, 'git')).toBe(true)
    expect((err as Error).message).toMatch(
      /^"git status --porcelain" did not finish within 0 s and was stopped/,
    )
    expect(await waitFor(async () => liveGitCount() === 0)).toBe(true)
    // SIGTERM let git remove its index.lock.
    expect(existsSync(join(dir, '.ralph/snapshots.git/index.lock'))).toBe(false)
  })

  it.skipIf(!posix)('are stopped by their abort signal', async () => {
    execFileSync('mkfifo', [join(dir, 'src/.gitignore')])
    const controller = new AbortController()
    const pending = failure(shadow().run(['status', '--porcelain'], { signal: controller.signal }))
    controller.abort()
    expect(isAppError(await pending, 'cancelled')).toBe(true)
    expect(await waitFor(async () => liveGitCount() === 0)).toBe(true)
  })

  it.skipIf(!posix)('waiting on a named pipe git reads are stopped with a message naming it', async () => {
    mkdirSync(join(dir, 'node_modules/x'), { recursive: true })
    execFileSync('mkfifo', [join(dir, 'node_modules/x/.gitignore')]) // never entered by git: not reported
    execFileSync('mkfifo', [join(dir, 'src/.gitignore')])
    write(dir, 'src/b.ts', 'b\n')
    const err = await failure(engine.save({ kind: 'manual' }))
    expect(isAppError(err, 'git')).toBe(true)
    expect((err as Error).message).toContain(
      'The snapshot was stopped: git status was waiting on src/.gitignore (a named pipe (FIFO)). Git reads every folder',
    )
    expect((err as Error).message).toContain('rm "src/.gitignore"')
    expect(await findBlockingFiles(dir, join(dir, '.ralph/snapshots.git'))).toEqual([
      { path: 'src/.gitignore', kind: 'a named pipe (FIFO)' },
    ])
  })

  it.skipIf(!posix)(
    'finds nothing in a nested repository, and nothing where the names are files',
    async () => {
      mkdirSync(join(dir, 'vendor/lib/.git'), { recursive: true })
      execFileSync('mkfifo', [join(dir, 'vendor/lib/.gitignore')])
      write(dir, '.gitignore', 'dist/\n')
      expect(await findBlockingFiles(dir, join(dir, '.ralph/snapshots.git'))).toEqual([])
    },
  )

  it.skipIf(!posix)('die with the process that started them, children included', async () => {
    // A child process runs one long shadow-git call that has a child of its own, then exits.
    const marker = uniqueSleep()
    const module = (name: string) => JSON.stringify(new URL(name, import.meta.url).pathname)
    const script = `
      const { ShadowGit } = await import(${module('./git.ts')})
      const { processesWithArg, waitFor } = await import(${module('../sandbox/testkit.ts')})
      const git = new ShadowGit(${JSON.stringify(join(dir, '.ralph/snapshots.git'))}, ${JSON.stringify(dir)})
      git.run(['-c', 'alias.x=!sleep ${marker}; true', 'x'], { timeoutMs: 600000 }).catch(() => {})
      const seen = await waitFor(async () => (await processesWithArg('${marker}')).length > 0, 30000)
      process.stdout.write(seen ? 'seen' : 'not seen')
      process.exit(0)
    `
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let out = ''
    child.stdout.on('data', (c: Buffer) => (out += c.toString()))
    await new Promise((resolve) => child.once('close', resolve))
    expect(out).toBe('seen')
    expect(await waitFor(async () => (await processesWithArg(marker)).length === 0)).toBe(true)
  })
})

describe('staging', () => {
  it.skipIf(!posix)(
    'reports a tracked file replaced by a named pipe as skipped, without opening it',
    async () => {
      write(dir, 'src/data.txt', 'data\n')
      await engine.save({ kind: 'manual' })
      execFileSync('rm', [join(dir, 'src/data.txt')])
      execFileSync('mkfifo', [join(dir, 'src/data.txt')])
      writeFileSync(join(dir, 'src/a.ts'), 'b\n')
      const saved = await engine.save({ kind: 'manual' })
      expect(saved.skipped).toContainEqual({ path: 'src/data.txt', reason: 'unreadable' })
    },
  )
})
