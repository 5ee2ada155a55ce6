import { execFileSync, spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  SnapshotEngine,
  type DiffResult,
  type FileDiff,
  type ListResult,
  type RollbackReport,
  type StatusResult,
  type UsageResult,
} from '../../../src/main/snapshots'
import { fingerprint, removeDir, tempProject, write } from '../../../src/main/snapshots/testkit'
import { unprivilegedPrefix } from '../../helpers/asNobody'
import { runCli } from '../../helpers/cli'
import { memoryLogger } from '../../../src/main/workspace/logFile'

const child = fileURLToPath(new URL('./child.ts', import.meta.url))

let root: string
let dir: string
beforeEach(() => {
  // The temp folder is private to its creator: the project inside it must be reachable by `nobody`.
  root = tempProject('ralph-snap-ro-')
  chmodSync(root, 0o755)
  dir = join(root, 'project')
  mkdirSync(dir)
})
afterEach(() => {
  execFileSync('chmod', ['-R', 'u+w', root])
  removeDir(root)
})

/** `child.ts read` as an unprivileged user (root ignores permissions), with the project made read-only. */
interface ReadOutput {
  list: ListResult
  status: StatusResult
  usage: UsageResult
  diff: DiffResult
  show: string
  fileDiff: FileDiff
  preview: RollbackReport
}

function readAsNobody(showPath: string): ReadOutput {
  execFileSync('chmod', ['-R', 'a-w,a+rX', dir])
  const [cmd, ...args] = [
    ...unprivilegedPrefix(),
    process.execPath,
    '--import',
    'tsx',
    child,
    'read',
    dir,
    showPath,
  ]
  const res = spawnSync(cmd!, args, { encoding: 'utf8', cwd: process.cwd(), timeout: 120_000 })
  expect(res.stderr).toBe('')
  expect(res.status).toBe(0)
  return JSON.parse(res.stdout.split('\n')[1]!) as ReadOutput
}

describe('read-only snapshot commands', () => {
  it('create nothing in a folder that has no store: empty list, a status without snapshots', async () => {
    write(dir, 'a.txt', 'a')
    const engine = new SnapshotEngine({ projectDir: dir, logger: memoryLogger() })
    expect(await engine.list()).toEqual({ items: [], total: 0 })
    expect(await engine.status()).toMatchObject({ snapshotCount: 0, position: null, latest: null })
    expect(await engine.usage()).toMatchObject({ snapshotCount: 0, storeBytes: 0 })
    await expect(engine.diff('task-1-pre')).rejects.toThrow('There is no snapshot "task-1-pre"')
    await expect(engine.previewRollback('task-1-pre')).rejects.toThrow('There is no snapshot')
    expect(await engine.open()).toEqual({ repairs: [] })
    expect(existsSync(join(dir, '.ralph'))).toBe(false)
  })

  it('work on a read-only project without a store, as an unprivileged user, and create nothing', () => {
    write(dir, 'a.txt', 'a')
    const out = readAsNobody('a.txt')
    expect(out.list).toEqual({ items: [], total: 0 })
    expect(out.status).toMatchObject({ snapshotCount: 0 })
    expect(existsSync(join(dir, '.ralph'))).toBe(false)
  }, 120_000)

  it('list, status, diff, show, preview and usage work on a read-only project with a store and change nothing', async () => {
    write(dir, 'a.txt', 'one\n')
    write(dir, 'b.txt', 'b\n')
    const saved = await new SnapshotEngine({ projectDir: dir, logger: memoryLogger() }).save({
      kind: 'manual',
      message: 'first',
    })
    write(dir, 'a.txt', 'two\n')
    write(dir, 'c.txt', 'new\n')
    const before = fingerprint(dir)

    const out = readAsNobody('a.txt')
    expect(out.list.items.map((s) => s.tag)).toEqual([saved.tag])
    expect(out.status).toMatchObject({ snapshotCount: 1, dirty: true, changes: { added: 1, modified: 1 } })
    expect(out.diff.entries).toEqual([
      { status: 'modified', path: 'a.txt' },
      { status: 'added', path: 'c.txt' },
    ])
    expect(out.show).toBe('one\n')
    expect(out.fileDiff.new.content).toBe('two\n')
    expect(out.preview.written).toEqual([{ path: 'a.txt', change: 'modified' }])
    expect(out.preview.deleted).toEqual(['c.txt'])
    expect(out.usage.snapshotCount).toBe(1)
    expect(fingerprint(dir)).toEqual(before)
    expect(existsSync(join(dir, '.ralph/snapshots.lock'))).toBe(false)
  }, 120_000)

  it('`ralph snapshot list` and `status` succeed on a read-only project as an unprivileged user', async () => {
    write(dir, 'a.txt', 'a')
    execFileSync('chmod', ['-R', 'a-w,a+rX', dir])
    // From the sources: `nobody` cannot rebuild out/node should another edit in this checkout make it stale.
    const env = { RALPH_HOME: join(root, 'home'), RALPH_FROM_SOURCE: '1' }
    mkdirSync(env.RALPH_HOME)
    chmodSync(env.RALPH_HOME, 0o777)
    const prefix = unprivilegedPrefix()
    const list = await runCli(['snapshot', 'list', '--project', dir, '--json'], { env, prefix })
    expect(list.stderr).toBe('')
    expect(list.code).toBe(0)
    expect(JSON.parse(list.stdout)).toMatchObject({ ok: true, items: [], total: 0 })
    const status = await runCli(['snapshot', 'status', '--project', dir, '--json'], { env, prefix })
    expect(status.code).toBe(0)
    expect(JSON.parse(status.stdout)).toMatchObject({ ok: true, snapshotCount: 0 })
    expect(existsSync(join(dir, '.ralph'))).toBe(false)
  }, 120_000)
})
