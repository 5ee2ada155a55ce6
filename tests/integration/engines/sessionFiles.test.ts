// The files around an engine session, with real bubblewrap and real files: the staged `.ralph/` (an agent may write
// its files by rename; only the model's own files come back, the harness's stay the harness's) and the private
// home's login copy (a login the engine refreshed goes back to the user, never over one the user changed).
import { spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { prepareSandbox, sandboxSupport } from '../../../src/main/sandbox'
import { stageRalphDir } from '../../../src/main/engines/ralphStage'
import { createSessionHome } from '../../../src/main/engines/sessionHome'
import { memoryLogger } from '../../../src/main/workspace/logFile'
import { makeTempDir } from '../../helpers/tempDir'

const cleanups: (() => void)[] = []
afterEach(() => cleanups.splice(0).forEach((c) => c()))
const temp = (prefix: string) => {
  const d = makeTempDir(prefix)
  cleanups.push(d.cleanup)
  return d.path
}
const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`

function project(): string {
  const dir = temp('ralph-stage-')
  mkdirSync(join(dir, '.ralph/attachments/task-1'), { recursive: true })
  mkdirSync(join(dir, '.ralph/snapshots.git'))
  writeFileSync(join(dir, '.ralph/snapshots.git/HEAD'), 'ref: refs/heads/main\n')
  writeFileSync(join(dir, '.ralph/plan.tsx'), 'old plan\n')
  writeFileSync(join(dir, '.ralph/status.txt'), 'running\n')
  writeFileSync(join(dir, '.ralph/config.json'), '{"maxIterations": 5}\n')
  writeFileSync(join(dir, '.ralph/attachments/task-1/shot.png'), 'png')
  return dir
}

describe("an engine session's staged .ralph/", () => {
  it('takes writes by rename, copies back only plan.tsx/summary.md/status.txt, keeps folders read-only and the store hidden', async () => {
    expect((await sandboxSupport()).kind).toBe('bubblewrap')
    const dir = project()
    const session = temp('ralph-stage-session-')
    const stage = (await stageRalphDir(dir, session))!
    expect(stage.folders).toEqual([join(dir, '.ralph/attachments')])
    const sandbox = await prepareSandbox({
      projectDir: dir,
      env: process.env,
      writableRalphFiles: [],
      home: session,
      ralphStage: stage,
      logger: memoryLogger(),
    })
    if (!sandbox.ok) throw new Error(sandbox.message)
    const r = (rel: string) => quote(join(dir, rel))
    const script = [
      // An agent's atomic write: a temp file beside the target, then rename.
      `printf 'new plan\\n' > ${r('.ralph/.plan.tmp')} && mv ${r('.ralph/.plan.tmp')} ${r('.ralph/plan.tsx')} && echo plan-ok`,
      `printf 'complete' > ${r('.ralph/status.txt')} && echo status-ok`,
      // A harness file can be changed in the copy, but that change never reaches the project.
      `printf '{"maxIterations": 999}' > ${r('.ralph/config.json')} && echo config-in-copy`,
      `touch ${r('.ralph/attachments/task-1/new.png')} 2>/dev/null && echo attachments-writable || echo attachments-read-only`,
      `test -e ${r('.ralph/snapshots.git/HEAD')} && echo store-seen || echo store-hidden`,
    ].join('; ')
    const launch = sandbox.wrap(script, { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: session })
    const run = spawnSync(launch.file, launch.args, { env: launch.env, encoding: 'utf8' })
    expect(run.stdout.trim().split('\n'), run.stderr).toEqual([
      'plan-ok',
      'status-ok',
      'config-in-copy',
      'attachments-read-only',
      'store-hidden',
    ])
    // Nothing reached the project until the copy-back, which takes only the model's files.
    expect(readFileSync(join(dir, '.ralph/plan.tsx'), 'utf8')).toBe('old plan\n')
    expect(await stage.syncBack()).toEqual(['.ralph/plan.tsx', '.ralph/status.txt'])
    expect(readFileSync(join(dir, '.ralph/plan.tsx'), 'utf8')).toBe('new plan\n')
    expect(readFileSync(join(dir, '.ralph/status.txt'), 'utf8')).toBe('complete')
    expect(readFileSync(join(dir, '.ralph/config.json'), 'utf8')).toBe('{"maxIterations": 5}\n')
    expect(readFileSync(join(dir, '.ralph/snapshots.git/HEAD'), 'utf8')).toBe('ref: refs/heads/main\n')
  })

  it('does not overwrite a model file the harness changed meanwhile when the engine left it alone', async () => {
    const dir = project()
    const stage = (await stageRalphDir(dir, temp('ralph-stage-session-')))!
    // mark_complete runs in Ralph's process during the session and writes the real status.txt.
    writeFileSync(join(dir, '.ralph/status.txt'), 'complete')
    expect(await stage.syncBack()).toEqual([])
    expect(readFileSync(join(dir, '.ralph/status.txt'), 'utf8')).toBe('complete')
  })
})

describe("an engine session's private home", () => {
  it('copies the login, writes a refreshed one back, and never over a login the user changed meanwhile', async () => {
    const userHome = temp('ralph-user-home-')
    mkdirSync(join(userHome, '.claude'))
    writeFileSync(join(userHome, '.claude/.credentials.json'), '{"token":"old"}')
    writeFileSync(join(userHome, '.claude.json'), '{"numStartups":1}')
    const files = ['.claude/.credentials.json', '.claude.json', '.claude/settings.json']
    const refreshed = ['.claude/.credentials.json']

    const home = await createSessionHome(files, userHome, memoryLogger(), refreshed)
    expect(home.copied).toEqual(['.claude/.credentials.json', '.claude.json'])
    writeFileSync(join(home.path, '.claude/.credentials.json'), '{"token":"refreshed"}')
    // The engine's own bookkeeping is not a login: it stays in the session.
    writeFileSync(join(home.path, '.claude.json'), '{"numStartups":2}')
    expect(await home.syncBack()).toEqual(['.claude/.credentials.json'])
    expect(readFileSync(join(userHome, '.claude/.credentials.json'), 'utf8')).toBe('{"token":"refreshed"}')
    expect(readFileSync(join(userHome, '.claude.json'), 'utf8')).toBe('{"numStartups":1}')
    await home.remove()

    const second = await createSessionHome(files, userHome, memoryLogger(), refreshed)
    writeFileSync(join(second.path, '.claude/.credentials.json'), '{"token":"from-session"}')
    // The user logged in again in a terminal while the session ran: theirs wins.
    writeFileSync(join(userHome, '.claude/.credentials.json'), '{"token":"user-new-login"}')
    expect(await second.syncBack()).toEqual([])
    expect(readFileSync(join(userHome, '.claude/.credentials.json'), 'utf8')).toBe(
      '{"token":"user-new-login"}',
    )
    await second.remove()
  })
})
