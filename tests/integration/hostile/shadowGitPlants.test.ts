// Hostile project, issue 23: the shadow store's git never runs a program that configuration inside the project
// names. A nested repository the model made carries an fsmonitor, hooks and a clean/smudge filter; the store's own
// config (as if something had written to it) names the same, and a .gitattributes puts the filter on every file.
// Every snapshot command runs through the real CLI with real git; the plants write a marker outside the project.
import { execFileSync } from 'node:child_process'
import { appendFileSync, chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { runCli } from '../../helpers/cli'
import { makeTempDir } from '../../helpers/tempDir'

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.com', ...args], {
    cwd,
    env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' },
  }).toString()

describe('hostile: shadow git runs nothing the project configures (issue 23)', { timeout: 120_000 }, () => {
  let project: ReturnType<typeof makeTempDir>
  let home: ReturnType<typeof makeTempDir>
  let env: NodeJS.ProcessEnv
  let marker: string
  beforeEach(() => {
    project = makeTempDir('ralph-plants-')
    home = makeTempDir('ralph-home-')
    env = { RALPH_HOME: home.path }
    marker = join(home.path, 'PLANT-RAN')
  })
  afterEach(() => {
    project.cleanup()
    home.cleanup()
  })

  /** A script that records that it ran (and passes stdin through, as a filter must). */
  function plant(name: string): string {
    const file = join(home.path, name)
    writeFileSync(file, `#!/bin/sh\necho "${name} $*" >> '${marker}'\ncat\n`)
    chmodSync(file, 0o755)
    return file
  }

  function plantConfig(configFile: string, hooksDir: string): void {
    appendFileSync(
      configFile,
      [
        '[core]',
        `\tfsmonitor = ${plant('fsmonitor')}`,
        `\thooksPath = ${hooksDir}`,
        `\tpager = ${plant('pager')}`,
        '[filter "evil"]',
        `\tclean = ${plant('clean')}`,
        `\tsmudge = ${plant('smudge')}`,
        '\trequired = true',
        '[diff]',
        `\texternal = ${plant('external-diff')}`,
        '[diff "evil"]',
        `\ttextconv = ${plant('textconv')}`,
        '',
      ].join('\n'),
    )
  }

  function plantHooks(dir: string): void {
    mkdirSync(dir, { recursive: true })
    for (const hook of [
      'pre-commit',
      'post-commit',
      'post-checkout',
      'post-index-change',
      'reference-transaction',
    ])
      writeFileSync(join(dir, hook), `#!/bin/sh\necho "hook ${hook}" >> '${marker}'\n`, { mode: 0o755 })
  }

  it('save, status, diff, rollback and undo leave the planted programs unrun', async () => {
    const p = project.path
    mkdirSync(join(p, 'src'))
    writeFileSync(join(p, 'src/app.ts'), 'export const v = 1\n')
    writeFileSync(join(p, '.gitattributes'), '* filter=evil diff=evil\n')
    // The model's nested repository, with its own plants and a committed file.
    const nested = join(p, 'vendor/lib')
    mkdirSync(nested, { recursive: true })
    git(nested, 'init', '-q')
    writeFileSync(join(nested, 'lib.js'), 'module.exports = 1\n')
    writeFileSync(join(nested, '.gitattributes'), '* filter=evil diff=evil\n')
    git(nested, 'add', '-A')
    git(nested, 'commit', '-qm', 'lib')
    plantHooks(join(nested, '.git/hooks'))
    plantConfig(join(nested, '.git/config'), join(nested, '.git/hooks'))
    writeFileSync(join(p, '.gitmodules'), '[submodule "lib"]\n\tpath = vendor/lib\n\turl = ./vendor/lib\n')

    expect((await runCli(['init', '--project', p], { env })).code).toBe(0)
    // The store's own config, as if something had written to it.
    const store = join(p, '.ralph/snapshots.git')
    plantHooks(join(store, 'hooks'))
    plantConfig(join(store, 'config'), join(store, 'hooks'))

    const first = await runCli(['snapshot', 'save', '-m', 'one', '--json', '--project', p], { env })
    expect(first.stderr).toBe('')
    expect(first.code).toBe(0)
    const one = (JSON.parse(first.stdout) as { snapshot: { tag: string } }).snapshot.tag
    writeFileSync(join(p, 'src/app.ts'), 'export const v = 2\n')
    writeFileSync(join(nested, 'lib.js'), 'module.exports = 2\n')
    const second = await runCli(['snapshot', 'save', '-m', 'two', '--json', '--project', p], { env })
    expect(second.code).toBe(0)
    const two = (JSON.parse(second.stdout) as { snapshot: { tag: string } }).snapshot.tag

    for (const args of [
      ['snapshot', 'status'],
      ['snapshot', 'diff', one, two],
      ['snapshot', 'diff', one, two, '--file', 'src/app.ts'],
      ['snapshot', 'rollback', one],
      ['snapshot', 'undo'],
    ]) {
      const r = await runCli([...args, '--project', p], { env })
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0)
    }
    expect(readFileSync(join(p, 'src/app.ts'), 'utf8')).toBe('export const v = 2\n')
    expect(existsSync(marker) ? readFileSync(marker, 'utf8') : '').toBe('')

    // The plants are live: plain git, in the nested repository or on the store, runs them (the test can fail).
    git(nested, 'status', '--porcelain')
    expect(readFileSync(marker, 'utf8')).toContain('fsmonitor')
    writeFileSync(marker, '')
    git(p, `--git-dir=${store}`, `--work-tree=${p}`, 'status', '--porcelain')
    expect(readFileSync(marker, 'utf8')).toContain('fsmonitor')
  })
})
