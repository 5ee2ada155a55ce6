// secretlint (the secrets check's rules) loads on the first scan only: commands that verify nothing start without
// it. A module-resolution hook, preloaded into the real `ralph` child process, records every @secretlint module the
// process asks for.
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { runCli } from '../../helpers/cli'
import { makeTempDir } from '../../helpers/tempDir'

const RESOLVE_HOOK = `import { appendFileSync } from 'node:fs'
let log
export function initialize(data) { log = data.log }
export async function resolve(specifier, context, next) {
  if (specifier.includes('@secretlint')) appendFileSync(log, specifier + '\\n')
  return next(specifier, context)
}
`
const REGISTER = `import { register } from 'node:module'
register(new URL('./resolve.mjs', import.meta.url), { data: { log: process.env.SECRETLINT_LOAD_LOG } })
`

describe('the CLI loads secretlint only when it scans', { timeout: 120_000 }, () => {
  let dir: ReturnType<typeof makeTempDir>
  let env: NodeJS.ProcessEnv
  let log: string
  beforeEach(() => {
    dir = makeTempDir('ralph-lazy-')
    log = join(dir.path, 'loaded.txt')
    writeFileSync(join(dir.path, 'resolve.mjs'), RESOLVE_HOOK)
    writeFileSync(join(dir.path, 'register.mjs'), REGISTER)
    env = {
      RALPH_HOME: join(dir.path, 'home'),
      SECRETLINT_LOAD_LOG: log,
      NODE_OPTIONS: `--import=${pathToFileURL(join(dir.path, 'register.mjs')).href}`,
    }
  })
  afterEach(() => dir.cleanup())

  const loaded = () => (existsSync(log) ? readFileSync(log, 'utf8').trim() : '')

  it('ralph --help and ralph snapshot status never resolve an @secretlint module', async () => {
    const help = await runCli(['--help'], { env })
    expect(help.code, help.stderr).toBe(0)
    const project = join(dir.path, 'project')
    execFileSync('git', ['init', '-q', project])
    const status = await runCli(['snapshot', 'status', '--project', project], { env })
    expect(status.code, status.stderr).toBe(0)
    expect(status.stdout).toContain('Snapshots: 0')
    expect(loaded()).toBe('')
  })

  it('the hook does see secretlint when a process loads it (the check above can fail)', () => {
    execFileSync(process.execPath, ['--input-type=module', '-e', "await import('@secretlint/core')"], {
      cwd: process.cwd(),
      env: { ...process.env, ...env },
    })
    expect(loaded()).toContain('@secretlint/core')
  })
})
