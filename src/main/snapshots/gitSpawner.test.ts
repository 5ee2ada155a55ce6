// The git helper process (gitSpawner.ts), with real git: output, exit codes, stdin, stopping a call's process group,
// and what happens to calls when the helper dies.
import { afterAll, describe, expect, it } from 'vitest'
import { processesWithArg, uniqueSleep, waitFor } from '../sandbox/testkit'
import { liveGitCount, startGit } from './gitProcess'
import { helperBroken, helperPid, helperUsable } from './gitSpawner'

const posix = process.platform !== 'win32'
const env = { PATH: process.env.PATH ?? '', GIT_CONFIG_NOSYSTEM: '1', HOME: '/nonexistent' }
const sleeps: string[] = []
afterAll(async () => {
  for (const marker of sleeps) for (const pid of await processesWithArg(marker)) process.kill(pid, 'SIGKILL')
})

/** A git call that runs `sleep` (as a git alias) until stopped. */
function sleeper() {
  const marker = uniqueSleep()
  sleeps.push(marker)
  const call = startGit({ binary: 'git', args: ['-c', `alias.x=!sleep ${marker}; true`, 'x'], env })
  return { call, marker }
}

describe.skipIf(!posix)('git calls through the helper process', () => {
  it('give git output, exit code and stdin, started by the helper rather than this process', async () => {
    expect(helperUsable()).toBe(true)
    const ok = await startGit({ binary: 'git', args: ['hash-object', '--stdin'], env, input: 'hello\n' }).end
    expect(ok.code).toBe(0)
    expect(ok.stdout.toString().trim()).toBe('ce013625030ba8dba906f756967f9e9ca394464a')
    const pid = helperPid()
    expect(pid).not.toBeNull()
    expect(pid).not.toBe(process.pid)
    const bad = await startGit({ binary: 'git', args: ['no-such-command'], env }).end
    expect(bad.code).not.toBe(0)
    expect(bad.stderr.toString()).toContain('no-such-command')
    await expect(startGit({ binary: '/no/such/git', args: [], env }).end).rejects.toThrow(/ENOENT/)
    expect(liveGitCount()).toBe(0)
  })

  it('stop the whole process group of a call, children included', async () => {
    const { call, marker } = sleeper()
    expect(await waitFor(async () => (await processesWithArg(marker)).length > 0, 20_000)).toBe(true)
    expect(call.running()).toBe(true)
    call.stop()
    const end = await call.end
    expect(end.code === null || end.code !== 0).toBe(true)
    expect(call.running()).toBe(false)
    expect(await waitFor(async () => (await processesWithArg(marker)).length === 0)).toBe(true)
  })

  it('fail the calls a dead helper ran, and start the next ones directly', async () => {
    const { call, marker } = sleeper()
    expect(await waitFor(async () => (await processesWithArg(marker)).length > 0, 20_000)).toBe(true)
    process.kill(helperPid()!, 'SIGKILL')
    await expect(call.end).rejects.toThrow(/git helper process stopped while git ran/)
    expect(helperBroken()).not.toBeNull()
    expect(helperUsable()).toBe(false)
    const direct = await startGit({ binary: 'git', args: ['--version'], env }).end
    expect(direct.stdout.toString()).toMatch(/^git version/)
  })
})
