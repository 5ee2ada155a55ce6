// Engine detection against the real CLIs installed as devDependencies, and against stand-in programs for the
// states a user's machine can be in (missing, too old, broken).
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs'
import { join, resolve } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import {
  detectEngine,
  detectEngines,
  ENGINE_CLIS,
  engineBinary,
  locateEngine,
} from '../../../src/main/engines'
import { makeTempDir } from '../../helpers/tempDir'

const BIN = resolve(__dirname, '../../../node_modules/.bin')
const cleanups: (() => void)[] = []
afterEach(() => cleanups.splice(0).forEach((c) => c()))

function binDir(programs: Record<string, string>): string {
  const dir = makeTempDir('ralph-engine-bin-')
  cleanups.push(dir.cleanup)
  for (const [name, script] of Object.entries(programs)) {
    const file = join(dir.path, name)
    writeFileSync(file, `#!/bin/sh\n${script}\n`)
    chmodSync(file, 0o755)
  }
  return dir.path
}

describe('detectEngines', () => {
  it('finds the real Claude Code and Codex CLIs and reads their versions', async () => {
    const found = await detectEngines({ PATH: `${BIN}:/usr/bin:/bin` })
    expect(found.map((f) => f.id)).toEqual(['claude-code', 'codex'])
    const [claude, codex] = found
    expect(claude).toMatchObject({ installed: true, supported: true, version: '2.1.328', hint: null })
    expect(claude!.path).toBe(join(BIN, 'claude'))
    expect(codex).toMatchObject({ installed: true, supported: true, version: '0.169.0', hint: null })
  }, 60_000)

  it('says how to install an engine that is not on PATH', async () => {
    const [claude] = await detectEngines({ PATH: binDir({}) })
    expect(claude).toMatchObject({ installed: false, supported: false, path: null, version: null })
    expect(claude!.hint).toContain('npm install -g @anthropic-ai/claude-code')
  })

  it("finds a CLI in its installer's folder when an app started from the desktop has a short PATH", async () => {
    const home = makeTempDir('ralph-engine-home-')
    cleanups.push(home.cleanup)
    const bin = join(home.path, '.local/bin')
    mkdirSync(bin, { recursive: true })
    writeFileSync(join(bin, 'claude'), '#!/bin/sh\necho "2.1.400 (Claude Code)"\n')
    chmodSync(join(bin, 'claude'), 0o755)
    const claude = await detectEngine(ENGINE_CLIS['claude-code'], { PATH: '/usr/bin:/bin', HOME: home.path })
    expect(claude).toMatchObject({
      installed: true,
      supported: true,
      version: '2.1.400',
      path: join(bin, 'claude'),
    })
  })

  it('refuses a version older than the adapter was written for, saying how to update', async () => {
    const dir = binDir({ claude: 'echo "1.0.3 (Claude Code)"' })
    const claude = await detectEngine(ENGINE_CLIS['claude-code'], { PATH: dir })
    expect(claude).toMatchObject({ installed: true, supported: false, version: '1.0.3' })
    expect(claude.hint).toMatch(/1\.0\.3 is older than 2\.0\.0.*npm install -g/)
  })

  it('explains a program that fails when asked its version', async () => {
    const dir = binDir({ codex: 'echo "error while loading shared libraries" >&2; exit 127' })
    const codex = await detectEngine(ENGINE_CLIS.codex, { PATH: dir })
    expect(codex).toMatchObject({ installed: true, supported: false, version: null })
    expect(codex.hint).toContain('error while loading shared libraries')
    expect(codex.hint).toContain('npm install -g @openai/codex')
  })
})

describe('Locate…: a program the user points at', () => {
  /** An app data folder of its own (RALPH_HOME) and a PATH without the CLIs. */
  function setup() {
    const home = makeTempDir('ralph-locate-home-')
    cleanups.push(home.cleanup)
    return {
      env: { PATH: '/usr/bin:/bin', HOME: home.path, RALPH_HOME: join(home.path, 'data') },
      home: home.path,
    }
  }

  it('lists the folders searched when the CLI is not found', async () => {
    const { env, home } = setup()
    const claude = await detectEngine(ENGINE_CLIS['claude-code'], env)
    expect(claude.installed).toBe(false)
    expect(claude.searched).toEqual([
      '/usr/bin',
      '/bin',
      join(home, '.local/bin'),
      ...claude.searched!.slice(3),
    ])
    expect(claude.searched).toContain('/usr/local/bin')
  })

  it('checks the real Claude Code and Codex in an unusual folder, stores them, and detection and tasks use them', async () => {
    const { env, home } = setup()
    const odd = join(home, 'tools of mine', 'agents')
    mkdirSync(odd, { recursive: true })
    // The npm shims, linked from a folder no one searches (their packages stay where npm put them).
    symlinkSync(realpathSync(join(BIN, 'claude')), join(odd, 'claude'))
    symlinkSync(realpathSync(join(BIN, 'codex')), join(odd, 'my-codex'))
    const claude = await locateEngine('claude-code', join(odd, 'claude'), env)
    expect(claude).toMatchObject({
      installed: true,
      supported: true,
      version: '2.1.328',
      path: join(odd, 'claude'),
    })
    const codex = await locateEngine('codex', ` ${join(odd, 'my-codex')} `, env)
    expect(codex).toMatchObject({ supported: true, version: '0.169.0', located: join(odd, 'my-codex') })
    expect(JSON.parse(readFileSync(join(env.RALPH_HOME, 'engine-paths.json'), 'utf8'))).toEqual({
      'claude-code': join(odd, 'claude'),
      codex: join(odd, 'my-codex'),
    })
    const found = await detectEngines(env)
    expect(found.map((f) => [f.supported, f.path])).toEqual([
      [true, join(odd, 'claude')],
      [true, join(odd, 'my-codex')],
    ])
    expect(await engineBinary('codex', env)).toBe(join(odd, 'my-codex'))

    // Forgotten: PATH is searched again, and it is not there.
    await locateEngine('codex', null, env)
    await expect(engineBinary('codex', env)).rejects.toThrow(/Codex is not installed.*Locate…/)
    // Gone from disk: detection says the located program is gone.
    unlinkSync(join(odd, 'claude'))
    const gone = await detectEngine(ENGINE_CLIS['claude-code'], env)
    expect(gone).toMatchObject({ installed: false, located: join(odd, 'claude') })
    expect(gone.hint).toContain(`${join(odd, 'claude')}, is gone`)
  }, 60_000)

  it('refuses what is not a working engine, saying why, and stores nothing', async () => {
    const { env, home } = setup()
    const dir = binDir({ old: 'echo "1.0.3 (Claude Code)"', broken: 'echo "no such lib" >&2; exit 127' })
    writeFileSync(join(home, 'plain'), 'text\n')
    const cases: [string, RegExp][] = [
      ['claude', /full path of the Claude Code program/],
      [join(home, 'nothing-here'), /There is no file at/],
      [home, /is a folder: give the program inside it/],
      [join(home, 'plain'), /is not executable: run `chmod \+x/],
      [join(dir, 'old'), /is Claude Code 1\.0\.3; Ralph drives 2\.0\.0 or later/],
      [join(dir, 'broken'), /is not a working Claude Code: .*no such lib/],
    ]
    for (const [path, message] of cases)
      await expect(locateEngine('claude-code', path, env), path).rejects.toThrow(message)
    expect(existsSync(join(env.RALPH_HOME, 'engine-paths.json'))).toBe(false)
  })
})
