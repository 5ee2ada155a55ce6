// Hostile model, issue 23 "nothing hangs": a named pipe where git or the file tools read, and SIGTERM while the
// model's command or git runs. Real CLI, real bwrap sandbox, real git, the fake model server over HTTP.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeEach, describe, expect, it } from 'vitest'
import { sandboxSupport } from '../../../src/main/sandbox'
import { processesWithArg, uniqueSleep, waitFor } from '../../../src/main/sandbox/testkit'
import { RALPH_BIN, runCli } from '../../helpers/cli'
import type { FakeLlmServer } from '../../fixtures/fakeLlmServer'
import { useFakeLlmCli } from '../../helpers/fakeLlmCli'
import { parsed, say, tools } from '../loop/harness'

/** Every tool result the model was sent, in order (the tool messages of the last chat request). */
function toolResults(llm: FakeLlmServer): string[] {
  const chats = llm.requests.filter((r) => r.path === '/v1/chat/completions')
  const last = chats.at(-1)?.body as { messages: { role: string; content: unknown }[] } | undefined
  return (last?.messages ?? [])
    .filter((m) => m.role === 'tool')
    .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
}

function start(args: string[], env: NodeJS.ProcessEnv): { child: ChildProcess; out: () => string } {
  const child = spawn(process.execPath, [RALPH_BIN, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()))
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()))
  return { child, out: () => out }
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode)
    else child.once('exit', (code) => resolve(code))
  })
}

describe('hostile: nothing hangs (issue 23)', { timeout: 120_000 }, () => {
  // CI installs bubblewrap (.ci/run): a machine without it must fail here, not skip these security tests.
  it('runs where the model’s commands are sandboxed', async () => {
    expect((await sandboxSupport()).kind).toBe('bubblewrap')
  })

  const t = useFakeLlmCli()
  beforeEach(() => {
    mkdirSync(join(t.project.path, 'src'))
    writeFileSync(join(t.project.path, 'src/app.ts'), 'export const app = 1\n')
  })

  it('mkfifo .gitignore by the model: the task ends with a message naming the pipe, nothing waits on it', async () => {
    t.llm.enqueue(
      parsed({ type: 'bugfix' }),
      tools(['run_command', { command: 'mkfifo .gitignore && mkfifo src/.gitattributes' }]),
      tools(['mark_complete', { summary: 'Done.' }]),
    )
    const started = Date.now()
    const result = await runCli(['run', 'fix it', '--project', t.project.path], { env: t.env })
    const output = result.stdout + result.stderr
    // Ended on its own, well inside the budget (git's own time limit is minutes: the pipe was found first).
    expect(Date.now() - started).toBeLessThan(60_000)
    expect(result.code).toBe(4)
    expect(output).toContain('.gitignore (a named pipe (FIFO))')
    expect(output).toContain('src/.gitattributes (a named pipe (FIFO))')
    expect(output).toMatch(/Remove them \(rm /)
    // No git was left waiting on the pipe.
    expect(await processesWithArg(`--work-tree=${t.project.path}`)).toEqual([])

    // Every later command says so too, rather than hanging; once the pipes are gone, saving works again.
    const save = await runCli(['snapshot', 'save', '--project', t.project.path], { env: t.env })
    expect(save.code).not.toBe(0)
    expect(save.stderr).toContain('.gitignore (a named pipe (FIFO))')
    execFileSync('rm', [join(t.project.path, '.gitignore'), join(t.project.path, 'src/.gitattributes')])
    expect((await runCli(['snapshot', 'save', '--project', t.project.path], { env: t.env })).code).toBe(0)
    // Killed with SIGTERM, git removed its index.lock itself: the next operation found nothing to wait out.
    expect(save.stderr).not.toContain('stale index.lock')
    expect(Date.now() - started).toBeLessThan(30_000)
  })

  it('a FIFO among the files: list_files, grep and read_file answer at once with a note', async () => {
    // Git passes over a FIFO that is not named like a file it reads: the pre-task snapshot is saved.
    execFileSync('mkfifo', [join(t.project.path, 'src/data.txt')])
    t.llm.enqueue(
      parsed({ type: 'bugfix' }),
      tools(
        ['run_command', { command: 'mkfifo src/.gitignore' }],
        ['list_files', {}],
        ['grep', { pattern: 'app' }],
        ['grep', { pattern: 'x', path: 'src/data.txt' }],
        ['read_file', { path: 'src/data.txt' }],
      ),
      say('Looked around.'),
    )
    const result = await runCli(['run', 'look', '--max-iterations', '1', '--project', t.project.path], {
      env: t.env,
    })
    // The iteration ran to its end (max iterations), the tools having answered.
    expect(result.code).toBe(4)
    const [mkfifo, list, grep, grepFifo, read] = toolResults(t.llm)
    expect(mkfifo).toContain('Exit code: 0')
    expect(list).toContain('data.txt (not a regular file')
    expect(list).toContain('src/.gitignore is a named pipe (FIFO), not a regular file')
    expect(grep).toContain('src/app.ts:1: export const app = 1')
    expect(grep).toContain('src/data.txt is a named pipe (FIFO), not a regular file')
    expect(grepFifo).toContain('src/data.txt is a named pipe (FIFO), not a regular file')
    expect(read).toContain('src/data.txt is a named pipe (FIFO), not a regular file')
  })

  it("SIGTERM while the model's command sleeps: exit 130 within 5 s, the command gone", async () => {
    const sleep = uniqueSleep()
    t.llm.enqueue(parsed({ type: 'bugfix' }), tools(['run_command', { command: `sleep ${sleep}` }]))
    const run = start(['run', 'wait', '--project', t.project.path], t.env)
    expect(await waitFor(async () => (await processesWithArg(sleep)).length > 0, 60_000)).toBe(true)
    await expectStoppedBySigterm(run, sleep, 5000)
  })

  /** Sends SIGTERM: `ralph` exits 130 within `withinMs`, and no process running `sleep <unique>` is left. */
  async function expectStoppedBySigterm(run: ReturnType<typeof start>, sleep: string, withinMs: number) {
    const signalled = Date.now()
    run.child.kill('SIGTERM')
    const code = await exited(run.child)
    expect(Date.now() - signalled).toBeLessThan(withinMs)
    expect(code).toBe(130)
    expect(await processesWithArg(sleep)).toEqual([])
  }

  /** `ralph snapshot save` with a git whose `status` first runs `sleep <unique>` (a busy git with a child). */
  async function saveWithBusyGit(): Promise<{ run: ReturnType<typeof start>; sleep: string }> {
    // git is the real one behind a wrapper that, for `status`, first starts a child: it stands in for a git busy
    // on a huge tree, children included.
    const bin = join(t.home.path, 'bin')
    mkdirSync(bin, { recursive: true })
    const sleep = uniqueSleep()
    const realGit = execFileSync('sh', ['-c', 'command -v git']).toString().trim()
    writeFileSync(
      join(bin, 'git'),
      `#!/bin/sh\ncase " $* " in *" status "*) sleep ${sleep} ;; esac\nexec ${realGit} "$@"\n`,
    )
    chmodSync(join(bin, 'git'), 0o755)
    const withGit = { ...t.env, PATH: `${bin}:${process.env.PATH ?? ''}` }
    expect((await runCli(['init', '--project', t.project.path], { env: withGit })).code).toBe(0)
    const run = start(['snapshot', 'save', '--project', t.project.path], withGit)
    expect(await waitFor(async () => (await processesWithArg(sleep)).length > 0, 60_000)).toBe(true)
    return { run, sleep }
  }

  it('SIGTERM while git runs: exit 130 within 5 s, git and its children gone', async () => {
    const { run, sleep } = await saveWithBusyGit()
    await expectStoppedBySigterm(run, sleep, 5000)
  })

  it('a second SIGTERM exits at once, git and its children gone', async () => {
    const { run, sleep } = await saveWithBusyGit()
    run.child.kill('SIGTERM')
    // Two signals sent at once arrive as one: the second is sent once the first was handled.
    expect(await waitFor(async () => run.out().includes('ralph: stopping (SIGTERM)'), 5000)).toBe(true)
    // Well under the 3 s the first signal alone allows for a clean stop.
    await expectStoppedBySigterm(run, sleep, 2000)
  })
})
