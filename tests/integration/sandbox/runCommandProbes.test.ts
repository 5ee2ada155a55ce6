// Issue 11, items 1, 2, 5 and 6: a hostile model's run_command probes, each through the real tool, real bubblewrap
// and real processes. Every probe must fail or find nothing, and the snapshot store must come through intact.
import { memoryLogger } from '../../../src/main/workspace/logFile'
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { sandboxInUse, sandboxSupport } from '../../../src/main/sandbox'
import { scratchHome } from '../../../src/main/sandbox/home'
import { processesWithArg, uniqueSleep, waitFor } from '../../../src/main/sandbox/testkit'
import { executeTool, runShellCommand, type ToolContext } from '../../../src/main/tools'
import { makeContext, put, removeDir, tempDir } from '../../../src/main/tools/testkit'
import { initRalphDir } from '../../../src/main/workspace/initRalphDir'

const STORED_KEY = 'sk-stored-planted-in-secrets-json'

let root: string
let appData: string
let ctx: ToolContext
let env: NodeJS.ProcessEnv

const run = (command: string, timeout_ms?: number) => executeTool('run_command', { command, timeout_ms }, ctx)
const gitDir = () => join(root, '.ralph/snapshots.git')
const tags = () =>
  execFileSync('git', [`--git-dir=${gitDir()}`, 'tag', '--list'], { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean)
const gone = (marker: string) => waitFor(async () => (await processesWithArg(marker)).length === 0, 10_000)

beforeAll(async () => {
  // CI installs bubblewrap (.ci/run); a machine without it must fail here, not skip the security tests.
  const support = await sandboxSupport()
  expect(
    support.kind,
    `these tests need a working bubblewrap: ${support.reason} (apt-get install bubblewrap)`,
  ).toBe('bubblewrap')
})

beforeEach(async () => {
  root = tempDir('ralph-sandbox-project-')
  appData = tempDir('ralph-sandbox-appdata-')
  writeFileSync(join(appData, 'secrets.json'), JSON.stringify({ openai: STORED_KEY }), { mode: 0o600 })
  env = {
    ...process.env,
    RALPH_HOME: appData,
    RALPH_API_KEY: 'sk-ralph-planted',
    DATABASE_URL: 'postgres://u:db-planted@h/db',
    STRIPE_KEY: 'sk_live_stripe-planted',
  }
  ctx = makeContext(root, { env, commandTimeoutMs: 20_000 })
  await initRalphDir(root, { openedFrom: 'sandbox test' })
  put(root, 'src/app.ts', 'export const a = 1\n')
  await ctx.snapshots.save({ kind: 'task-pre', task: 1, message: 'before the probes' })
})

afterEach(async () => {
  removeDir(await scratchHome(root))
  removeDir(root)
  removeDir(appData)
})

describe('run_command in the sandbox (issue 11)', () => {
  it('reports bubblewrap as the sandbox in use', async () => {
    expect(await sandboxInUse()).toBe('bubblewrap')
  })

  it("cannot read the harness's environment through /proc", async () => {
    // The parent's own environment: what /proc/$PPID/environ showed before the PID namespace.
    process.env.RALPH_API_KEY = 'sk-parent-planted'
    try {
      const r = await run(
        'cat /proc/$PPID/environ | tr "\\0" "\\n"; for f in /proc/[0-9]*/environ; do tr "\\0" "\\n" < $f; done',
      )
      expect(r.output).not.toMatch(/planted/)
    } finally {
      delete process.env.RALPH_API_KEY
    }
  })

  it('cannot read the app data folder (stored keys)', async () => {
    const r = await run(`cat "$RALPH_HOME/secrets.json"; cat ${appData}/secrets.json; ls -a ${appData}`)
    expect(r.output).not.toContain(STORED_KEY)
    expect(r.output).not.toContain('secrets.json\n')
  })

  it('sees no secret in its environment, whatever the name', async () => {
    const r = await run('env')
    expect(r.ok).toBe(true)
    expect(r.output).not.toMatch(/planted|DATABASE_URL|STRIPE_KEY|RALPH_API_KEY|RALPH_HOME/)
    expect(r.output).toMatch(/^PATH=/m)
  })

  it('passes the variables the project declares, never the app keys', async () => {
    put(
      root,
      '.ralph/config.json',
      JSON.stringify({ sandbox: { passEnv: ['DATABASE_URL', 'RALPH_API_KEY'] } }),
    )
    const r = await run('env')
    expect(r.output).toContain('DATABASE_URL=postgres://u:db-planted@h/db')
    expect(r.output).not.toMatch(/RALPH_API_KEY|STRIPE_KEY/)
  })

  it('cannot delete a snapshot tag or the snapshot store', async () => {
    expect(tags()).toContain('task-1-pre')
    const untag = await run('git --git-dir=.ralph/snapshots.git tag -d task-1-pre')
    expect(untag.ok).toBe(false)
    const remove = await run('rm -rf .ralph/snapshots.git')
    expect(remove.ok).toBe(false)
    expect(remove.output).toMatch(/Read-only file system/)
    expect(tags()).toContain('task-1-pre')
    execFileSync('git', [`--git-dir=${gitDir()}`, 'fsck', '--strict'], { stdio: 'pipe' })
    const list = await ctx.snapshots.list()
    expect(list.items.map((s) => s.tag)).toContain('task-1-pre')
  })

  it('cannot change harness files now or later: a delayed rewrite dies with the command', async () => {
    const config = readFileSync(join(root, '.ralph/config.json'), 'utf8')
    const t = uniqueSleep()
    writeFileSync(join(root, 'cfg.tmp'), '{"commands":{"test":"true"}}')
    const r = await run(
      `setsid sh -c 'sleep ${t}; cp cfg.tmp .ralph/config.json; touch rewrote' & cp cfg.tmp .ralph/config.json`,
    )
    expect(r.output).toMatch(/config\.json'?: Read-only file system/)
    // Once the writer is gone it can write nothing: no fixed wait needed to prove the file stays.
    expect(await gone(t)).toBe(true)
    expect(readFileSync(join(root, '.ralph/config.json'), 'utf8')).toBe(config)
    expect(existsSync(join(root, 'rewrote'))).toBe(false)
  })

  it('leaves no setsid daemon behind when the command ends', async () => {
    const t = uniqueSleep()
    const r = await run(`setsid sleep ${t} > /dev/null 2>&1 & echo started`)
    expect(r.ok).toBe(true)
    expect(await gone(t)).toBe(true)
  })

  it('leaves no setsid daemon behind when the command times out', async () => {
    const t = uniqueSleep()
    const r = await run(`setsid sleep ${t} > /dev/null 2>&1 & sleep 60`, 1000)
    expect(r.output).toMatch(/Killed after 1000 ms \(timeout\)/)
    expect(await gone(t)).toBe(true)
  })

  it('cannot hard-link a file from outside into the project', async () => {
    mkdirSync(join(root, 'sub'))
    const r = await run('ln /etc/hostname sub/hostname')
    expect(r.ok).toBe(false)
    expect(existsSync(join(root, 'sub/hostname'))).toBe(false)
  })

  it("cannot plant a hook or an fsmonitor in the user's .git, yet git status works", async () => {
    execFileSync('git', ['init', '-q'], { cwd: root })
    const config = readFileSync(join(root, '.git/config'), 'utf8')
    const r = await run(`echo 'touch pwned' > .git/hooks/pre-commit; git config core.fsmonitor 'touch pwned'`)
    expect(r.ok).toBe(false)
    expect(existsSync(join(root, '.git/hooks/pre-commit'))).toBe(false)
    expect(readFileSync(join(root, '.git/config'), 'utf8')).toBe(config)
    const status = await run('git status --short')
    expect(status.ok, status.output).toBe(true)
    expect(status.output).toContain('src/')
  })

  it('writes the project and the files the model owns', async () => {
    const r = await run(
      'echo hi > src/new.txt && echo complete > .ralph/status.txt && echo "# Done" > .ralph/summary.md',
    )
    expect(r.ok, r.output).toBe(true)
    expect(readFileSync(join(root, 'src/new.txt'), 'utf8')).toBe('hi\n')
    expect(r.completed).toBe(true)
  })

  it('runs the quality gates in the same sandbox (runShellCommand as runTask calls it)', async () => {
    const r = await runShellCommand('env; cat $RALPH_HOME/secrets.json; rm -rf .ralph/snapshots.git', {
      cwd: root,
      timeoutMs: 20_000,
      env,
      logger: memoryLogger(),
    })
    expect(r.exitCode).not.toBe(0)
    expect(r.output).not.toMatch(/planted/)
    expect(tags()).toContain('task-1-pre')
  })
})

describe('the network switch', () => {
  let server: Server
  let url: string
  beforeAll(async () => {
    server = createServer((_req, res) => res.end('hello-from-the-host'))
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
  })
  afterAll(() => new Promise<void>((r) => server.close(() => r())))

  const fetchCommand = () =>
    `node -e "fetch('${url}').then(r => r.text()).then(t => console.log('got', t), e => { console.log('failed', e.cause?.code ?? e.message); process.exit(1) })"`

  it('reaches the network by default', async () => {
    const r = await run(fetchCommand())
    expect(r.output).toContain('got hello-from-the-host')
  })

  it('has no network when the project turns it off', async () => {
    put(root, '.ralph/config.json', JSON.stringify({ sandbox: { network: false } }))
    const r = await run(fetchCommand())
    expect(r.ok).toBe(false)
    expect(r.output).toContain('failed')
    expect(r.output).not.toContain('hello-from-the-host')
  })
})
