// Issue 23: the user's home outside the project is invisible inside the sandbox but for the toolchain folders
// (read-only) and what the project adds; a project that lives in the home stays writable. Real bubblewrap, real
// files; HOME points at a temp folder laid out like a home for the length of each test.
import { memoryLogger } from '../../../src/main/workspace/logFile'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { sandboxSupport } from '../../../src/main/sandbox'
import { scratchHome } from '../../../src/main/sandbox/home'
import { runShellCommand } from '../../../src/main/tools'
import { removeDir } from '../../../src/main/tools/testkit'
import { initRalphDir } from '../../../src/main/workspace/initRalphDir'

let home: string
let project: string
let savedHome: string | undefined

const put = (rel: string, text: string) => {
  mkdirSync(join(home, rel, '..'), { recursive: true })
  writeFileSync(join(home, rel), text)
}
const sh = (command: string) =>
  runShellCommand(command, { cwd: project, timeoutMs: 20_000, env: process.env, logger: memoryLogger() })

beforeAll(async () => {
  expect((await sandboxSupport()).kind).toBe('bubblewrap')
})

beforeEach(async () => {
  // Not under /tmp: the sandbox's /tmp is a fresh one, which would hide the home whatever the home rules do.
  home = realpathSync(mkdtempSync('/var/tmp/ralph-fake-home-'))
  savedHome = process.env.HOME
  process.env.HOME = home
  put('.bashrc', 'export TOKEN=bashrc-secret-1\n')
  put('other-project/.env', 'TOKEN=other-env-secret-2\n')
  put('.config/chromium/Default/Cookies', 'cookie-secret-3\n')
  put('.nvm/versions/node/bin/tool', 'nvm-tool\n')
  put('.asdf-like/bin/tool', 'extra-tool\n')
  project = join(home, 'code', 'app')
  mkdirSync(project, { recursive: true })
  await initRalphDir(project, { openedFrom: 'sandbox test' })
})

afterEach(async () => {
  removeDir(await scratchHome(project))
  if (savedHome === undefined) delete process.env.HOME
  else process.env.HOME = savedHome
  removeDir(home)
})

describe('the home inside the sandbox', () => {
  it('hides dotfiles, other projects and browser profiles; shows the toolchains read-only; keeps the project writable', async () => {
    const r = await sh(
      [
        `cat ${home}/.bashrc ${home}/other-project/.env ${home}/.config/chromium/Default/Cookies`,
        `ls -a ${home}`,
        `cat ${home}/.nvm/versions/node/bin/tool`,
        `echo x > ${home}/.nvm/planted || echo nvm-read-only`,
        'echo made > made.txt && cat made.txt',
      ].join('; '),
    )
    expect(r.output).not.toMatch(/secret-\d/)
    expect(r.stdout).toContain('nvm-tool')
    expect(r.stdout).toContain('nvm-read-only')
    expect(r.stdout).toContain('made')
    expect(readFileSync(join(project, 'made.txt'), 'utf8')).toBe('made\n')
    expect(existsSync(join(home, '.nvm/planted'))).toBe(false)
    // The listing of the home shows only what was bound back into it.
    const listed = r.stdout.split('\n')
    expect(listed).toContain('.nvm')
    expect(listed).toContain('code')
    expect(listed).not.toContain('.bashrc')
    expect(listed).not.toContain('other-project')
  })

  it('shows a folder the project adds with homeAllow, and nothing that resolves into a credential store', async () => {
    writeFileSync(
      join(project, '.ralph/config.json'),
      JSON.stringify({ sandbox: { homeAllow: ['.asdf-like'] } }),
    )
    const r = await sh(`cat ${home}/.asdf-like/bin/tool`)
    expect(r.stdout).toContain('extra-tool')
    writeFileSync(join(project, '.ralph/config.json'), JSON.stringify({ sandbox: { homeAllow: ['.ssh'] } }))
    // A broken setting fails closed: nothing extra is shown (and the network is cut).
    const closed = await sh(`cat ${home}/.asdf-like/bin/tool`)
    expect(closed.stdout).not.toContain('extra-tool')
  })
})
