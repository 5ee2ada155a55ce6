import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { sandboxSupport } from '../../../src/main/sandbox'
import { processesWithArg, waitFor } from '../../../src/main/sandbox/testkit'
import { runCli } from '../../helpers/cli'
import { useFakeLlmCli } from '../../helpers/fakeLlmCli'
import { done, parsed, tools } from '../loop/harness'

const LIMITS = { memoryMb: 256, processes: 64, fileSizeMb: 64, tmpMb: 16 }
const MB = 1024 * 1024

/**
 * A hostile model's commands try to exhaust the machine: a fork bomb, a memory bomb (a shell string doubling
 * itself), a file far over the size limit, and /tmp filled. Each ends THAT command with a tool error naming the
 * limit; the next command of the same task runs; nothing the bombs started survives. Real CLI, real bwrap.
 */
describe('hostile: the model’s commands have limits', { timeout: 180_000 }, () => {
  const t = useFakeLlmCli()

  /** The last request's tool results, in order (each request repeats the conversation so far). */
  const lastToolResults = (): string[] =>
    (
      t.llm.requests.filter((r) => r.path === '/v1/chat/completions').at(-1)!.body as {
        messages: { role: string; content: unknown }[]
      }
    ).messages
      .filter((m) => m.role === 'tool')
      .map((m) => String(m.content))

  it('a fork bomb, a memory bomb, a huge file and a full /tmp each end with a clear error; the task goes on', async () => {
    expect((await sandboxSupport()).kind).toBe('bubblewrap')
    const init = await runCli(['init', '--project', t.project.path], { env: t.env })
    expect(init.code, init.stderr).toBe(0)
    writeFileSync(
      join(t.project.path, '.ralph/config.json'),
      JSON.stringify({ sandbox: { limits: LIMITS } }, null, 2),
    )
    const id = `${process.pid}${Date.now() % 100000}`
    const forkBomb = `bomb${id}() { bomb${id} | bomb${id} & }; bomb${id}; sleep 60`
    const memoryBomb = `a=x${id}; while :; do a="$a$a"; done`
    t.llm.enqueue(
      parsed({ type: 'bugfix', title: 'Exhaust it' }),
      tools(
        ['run_command', { command: forkBomb, timeout_ms: 60_000 }],
        ['run_command', { command: memoryBomb, timeout_ms: 60_000 }],
        ['run_command', { command: 'head -c 100000000 /dev/zero > big.bin; echo wrote' }],
        ['run_command', { command: 'head -c 50000000 /dev/zero > /tmp/fill; ls -l /tmp/fill' }],
        ['run_command', { command: 'echo still-alive' }],
        ['write_file', { path: 'src/fix.ts', content: 'export const fixed = true\n' }],
      ),
      done('Done.'),
    )
    const started = Date.now()
    const run = await runCli(['run', 'exhaust', '--max-iterations', '2', '--project', t.project.path], {
      env: t.env,
    })
    expect(run.code, run.stdout + run.stderr).toBe(0)
    // Neither bomb ran to its 60 s timeout.
    expect(Date.now() - started).toBeLessThan(60_000)

    const [fork, memory, big, tmp, next, write] = lastToolResults()
    expect(fork).toContain(
      `the command started more than ${LIMITS.processes} processes (its limit) and was stopped`,
    )
    expect(memory).toContain(`the command ran out of its memory limit of ${LIMITS.memoryMb} MB`)
    expect(big).toContain(`file-size limit of ${LIMITS.fileSizeMb} MB`)
    expect(statSync(join(t.project.path, 'big.bin')).size).toBe(LIMITS.fileSizeMb * MB)
    expect(tmp).toContain('No space left on device')
    expect(tmp).toContain(`/tmp holds at most ${LIMITS.tmpMb} MB`)
    expect(next).toContain('still-alive')
    expect(next).toContain('Exit code: 0')
    expect(write).toMatch(/bytes|wrote/i)

    // Nothing the bombs started is left (they ran in the command's PID namespace, which died with it).
    expect(await waitFor(async () => (await processesWithArg(forkBomb)).length === 0, 10_000)).toBe(true)
    expect(await waitFor(async () => (await processesWithArg(memoryBomb)).length === 0, 10_000)).toBe(true)
    // Where a pids cgroup was made for a command, it is gone again: this run left none (other test files run
    // commands of their own meanwhile, and a build killed with -9 leaves its own until the next run sweeps them).
    const pids = '/sys/fs/cgroup/pids'
    if (existsSync(pids)) {
      expect(
        await waitFor(
          async () => !readdirSync(pids).some((d) => d.startsWith(`ralph-command-${run.pid}-`)),
          10_000,
        ),
      ).toBe(true)
    }
  })
})
