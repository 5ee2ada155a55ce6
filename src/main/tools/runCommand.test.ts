import { memoryLogger } from '../workspace/logFile'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { scratchHome } from '../sandbox/home'
import { processesWithArg, uniqueSleep, waitFor } from '../sandbox/testkit'
import { commandEnv, isSecretName } from './env'
import { executeTool } from './index'
import { captureHarnessFiles, restoreHarnessFiles } from './ralphFiles'
import { runShellCommand } from './shell'
import { makeContext, put, removeDir, tempDir } from './testkit'
import type { ToolContext } from './types'

let root: string
let ctx: ToolContext

beforeEach(() => {
  root = tempDir()
  ctx = makeContext(root)
})
afterEach(async () => {
  removeDir(await scratchHome(root))
  removeDir(root)
})

const run = (args: unknown, c = ctx) => executeTool('run_command', args, c)

// PIDs inside the sandbox are not the host's: a process is found on the host by its unique sleep duration.
const gone = (marker: string) => waitFor(async () => (await processesWithArg(marker)).length === 0)

describe('run_command', () => {
  it('runs in the project root and reports exit code and output', async () => {
    put(root, 'hello.txt', 'hi')
    const r = await run({ command: 'pwd; cat hello.txt; echo oops >&2' })
    expect(r).toMatchObject({ ok: true, changedFiles: [], completed: false })
    expect(r.output).toContain(`$ pwd; cat hello.txt; echo oops >&2\nExit code: 0`)
    expect(r.output).toContain(`--- stdout ---\n${root}\nhi`)
    expect(r.output).toContain('--- stderr ---\noops')
  })

  it('returns a non-zero exit as an error result', async () => {
    const r = await run({ command: 'exit 3' })
    expect(r.ok).toBe(false)
    expect(r.output).toContain('Exit code: 3')
    expect(r.output).toContain('(no output)')
  })

  it('kills the command and its children at the timeout and returns promptly', async () => {
    const t = uniqueSleep()
    const r = await run({ command: `sleep ${t} & sleep 30`, timeout_ms: 1000 })
    expect(r.ok).toBe(false)
    expect(r.output).toMatch(/Killed after 1000 ms \(timeout\)/)
    expect(await gone(t)).toBe(true)
  })

  it('uses the context timeout by default', async () => {
    const r = await run({ command: 'sleep 30' }, makeContext(root, { commandTimeoutMs: 1000 }))
    expect(r.output).toMatch(/Killed after 1000 ms/)
  })

  it('stops when the signal aborts, killing the whole group', async () => {
    const ac = new AbortController()
    const c = makeContext(root, { signal: ac.signal })
    const t = uniqueSleep()
    const pending = run({ command: `sleep ${t} & wait` }, c)
    expect(await waitFor(async () => (await processesWithArg(t)).length > 0)).toBe(true)
    ac.abort()
    const r = await pending
    expect(r.ok).toBe(false)
    expect(r.output).toMatch(/cancelled/)
    expect(await gone(t)).toBe(true)
  })

  it('does not start when already aborted', async () => {
    const ac = new AbortController()
    ac.abort()
    const r = await run({ command: 'touch ran.txt' }, makeContext(root, { signal: ac.signal }))
    expect(r.ok).toBe(false)
    expect(existsSync(join(root, 'ran.txt'))).toBe(false)
  })

  it('stops background jobs left behind when the command ends', async () => {
    const t = uniqueSleep()
    const r = await run({ command: `sleep ${t} &` })
    expect(r.ok).toBe(true)
    expect(await gone(t)).toBe(true)
  })

  it('gives the command only allowlisted variables, plus what the project passes', async () => {
    const env = {
      PATH: process.env.PATH,
      OPENAI_API_KEY: 'sk-planted-openai',
      ANTHROPIC_API_KEY: 'sk-planted-anthropic',
      RALPH_API_KEY: 'sk-planted-ralph',
      GITHUB_TOKEN: 'ghp-planted',
      DB_PASSWORD: 'planted-password',
      my_secret_thing: 'planted-secret',
      HARMLESS: 'visible-value',
    }
    put(root, '.ralph/config.json', JSON.stringify({ sandbox: { passEnv: ['HARMLESS', 'RALPH_API_KEY'] } }))
    const r = await run({ command: 'env' }, makeContext(root, { env }))
    expect(r.output).not.toMatch(/planted/)
    expect(r.output).toContain('HARMLESS=visible-value')
    expect(r.output).toMatch(/^HOME=.*ralph-sandbox-/m)
  })

  it('strips secrets from process.env when no env is given', async () => {
    process.env.OPENAI_API_KEY_TEST_PLANT = 'sk-from-process-env'
    try {
      const r = await run({ command: 'env' })
      expect(r.output).not.toContain('sk-from-process-env')
    } finally {
      delete process.env.OPENAI_API_KEY_TEST_PLANT
    }
  })

  it('truncates large output keeping head and tail with a note', async () => {
    const r = await run({ command: 'seq 1 100000' })
    expect(r.output).toMatch(/\n1\n2\n3\n/)
    expect(r.output).toContain('100000')
    expect(r.output).toMatch(/omitted .* redirect/)
    expect(r.output.length).toBeLessThan(25_000)
  })

  it('keeps harness files read-only, and notices completion via the shell', async () => {
    put(root, '.ralph/config.json', '{"maxIterations":50}')
    put(root, '.ralph/status.txt', 'running\n')
    const r = await run({
      command:
        'echo "{}" > .ralph/config.json; echo x > .ralph/phase.txt; printf complete > .ralph/status.txt',
    })
    expect(readFileSync(join(root, '.ralph/config.json'), 'utf8')).toBe('{"maxIterations":50}')
    expect(existsSync(join(root, '.ralph/phase.txt'))).toBe(false)
    expect(r.output).toMatch(/config\.json: Read-only file system/)
    expect(r.completed).toBe(true)
  })

  it('puts back harness files changed behind its back (the second line of defence)', async () => {
    put(root, '.ralph/config.json', '{"maxIterations":50}')
    const before = await captureHarnessFiles(root)
    put(root, '.ralph/config.json', '{}')
    put(root, '.ralph/phase.txt', 'x')
    expect((await restoreHarnessFiles(root, before)).sort()).toEqual([
      '.ralph/config.json',
      '.ralph/phase.txt',
    ])
    expect(readFileSync(join(root, '.ralph/config.json'), 'utf8')).toBe('{"maxIterations":50}')
    expect(existsSync(join(root, '.ralph/phase.txt'))).toBe(false)
  })

  it('clamps the timeout and rejects empty commands', async () => {
    expect((await run({ command: '  ' })).ok).toBe(false)
    const r = await run({ command: 'true', timeout_ms: 99_999_999 })
    expect(r.output).toMatch(/capped at 600000/)
  })
})

describe('runShellCommand (for the quality gates)', () => {
  it('returns exit code, combined output and timeout flags', async () => {
    const ok = await runShellCommand('echo out; echo err >&2; exit 2', {
      cwd: root,
      timeoutMs: 10_000,
      logger: memoryLogger(),
    })
    expect(ok).toMatchObject({ exitCode: 2, timedOut: false, aborted: false, output: 'out\nerr\n' })
    const slow = await runShellCommand('sleep 30', { cwd: root, timeoutMs: 300, logger: memoryLogger() })
    expect(slow).toMatchObject({ exitCode: null, timedOut: true })
  })
})

describe('secret names', () => {
  it('recognises secrets by name', () => {
    for (const n of [
      'OPENAI_API_KEY',
      'RALPH_API_KEY',
      'NPM_TOKEN',
      'AWS_SECRET_ACCESS_KEY',
      'PGPASSWORD',
      'my_apikey',
    ])
      expect(isSecretName(n), n).toBe(true)
    for (const n of ['PATH', 'HOME', 'LANG', 'XAUTHORITY', 'NODE_ENV']) expect(isSecretName(n), n).toBe(false)
  })

  it('sets non-interactive defaults and drops git redirections', () => {
    const env = commandEnv({ PATH: '/bin', GIT_DIR: '/elsewhere' })
    expect(env).toMatchObject({ PATH: '/bin', GIT_TERMINAL_PROMPT: '0', PAGER: 'cat' })
    expect(env.GIT_DIR).toBeUndefined()
  })

  it('builds the environment from an allowlist, not a denylist', () => {
    const env = commandEnv(
      {
        PATH: '/bin',
        LANG: 'C.UTF-8',
        LC_ALL: 'C',
        HOME: '/home/me',
        DATABASE_URL: 'postgres://u:pass@h/db',
        STRIPE_KEY: 'sk_live_x',
        RALPH_API_KEY: 'sk-ralph',
        RALPH_HOME: '/home/me/.config/ralph-studio',
        AWS_SECRET_ACCESS_KEY: 'aws-secret',
        CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat',
      },
      {
        home: '/scratch',
        // A cloned .ralph/config.json naming the engines' cloud and login credentials gets none of them.
        passEnv: [
          'DATABASE_URL',
          'RALPH_API_KEY',
          'RALPH_HOME',
          'MISSING',
          'AWS_SECRET_ACCESS_KEY',
          'CLAUDE_CODE_OAUTH_TOKEN',
        ],
      },
    )
    expect(env).toEqual({
      PATH: '/bin',
      LANG: 'C.UTF-8',
      LC_ALL: 'C',
      HOME: '/scratch',
      DATABASE_URL: 'postgres://u:pass@h/db',
      GIT_TERMINAL_PROMPT: '0',
      GIT_PAGER: 'cat',
      PAGER: 'cat',
      CI: '1',
      HUSKY: '0',
    })
  })
})
