import { readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { memoryLogger } from '../workspace/logFile'
import { removeDir, tempDir } from '../tools/testkit'
import { allowUnsandboxed, permissionsFile, revokeUnsandboxed, unsandboxedAllowed } from './permissions'
import { notSandboxedMessage, prepareSandbox } from './prepare'

let appData: string
let project: string
beforeEach(() => {
  appData = tempDir('ralph-perm-app-')
  project = tempDir('ralph-perm-project-')
})
afterEach(() => {
  removeDir(appData)
  removeDir(project)
})

describe('permission to run unsandboxed', () => {
  it('is granted and revoked per project, keyed by its real path, in a private file', async () => {
    expect(await unsandboxedAllowed(project, appData)).toBe(false)
    await allowUnsandboxed(project, appData, new Date('2026-01-02T03:04:05Z'))
    const link = join(appData, 'link')
    symlinkSync(project, link)
    expect(await unsandboxedAllowed(link, appData)).toBe(true)
    expect(JSON.parse(readFileSync(permissionsFile(appData), 'utf8'))).toEqual({
      unsandboxed: { [project]: '2026-01-02T03:04:05.000Z' },
    })
    expect(statSync(permissionsFile(appData)).mode & 0o777).toBe(0o600)
    await revokeUnsandboxed(project, appData)
    expect(await unsandboxedAllowed(project, appData)).toBe(false)
  })

  it('a damaged file grants nothing', async () => {
    writeFileSync(permissionsFile(appData), '{"unsandboxed": [')
    expect(await unsandboxedAllowed(project, appData)).toBe(false)
  })
})

describe('prepareSandbox where the machine has no sandbox', () => {
  const none = { kind: 'none' as const, binary: null, reason: 'bubblewrap (bwrap) is not installed' }
  const request = () => ({
    projectDir: project,
    env: { PATH: '/usr/bin:/bin', RALPH_HOME: appData },
    writableRalphFiles: [],
    support: none,
    logger: memoryLogger(),
  })

  it('refuses, saying plainly that commands are not sandboxed and how to allow them', async () => {
    const r = await prepareSandbox(request())
    expect(r).toEqual({ ok: false, message: notSandboxedMessage(none.reason) })
    expect(notSandboxedMessage(none.reason)).toMatch(
      /^Not run: commands are not sandboxed on this machine \(bubblewrap/,
    )
    expect(notSandboxedMessage(none.reason)).toMatch(/allow unsandboxed commands for this project/)
  })

  it('runs the plain shell once the user allowed it for the project', async () => {
    await allowUnsandboxed(project, appData)
    const r = await prepareSandbox(request())
    if (!r.ok) throw new Error(r.message)
    expect(r.kind).toBe('none')
    expect(r.wrap('true', { PATH: '/bin' })).toEqual({
      file: '/bin/sh',
      args: ['-c', 'true'],
      env: { PATH: '/bin' },
    })
  })
})
