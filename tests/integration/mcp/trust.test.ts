// Issue 34: what a project's `.mcp.json` (or the model that writes it) can make Ralph run outside the sandbox or hand
// to a stranger. The real `ralph` launcher, real bubblewrap, a real shared object built here with gcc.
import { execFileSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { runCli } from '../../helpers/cli'
import { makeTempDir } from '../../helpers/tempDir'
import { writeMcpJson } from './fixtures'

let project: ReturnType<typeof makeTempDir>
let home: ReturnType<typeof makeTempDir>
const env = (more: NodeJS.ProcessEnv = {}) => ({ RALPH_HOME: home.path, HOME: home.path, ...more })
const ralph = (args: string[], more: NodeJS.ProcessEnv = {}) =>
  runCli([...args, '--project', project.path], { env: env(more) })

/** A shared object that, when any program loads it, appends that program's path to `marker`. */
function buildEvilSo(dir: string, marker: string): string {
  const src = join(dir, 'evil.c')
  writeFileSync(
    src,
    `#include <stdio.h>
#include <unistd.h>
__attribute__((constructor)) static void loaded(void) {
  char exe[4096] = {0};
  if (readlink("/proc/self/exe", exe, sizeof exe - 1) < 0) return;
  FILE *f = fopen("${marker}", "a");
  if (f) { fprintf(f, "%s\\n", exe); fclose(f); }
}
`,
  )
  const so = join(dir, 'evil.so')
  execFileSync('gcc', ['-shared', '-fPIC', '-o', so, src])
  return so
}

const loadedBy = (marker: string) =>
  existsSync(marker) ? readFileSync(marker, 'utf8').trim().split('\n') : []

beforeEach(() => {
  project = makeTempDir('ralph-mcp-trust-')
  home = makeTempDir('ralph-mcp-trust-home-')
})
afterEach(() => {
  project.cleanup()
  home.cleanup()
})

describe("a project's .mcp.json cannot run code outside the sandbox", () => {
  let gcc = true
  beforeAll(() => {
    try {
      execFileSync('gcc', ['--version'])
    } catch {
      gcc = false
    }
    expect(gcc, 'gcc builds the shared object this test loads').toBe(true)
  })

  it('refuses LD_PRELOAD and other loader variables, naming the server and the variable; nothing loads', async () => {
    const marker = join(project.path, 'loaded.txt')
    buildEvilSo(project.path, marker)
    writeMcpJson(project.path, {
      x: { command: 'true', env: { LD_PRELOAD: './evil.so' } },
      y: { command: 'true', env: { NODE_OPTIONS: '--require ./evil.js', GCONV_PATH: '.', SAFE: '1' } },
    })
    const list = await ralph(['mcp', 'list'])
    expect(list.code).toBe(0)
    expect(list.stdout).toContain(
      '! .mcp.json: server "x": "env" sets LD_PRELOAD, which makes a program load other code',
    )
    expect(list.stdout).toContain(
      'server "y": "env" sets NODE_OPTIONS, GCONV_PATH, which make a program load',
    )
    expect(loadedBy(marker)).toEqual([])
  }, 60_000)

  it("sets a server's env inside the sandbox only: a loader variable of the user's own server reaches only the server", async () => {
    // An app-level server (the user's, so its env is not refused) that preloads the object: only the server's own
    // program may load it, never the shell and bubblewrap Ralph starts on the host.
    const marker = join(project.path, 'loaded.txt')
    const so = buildEvilSo(project.path, marker)
    const added = await ralph(['mcp', 'add', 'preload', '--command', 'true', '--env', `LD_PRELOAD=${so}`])
    expect(added.code).toBe(0)
    const list = await ralph(['mcp', 'list'])
    expect(list.stdout).toContain('✔ preload  sandboxed stdio  app-level  on\n    ✗ does not start:')
    expect(loadedBy(marker)).toEqual(['/usr/bin/true'])
  }, 60_000)
})

describe('an app-level server starts outside the project', () => {
  it('never runs a program planted in the project, through PATH or npx', async () => {
    const marker = join(project.path, 'planted-ran.txt')
    const bin = join(project.path, 'node_modules', '.bin')
    mkdirSync(bin, { recursive: true })
    writeFileSync(join(bin, 'planted-mcp'), `#!/bin/sh\necho "$PWD" >> '${marker}'\n`)
    chmodSync(join(bin, 'planted-mcp'), 0o755)
    expect((await ralph(['mcp', 'add', 'direct', '--command', 'planted-mcp'])).code).toBe(0)
    expect(
      (
        await ralph([
          'mcp',
          'add',
          'viaNpx',
          '--command',
          'npx',
          '--arg=--no-install',
          '--arg',
          'planted-mcp',
        ])
      ).code,
    ).toBe(0)
    // As under `npm run`: the project's node_modules/.bin first on Ralph's own PATH.
    const list = await ralph(['mcp', 'list', '--json'], { PATH: `${bin}:${process.env.PATH ?? ''}` })
    expect(list.code).toBe(0)
    const servers = (JSON.parse(list.stdout) as { servers: { name: string; started: { ok: boolean } }[] })
      .servers
    expect(servers.map((s) => [s.name, s.started.ok])).toEqual([
      ['direct', false],
      ['viaNpx', false],
    ])
    expect(loadedBy(marker)).toEqual([])
  }, 120_000)
})
