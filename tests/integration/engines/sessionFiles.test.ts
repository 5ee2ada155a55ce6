// The files around an engine session, with real bubblewrap and real files: the staged `.ralph/` (an agent may write
// its files by rename; only the model's own files come back, the harness's stay the harness's) and the private
// home's login copy (a login the engine refreshed goes back to the user, never over one the user changed).
import { spawnSync } from 'node:child_process'
import {
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { prepareSandbox, sandboxSupport } from '../../../src/main/sandbox'
import { stageRalphDir } from '../../../src/main/engines/ralphStage'
import { createSessionHome } from '../../../src/main/engines/sessionHome'
import { claudeCodeAdapter } from '../../../src/main/engines/claudeCode'
import { codexAdapter } from '../../../src/main/engines/codex'
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
  // The harness's lock, held while the session starts (it goes away at any moment): never part of the copy.
  writeFileSync(join(dir, '.ralph/snapshots.lock'), '')
  return dir
}

describe("an engine session's staged .ralph/", () => {
  it('takes writes by rename, copies back only plan.tsx/summary.md/status.txt, keeps folders read-only and the store hidden', async () => {
    expect((await sandboxSupport()).kind).toBe('bubblewrap')
    const dir = project()
    const session = temp('ralph-stage-session-')
    const stage = (await stageRalphDir(dir, session, memoryLogger()))!
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
      `test -e ${r('.ralph/snapshots.lock')} && echo lock-copied || echo lock-not-copied`,
    ].join('; ')
    const launch = sandbox.wrap(script, { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: session })
    const run = spawnSync(launch.file, launch.args, { env: launch.env, encoding: 'utf8' })
    expect(run.stdout.trim().split('\n'), run.stderr).toEqual([
      'plan-ok',
      'status-ok',
      'config-in-copy',
      'attachments-read-only',
      'store-hidden',
      'lock-not-copied',
    ])
    // Nothing reached the project until the copy-back, which takes only the model's files.
    expect(readFileSync(join(dir, '.ralph/plan.tsx'), 'utf8')).toBe('old plan\n')
    expect(await stage.syncBack()).toEqual(['.ralph/plan.tsx', '.ralph/status.txt'])
    expect(readFileSync(join(dir, '.ralph/plan.tsx'), 'utf8')).toBe('new plan\n')
    expect(readFileSync(join(dir, '.ralph/status.txt'), 'utf8')).toBe('complete')
    expect(readFileSync(join(dir, '.ralph/config.json'), 'utf8')).toBe('{"maxIterations": 5}\n')
    expect(readFileSync(join(dir, '.ralph/snapshots.git/HEAD'), 'utf8')).toBe('ref: refs/heads/main\n')
  })

  it('never follows a link out of the copy: a host file linked as plan.tsx, a FIFO, a replaced stage stay behind', async () => {
    const dir = project()
    const secretDir = temp('ralph-host-secret-')
    const secret = join(secretDir, 'id_ed25519')
    writeFileSync(secret, '-----BEGIN OPENSSH PRIVATE KEY----- host secret\n')
    const session = temp('ralph-stage-session-')
    const log = memoryLogger()
    const stage = (await stageRalphDir(dir, session, log))!
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
    // What a steered model does in a session: `ln -sf ~/.ssh/id_ed25519 .ralph/plan.tsx`, and a FIFO for a hang.
    const script = `ln -sf ${quote(secret)} ${r('.ralph/plan.tsx')} && mkfifo ${r('.ralph/summary.md')} && echo planted`
    const launch = sandbox.wrap(script, { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: session })
    const run = spawnSync(launch.file, launch.args, { env: launch.env, encoding: 'utf8' })
    expect(run.stdout.trim(), run.stderr).toBe('planted')
    const again = (await stageRalphDir(dir, temp('ralph-stage-session-'), memoryLogger()))!
    expect(await stage.syncBack()).toEqual([])
    expect(log.lines.join('\n')).toMatch(/plan\.tsx .*a symbolic link/)
    expect(log.lines.join('\n')).toMatch(/summary\.md .*a named pipe/)
    expect(readFileSync(join(dir, '.ralph/plan.tsx'), 'utf8')).toBe('old plan\n')
    expect(existsSync(join(dir, '.ralph/summary.md'))).toBe(false)
    // The stage renamed away and a link to a folder of host files put in its place: nothing is read through it.
    const hostDir = temp('ralph-host-files-')
    writeFileSync(join(hostDir, 'plan.tsx'), 'a host file\n')
    const at = again.stage
    renameSync(at, `${at}.moved`)
    symlinkSync(hostDir, at)
    expect(await again.syncBack()).toEqual([])
    expect(readFileSync(join(dir, '.ralph/plan.tsx'), 'utf8')).toBe('old plan\n')
  })

  it('does not overwrite a model file the harness changed meanwhile when the engine left it alone', async () => {
    const dir = project()
    const stage = (await stageRalphDir(dir, temp('ralph-stage-session-'), memoryLogger()))!
    // mark_complete runs in Ralph's process during the session and writes the real status.txt.
    writeFileSync(join(dir, '.ralph/status.txt'), 'complete')
    expect(await stage.syncBack()).toEqual([])
    expect(readFileSync(join(dir, '.ralph/status.txt'), 'utf8')).toBe('complete')
  })
})

describe("an engine session's private home", () => {
  it("always holds the engine's folders and the user's configuration, never their login", async () => {
    const userHome = temp('ralph-user-home-')
    const spec = { dirs: codexAdapter.homeDirs, files: codexAdapter.homeFiles }
    // A user with no ~/.codex at all (only an API key): CODEX_HOME must still exist.
    const bare = await createSessionHome(spec, userHome, memoryLogger())
    expect(bare.copied).toEqual([])
    expect(statSync(join(bare.path, '.codex')).isDirectory()).toBe(true)
    await bare.remove()
    mkdirSync(join(userHome, '.codex'))
    writeFileSync(join(userHome, '.codex/config.toml'), 'model = "gpt-5.1"\n')
    writeFileSync(join(userHome, '.codex/auth.json'), '{"OPENAI_API_KEY":"sk-real"}')
    const home = await createSessionHome(spec, userHome, memoryLogger())
    expect(home.copied).toEqual(['.codex/config.toml'])
    expect(existsSync(join(home.path, '.codex/auth.json'))).toBe(false)
    await home.remove()
    expect(existsSync(home.path)).toBe(false)
    for (const adapter of [claudeCodeAdapter, codexAdapter])
      expect(adapter.homeFiles.filter((f) => /credentials|auth\.json|\.claude\.json/.test(f))).toEqual([])
  })
})
