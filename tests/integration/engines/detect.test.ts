// Engine detection against the real CLIs installed as devDependencies, and against stand-in programs for the
// states a user's machine can be in (missing, too old, broken).
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { detectEngine, detectEngines, ENGINE_CLIS } from '../../../src/main/engines'
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
