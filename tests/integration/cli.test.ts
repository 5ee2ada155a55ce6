import { execFileSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, afterEach, describe, expect, it } from 'vitest'
import { startFakeLlmServer, type FakeLlmServer } from '../fixtures/fakeLlmServer'
import { unprivilegedPrefix } from '../helpers/asNobody'
import { runCli } from '../helpers/cli'
import { makeTempDir } from '../helpers/tempDir'

// Each test starts several CLI processes: the budget holds on a loaded 2-core machine.
describe('ralph CLI', { timeout: 120_000 }, () => {
  let home: ReturnType<typeof makeTempDir>
  let work: ReturnType<typeof makeTempDir>
  let env: NodeJS.ProcessEnv
  beforeEach(() => {
    home = makeTempDir('ralph-home-')
    work = makeTempDir('ralph-work-')
    // Keep the developer's own RALPH_* settings out of the tests.
    env = {
      RALPH_HOME: home.path,
      RALPH_PROVIDER: '',
      RALPH_MODEL: '',
      RALPH_BASE_URL: '',
      RALPH_API_KEY: '',
      OPENAI_API_KEY: '',
      ANTHROPIC_API_KEY: '',
    }
  })
  afterEach(() => {
    home.cleanup()
    work.cleanup()
  })

  it('prints help with exit 0, and a usage error with exit 2', async () => {
    const help = await runCli(['--help'], { env })
    expect(help.code).toBe(0)
    expect(help.stdout).toContain('Usage: ralph <command>')
    expect(help.stdout).toMatch(/init\s+Create \.ralph\//)
    const unknown = await runCli(['frobnicate'], { env })
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain('unknown command "frobnicate"')
    const initHelp = await runCli(['init', '--help'], { env })
    expect(initHelp.stdout).toContain('Usage: ralph init')
  })

  it('init creates .ralph/, registers the project, and is idempotent', async () => {
    const first = await runCli(['init', '--project', work.path, '--json'], { env })
    expect(first.code).toBe(0)
    const out = JSON.parse(first.stdout)
    expect(out).toMatchObject({ ok: true, project: work.path, created: true })
    expect(out.createdFiles).toContain('origin.md')
    expect(existsSync(join(work.path, '.ralph', 'snapshots.git', 'HEAD'))).toBe(true)
    expect(existsSync(join(work.path, '.git'))).toBe(false)
    writeFileSync(join(work.path, '.ralph', 'task.md'), 'my task')
    const second = await runCli(['init'], { env, cwd: work.path })
    expect(second.code).toBe(0)
    expect(second.stdout).toContain('Already initialised')
    expect(readFileSync(join(work.path, '.ralph', 'task.md'), 'utf8')).toBe('my task')
    expect(readFileSync(join(work.path, '.ralph', 'origin.md'), 'utf8')).toContain('ralph init')
  })

  it('init refuses a missing folder or a file with exit 2 and a clear message', async () => {
    const missing = await runCli(['init', '--project', join(work.path, 'nope')], { env })
    expect(missing.code).toBe(2)
    expect(missing.stderr).toBe(
      `ralph: No folder exists at ${join(work.path, 'nope')}. Check the path, or create the folder first.\n`,
    )
    writeFileSync(join(work.path, 'file.txt'), 'x')
    const file = await runCli(['init', '--project', join(work.path, 'file.txt'), '--json'], { env })
    expect(file.code).toBe(2)
    expect(JSON.parse(file.stdout)).toMatchObject({ ok: false, error: { kind: 'invalid-input' } })
  })

  it('init refuses a folder without write permission and writes nothing', async () => {
    const locked = join(work.path, 'locked')
    mkdirSync(locked)
    chmodSync(work.path, 0o755)
    chmodSync(home.path, 0o777)
    chmodSync(locked, 0o555)
    const result = await runCli(['init', '--project', locked], { env, prefix: unprivilegedPrefix() })
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(`cannot write to ${locked} (permission denied)`)
    expect(readdirSync(locked)).toEqual([])
  })

  it('config set/get round-trips, and bad values exit 5 without saving', async () => {
    expect((await runCli(['config', 'set', 'provider', 'openai-compatible'], { env })).code).toBe(0)
    expect((await runCli(['config', 'set', 'model', 'llama3.1'], { env })).code).toBe(0)
    expect((await runCli(['config', 'set', 'baseUrl', 'http://127.0.0.1:1234/v1'], { env })).code).toBe(0)
    const bad = await runCli(['config', 'set', 'provider', 'acme'], { env })
    expect(bad.code).toBe(5)
    expect(bad.stderr).toContain(
      'Unknown provider "acme". Use one of: openai, anthropic, ollama, openrouter, openai-compatible.',
    )
    const badUrl = await runCli(['config', 'set', 'baseUrl', 'localhost'], { env })
    expect(badUrl.code).toBe(5)
    const empty = await runCli(['config', 'set', 'model', ' '], { env })
    expect(empty.code).toBe(5)
    const got = await runCli(['config', 'get', '--json'], { env })
    expect(JSON.parse(got.stdout)).toEqual({
      ok: true,
      settings: {
        provider: 'openai-compatible',
        model: 'llama3.1',
        baseUrl: 'http://127.0.0.1:1234/v1',
        apiKey: null,
      },
      overriddenByEnv: [],
    })
    expect((await runCli(['config', 'get', 'model'], { env })).stdout).toBe('llama3.1\n')
    expect((await runCli(['config', 'get', 'colour'], { env })).code).toBe(2)
  })

  it('reads the API key from stdin and never writes it to the database', async () => {
    await runCli(['config', 'set', 'provider', 'openai'], { env })
    const key = 'sk-from-stdin-SECRET-5678'
    const set = await runCli(['config', 'set', 'apiKey'], { env, input: `${key}\n` })
    expect(set.code).toBe(0)
    const got = await runCli(['config', 'get', 'apiKey'], { env })
    expect(got.stdout).toBe('…5678 (file)\n')
    for (const f of readdirSync(home.path).filter((f) => f.startsWith('ralph.db'))) {
      expect(readFileSync(join(home.path, f)).includes(key)).toBe(false)
    }
  })

  it('edits the price table used for cost estimates', async () => {
    expect((await runCli(['config', 'set', 'price', 'my-model', '0.5', '1.5'], { env })).code).toBe(0)
    const table = JSON.parse((await runCli(['config', 'get', 'prices', '--json'], { env })).stdout)
    expect(table.prices['my-model']).toEqual({ input: 0.5, output: 1.5, source: 'yours' })
    expect(table.prices['gpt-4o']).toMatchObject({ source: 'built-in' })
    const bad = await runCli(['config', 'set', 'price', 'my-model', 'cheap', '1'], { env })
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('USD per 1M tokens')
    expect((await runCli(['config', 'unset', 'price', 'my-model'], { env })).code).toBe(0)
    const after = JSON.parse((await runCli(['config', 'get', 'prices', '--json'], { env })).stdout)
    expect(after.prices['my-model']).toBeUndefined()
  })

  describe('config test against a real HTTP server', () => {
    let llm: FakeLlmServer
    beforeAll(async () => {
      llm = await startFakeLlmServer()
    })
    afterAll(() => llm.close())

    it('exits 0 on success and 5 with the reason on a 401', async () => {
      await runCli(['config', 'set', 'provider', 'openai-compatible'], { env })
      await runCli(['config', 'set', 'model', 'fake-model'], { env })
      await runCli(['config', 'set', 'baseUrl', llm.baseUrl], { env })
      const ok = await runCli(['config', 'test'], { env })
      expect(ok.code).toBe(0)
      expect(ok.stdout).toContain('Connected to fake-model')
      llm.apiKey = 'sk-right'
      const denied = await runCli(['config', 'test', '--json'], { env })
      llm.apiKey = null
      expect(denied.code).toBe(5)
      expect(JSON.parse(denied.stdout).result.message).toContain('refused the API key (401)')
    })

    it('exits 5 when nothing is configured', async () => {
      const result = await runCli(['config', 'test'], { env })
      expect(result.code).toBe(5)
      expect(result.stderr).toContain('No LLM provider is configured')
    })
  })

  it('reports a corrupt database by name with exit 5 and leaves it alone', async () => {
    const db = join(home.path, 'ralph.db')
    writeFileSync(db, 'garbage'.repeat(1000))
    const result = await runCli(['config', 'get'], { env })
    expect(result.code).toBe(5)
    expect(result.stderr).toContain(`The database ${db} is damaged`)
    expect(readFileSync(db, 'utf8')).toBe('garbage'.repeat(1000))
  })

  it('parses every command the same way: unknown flags and missing values are usage errors (exit 2)', async () => {
    const cases: [string[], string][] = [
      [['snapshot', 'list', '--bogus'], 'Unknown option --bogus. See "ralph snapshot --help".'],
      [['plan', 'show', '--bogus'], 'Unknown option --bogus. See "ralph plan --help".'],
      [['run', 'x', '--bogus'], 'Unknown option --bogus. See "ralph run --help".'],
      [['snapshot', 'list', '--limit'], '--limit needs a value. See "ralph snapshot --help".'],
      [['snapshot', 'list', '--limit', 'ten'], '--limit needs a whole number of at least 1, got "ten".'],
      [['plan', 'show', '--task', '0'], '--task needs a whole number of at least 1, got "0".'],
      [['snapshot', 'save', '--json=yes'], '--json takes no value.'],
    ]
    for (const [args, message] of cases) {
      const r = await runCli([...args, '--project', work.path], { env })
      expect(r.code, args.join(' ')).toBe(2)
      expect(r.stderr, args.join(' ')).toContain(message)
    }
    // The global flags go anywhere on the line, before the command too.
    const before = await runCli(['--json', '--project', work.path, 'snapshot', 'list', '--bogus'], { env })
    expect(before.code).toBe(2)
    expect(JSON.parse(before.stdout)).toMatchObject({ ok: false, error: { kind: 'invalid-input' } })
  })

  it('--project names a folder: a file or a missing path is a clear usage error, resolved from the caller', async () => {
    writeFileSync(join(work.path, 'notes.txt'), 'x')
    const file = await runCli(['snapshot', 'list', '--project', 'notes.txt'], { env, cwd: work.path })
    expect(file.code).toBe(2)
    expect(file.stderr).toBe(
      `ralph: ${join(work.path, 'notes.txt')} is a file, not a folder. Open the folder that contains your project instead.\n`,
    )
    const missing = await runCli(['snapshot', 'status', '--project', 'nope'], { env, cwd: work.path })
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain(`No folder exists at ${join(work.path, 'nope')}`)
    expect(existsSync(join(work.path, 'nope'))).toBe(false)
  })

  it('prints its version, and the development path through tsx gives the same answers as the build', async () => {
    const version = JSON.parse(readFileSync(join(process.cwd(), 'package.json'), 'utf8')).version
    expect((await runCli(['--version'], { env })).stdout).toBe(`${version}\n`)
    const built = await runCli(['--help'], { env })
    const source = await runCli(['--help'], { env: { ...env, RALPH_FROM_SOURCE: '1' } })
    expect(source.code).toBe(0)
    expect(source.stdout).toBe(built.stdout)
  })

  it('loads TypeScript’s compiler only for a command that parses code, not at every start', async () => {
    // NODE_DEBUG=module names every CommonJS file Node loads (typescript.js is one, however it is imported).
    const loads = async (args: string[]) => {
      const r = await runCli([...args, '--project', work.path], { env: { ...env, NODE_DEBUG: 'module' } })
      expect(r.code, r.stderr.slice(-500)).toBe(0)
      return /typescript[\\/]lib[\\/]typescript\.js/.test(r.stderr)
    }
    writeFileSync(join(work.path, 'plan.tsx'), 'export default <Plan name="x" />\n')
    expect(await loads(['build', '--help'])).toBe(false)
    expect(await loads(['snapshot', 'list'])).toBe(false)
    expect(await loads(['plan', 'show', '--file', 'plan.tsx'])).toBe(true)
  })

  it('read-only commands create nothing in a folder Ralph has never seen', async () => {
    writeFileSync(join(work.path, 'a.txt'), 'x')
    for (const args of [
      ['snapshot', 'list'],
      ['snapshot', 'status'],
      ['snapshot', 'verify'],
      ['query', 'stage'],
      ['log'],
      ['plan', 'show'],
      ['sandbox'],
    ]) {
      const r = await runCli([...args, '--project', work.path], { env })
      expect(r.code === 0 || r.code === 2, `${args.join(' ')}: ${r.stderr}`).toBe(true)
    }
    expect(readdirSync(work.path)).toEqual(['a.txt'])
  })

  it('a rollback names the files it cannot bring back, and verify reports damaged snapshots', async () => {
    const p = (...args: string[]) => runCli([...args, '--project', work.path], { env })
    writeFileSync(join(work.path, 'keep.txt'), 'v1')
    writeFileSync(join(work.path, 'data.db'), Buffer.alloc(6 * 1024 * 1024, 1))
    expect((await p('snapshot', 'save', 'first')).code).toBe(0)
    const tag = JSON.parse((await p('snapshot', 'list', '--json')).stdout).items[0].tag
    rmSync(join(work.path, 'data.db'))
    const preview = await p('snapshot', 'preview', tag)
    expect(preview.stdout).toMatch(/! data\.db \(6(\.0)? MB\) was never snapshotted/)
    expect((await p('snapshot', 'verify')).code).toBe(0)
    // Delete one file's content from the store: verify names the damaged snapshot and exits 4.
    const gitDir = join(work.path, '.ralph', 'snapshots.git')
    const blob = execFileSync('git', ['--git-dir', gitDir, 'rev-parse', `${tag}:keep.txt`])
      .toString()
      .trim()
    rmSync(join(gitDir, 'objects', blob.slice(0, 2), blob.slice(2)))
    const verify = await p('snapshot', 'verify')
    expect(verify.code).toBe(4)
    expect(verify.stdout).toContain(`damaged (objects missing): ${tag}`)
  })
})
