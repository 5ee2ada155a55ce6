import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { removeDir, tempDir } from '../tools/testkit'
import { memoryLogger } from '../workspace/logFile'
import { appInstallPaths, installBinds } from './appInstall'

describe('installBinds', () => {
  it('drops what would undo the emptying (/, /tmp, a home root), then paths inside another', () => {
    const emptied = ['/tmp', '/home', '/root']
    expect(
      installBinds(['/tmp/.mount_x', '/tmp/.mount_x/resources', '/usr/bin', '/usr/bin'], emptied),
    ).toEqual(['/tmp/.mount_x', '/usr/bin'])
    // A node binary straight in /tmp or /root: its folder would show all of /tmp, so only the program is bound.
    expect(installBinds(['/tmp', '/tmp/node', '/', '/root', '/root/node'], emptied)).toEqual([
      '/tmp/node',
      '/root/node',
    ])
  })
})

describe('appInstallPaths', () => {
  let dir = ''
  afterEach(() => removeDir(dir))

  it("lists the app's runtime parts that exist and the program with its folder, as real paths", async () => {
    dir = tempDir('ralph-install-')
    const app = join(dir, 'app')
    mkdirSync(join(app, 'node_modules'), { recursive: true })
    mkdirSync(join(app, 'out'))
    writeFileSync(join(app, 'package.json'), '{}')
    writeFileSync(join(app, '.env'), 'KEY=secret')
    mkdirSync(join(dir, 'bin'))
    writeFileSync(join(dir, 'bin', 'node'), '')
    symlinkSync(join(dir, 'bin', 'node'), join(dir, 'node-link'))
    const log = memoryLogger()
    const paths = await appInstallPaths(log, app, join(dir, 'node-link'))
    const real = realpathSync(dir)
    expect(paths).toEqual([
      join(real, 'app', 'package.json'),
      join(real, 'app', 'node_modules'),
      join(real, 'app', 'out'),
      join(real, 'bin'),
      join(real, 'bin', 'node'),
    ])
    // Missing parts (resources/, bin/) are the usual case, not a failure to record.
    expect(log.lines).toEqual([])
  })

  it("finds this checkout's own install by default", async () => {
    const paths = await appInstallPaths(memoryLogger())
    expect(paths).toContain(realpathSync(join(import.meta.dirname, '..', '..', '..', 'node_modules')))
    expect(paths).toContain(dirname(realpathSync(process.execPath)))
  })
})
