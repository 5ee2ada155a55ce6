// `ralph engines` and `ralph engines use`: the real launcher in a child process, the real Claude Code and Codex CLIs
// (devDependencies) on its PATH, or a PATH without them.
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { runCli } from '../../helpers/cli'
import { makeTempDir } from '../../helpers/tempDir'

const BIN = resolve(__dirname, '../../../node_modules/.bin')
const WITH = `${BIN}:/usr/bin:/bin`
const WITHOUT = '/usr/bin:/bin'

let project: ReturnType<typeof makeTempDir>
let home: ReturnType<typeof makeTempDir>
const ralph = (path: string, ...args: string[]) =>
  runCli([...args, '--project', project.path], {
    env: { RALPH_HOME: home.path, HOME: home.path, PATH: path },
  })
const config = () => JSON.parse(readFileSync(join(project.path, '.ralph/config.json'), 'utf8')) as object

beforeEach(() => {
  project = makeTempDir('ralph-engines-cli-')
  home = makeTempDir('ralph-engines-home-')
})
afterEach(() => {
  project.cleanup()
  home.cleanup()
})

describe('ralph engines', () => {
  it('lists each CLI with its version, or how to install it, and the project’s engine', async () => {
    const found = await ralph(WITH, 'engines')
    expect(found.stderr).toBe('')
    expect(found.code).toBe(0)
    expect(found.stdout).toBe(
      [
        `✔ Claude Code  2.1.328  ${join(BIN, 'claude')}`,
        `✔ Codex  0.169.0  ${join(BIN, 'codex')}`,
        "This project's engine: Built-in",
        '',
      ].join('\n'),
    )

    const missing = await ralph(WITHOUT, 'engines', 'list')
    expect(missing.code).toBe(0)
    expect(missing.stdout).toContain(
      '✘ Claude Code  not installed  Install Claude Code with `npm install -g @anthropic-ai/claude-code`',
    )
    expect(missing.stdout).toContain(
      '✘ Codex  not installed  Install Codex with `npm install -g @openai/codex`',
    )

    const json = await ralph(WITH, 'engines', '--json')
    expect(json.code).toBe(0)
    const parsed = JSON.parse(json.stdout) as {
      ok: boolean
      engines: { id: string; installed: boolean; supported: boolean; version: string | null }[]
      project: { engine: string; engineModel: string | null }
    }
    expect(parsed.ok).toBe(true)
    expect(parsed.engines.map((e) => [e.id, e.installed, e.supported, e.version])).toEqual([
      ['claude-code', true, true, '2.1.328'],
      ['codex', true, true, '0.169.0'],
    ])
    expect(parsed.project).toMatchObject({ engine: 'built-in', engineModel: null })
  }, 120_000)

  it('use ENGINE [--model M] writes the project’s engine; a missing CLI is kept with a note', async () => {
    const set = await ralph(WITH, 'engines', 'use', 'claude-code', '--model', 'sonnet')
    expect(set).toMatchObject({
      code: 0,
      stdout: "This project's engine is now Claude Code (model: sonnet).\n",
      stderr: '',
    })
    expect(config()).toMatchObject({ engine: 'claude-code', engineModel: 'sonnet' })
    expect((await ralph(WITH, 'engines')).stdout).toContain(
      "This project's engine: Claude Code (model: sonnet)",
    )

    const codex = await ralph(WITHOUT, 'engines', 'use', 'codex', '--json')
    expect(codex.code).toBe(0)
    expect(JSON.parse(codex.stdout)).toMatchObject({
      ok: true,
      engine: 'codex',
      engineModel: null,
      ready: false,
      hint: expect.stringContaining('npm install -g @openai/codex'),
    })
    expect(config()).toMatchObject({ engine: 'codex', engineModel: null })
    const note = await ralph(WITHOUT, 'engines', 'use', 'codex')
    expect(note.stderr).toContain('Note: Install Codex')

    expect(await ralph(WITH, 'engines', 'use', 'built-in')).toMatchObject({
      code: 0,
      stdout: "This project's engine is now Built-in.\n",
    })
    expect(config()).toMatchObject({ engine: 'built-in' })
  }, 120_000)

  it('refuses an unknown engine, a missing one and a model for the built-in loop', async () => {
    const unknown = await ralph(WITH, 'engines', 'use', 'gemini')
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain(
      'Unknown engine "gemini". The engines are: built-in, claude-code, codex.',
    )
    expect((await ralph(WITH, 'engines', 'use')).code).toBe(2)
    const model = await ralph(WITH, 'engines', 'use', 'built-in', '--model', 'x')
    expect(model.code).toBe(2)
    expect(model.stderr).toContain('--model is for claude-code or codex')
    expect((await ralph(WITH, 'engines', 'nope')).code).toBe(2)
  }, 120_000)
})
