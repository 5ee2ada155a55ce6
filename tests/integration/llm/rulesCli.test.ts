// `ralph rules`: the real launcher in a child process, on a temp project.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { runCli } from '../../helpers/cli'
import { makeTempDir } from '../../helpers/tempDir'

let project: ReturnType<typeof makeTempDir>
let home: ReturnType<typeof makeTempDir>
const put = (rel: string, text: string) => {
  mkdirSync(dirname(join(project.path, rel)), { recursive: true })
  writeFileSync(join(project.path, rel), text)
}
const env = () => ({ RALPH_HOME: home.path, HOME: home.path })

beforeEach(() => {
  project = makeTempDir('ralph-rules-cli-')
  home = makeTempDir('ralph-rules-home-')
})
afterEach(() => {
  project.cleanup()
  home.cleanup()
})

describe('ralph rules', () => {
  it('lists the rules files with their size and cap, and turns one off and on again', async () => {
    put('AGENTS.md', 'a'.repeat(20_000))
    put('CLAUDE.md', 'Claude rules.')
    put('.cursor/rules/style.mdc', 'Style.')
    const list = await runCli(['rules', '--project', project.path], { env: env() })
    expect(list.stderr).toBe('')
    expect(list.code).toBe(0)
    expect(list.stdout).toBe(
      [
        '✔ AGENTS.md  20000 bytes  in effect, capped',
        '✔ CLAUDE.md  13 bytes  in effect',
        '✔ .cursor/rules/style.mdc  6 bytes  in effect',
        '',
      ].join('\n'),
    )

    const off = await runCli(['rules', 'disable', 'CLAUDE.md', '--project', project.path, '--json'], {
      env: env(),
    })
    expect(off.code).toBe(0)
    const json = JSON.parse(off.stdout) as { files: { path: string; enabled: boolean }[] }
    expect(json.files.find((f) => f.path === 'CLAUDE.md')!.enabled).toBe(false)
    expect(JSON.parse(readFileSync(join(project.path, '.ralph/config.json'), 'utf8'))).toEqual({
      rules: { disabled: ['CLAUDE.md'] },
    })

    const typo = await runCli(['rules', 'disable', 'CLAUDE.mdx', '--project', project.path], { env: env() })
    expect(typo.code).not.toBe(0)
    expect(typo.stderr).toContain('"CLAUDE.mdx" is not a rules file of this project')

    const on = await runCli(['rules', 'enable', 'CLAUDE.md', '--project', project.path], { env: env() })
    expect(on.code).toBe(0)
    expect(on.stdout).toContain('✔ CLAUDE.md  13 bytes  in effect')
  }, 120_000)

  it('says when there are none', async () => {
    const list = await runCli(['rules', '--project', project.path], { env: env() })
    expect(list.code).toBe(0)
    expect(list.stdout).toContain('No rules files at the project root')
  }, 120_000)
})
