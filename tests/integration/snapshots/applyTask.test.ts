import { execFileSync, spawn } from 'node:child_process'
import {
  chmodSync,
  cpSync,
  existsSync,
  lstatSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { rolledBackTasks } from '../../../src/shared/tasksOnDisk'
import { SnapshotEngine } from '../../../src/main/snapshots'
import { fingerprint, mtimes, read, removeDir, tempProject, write } from '../../../src/main/snapshots/testkit'
import { memoryLogger } from '../../../src/main/workspace/logFile'

// Applying a lane's merged commit to the user's folder as task N (snapshots/applyTask.ts): real git, real files,
// and a real child process killed with SIGKILL in the middle of the apply.

const child = fileURLToPath(new URL('./child.ts', import.meta.url))

let dir: string
let scratch: string
beforeEach(() => {
  dir = tempProject('ralph-apply-')
  scratch = tempProject('ralph-apply-lane-')
})
afterEach(() => {
  removeDir(dir)
  removeDir(scratch)
})

const gitDir = () => join(dir, '.ralph/snapshots.git')
const git = (...args: string[]): string =>
  execFileSync('git', [`--git-dir=${gitDir()}`, ...args], {
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
  }).trim()
const treeOf = (rev: string) => git('rev-parse', `${rev}^{tree}`)
const engineFor = () => new SnapshotEngine({ projectDir: dir, logger: memoryLogger() })

/**
 * A lane's merged result, as the merge writes it into the project's store: the project's files copied to a
 * scratch folder, changed by `edit`, committed onto `parent` with an index of its own, and named by `ref`.
 */
function mergedCommit(parent: string, ref: string, edit: (lane: string) => void): string {
  rmSync(scratch, { recursive: true, force: true })
  cpSync(dir, scratch, { recursive: true, filter: (src) => !src.includes('snapshots.git') })
  edit(scratch)
  const env = {
    ...process.env,
    GIT_INDEX_FILE: join(gitDir(), 'test-lane-index'),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
  }
  const run = (...args: string[]) =>
    execFileSync('git', [`--git-dir=${gitDir()}`, `--work-tree=${scratch}`, ...args], {
      encoding: 'utf8',
      env,
    }).trim()
  run('read-tree', parent)
  run('add', '-A', '.')
  const tree = run('write-tree')
  const commit = run(
    '-c',
    'user.name=T',
    '-c',
    'user.email=t@example.com',
    'commit-tree',
    tree,
    '-p',
    parent,
    '-m',
    'merged',
  )
  rmSync(env.GIT_INDEX_FILE, { force: true })
  git('update-ref', ref, commit)
  return commit
}

/** A project at its base (the integration commit), and a merged task that changes, adds and deletes files. */
async function scenario() {
  write(dir, 'keep.txt', 'untouched\n')
  write(dir, 'mod.txt', 'base\n')
  write(dir, 'del.txt', 'deleted by the task\n')
  write(dir, 'old/only.txt', 'its folder goes too\n')
  write(dir, 'tool.sh', '#!/bin/sh\necho hi\n')
  write(dir, 'secret.env', 'KEY=1\n')
  chmodSync(join(dir, 'secret.env'), 0o600)
  write(dir, '.ralph/plan.jsonl', '{"the integration\'s queue":true}\n')
  const engine = engineFor()
  const base = await engine.save({ kind: 'manual', message: 'the integration state' })
  const merged = mergedCommit(base.commit, 'refs/lanes/1/merged', (lane) => {
    write(lane, 'mod.txt', 'the task\n')
    write(lane, 'secret.env', 'KEY=2\n')
    write(lane, 'new/file.txt', 'added by the task\n')
    chmodSync(join(lane, 'tool.sh'), 0o755)
    symlinkSync('mod.txt', join(lane, 'latest'))
    rmSync(join(lane, 'del.txt'))
    rmSync(join(lane, 'old'), { recursive: true })
  })
  const options = {
    task: 1,
    commit: 'refs/lanes/1/merged',
    expectedBase: base.commit,
    preMessage: 'pre-task 1: add the feature',
    postMessage: 'task 1: added the feature',
    keepFolder: ['.ralph/plan.jsonl'],
  }
  return { engine, base, merged, options }
}

/** The user's edits during the build: one to a file the task changes, one the task never touched, and a new file. */
function userEdits(): void {
  write(dir, 'mod.txt', 'the user\n')
  write(dir, 'keep.txt', 'the user too\n')
  write(dir, 'extra.txt', 'made by the user\n')
  // Not the user's: the build's accept writes the queue in the folder, and it stays (keepFolder).
  write(dir, '.ralph/plan.jsonl', '{"accepted by the build":true}\n')
}

describe('applying a merged task to the folder', () => {
  it('writes only the paths that differ, between task-N-pre and task-N-post, and reads as a serial task', async () => {
    const { engine, base, merged, options } = await scenario()
    const past = new Date('2020-01-01T00:00:00Z')
    utimesSync(join(dir, 'keep.txt'), past, past)
    const untouched = mtimes(dir, ['keep.txt'])

    const r = await engine.applyCommitAsTask(options)
    if (r.kind !== 'applied') throw new Error(`not applied: ${JSON.stringify(r)}`)
    expect(r.preTag).toBe('task-1-pre')
    expect(r.postTag).toBe('task-1-post')
    expect(r.report.written.map((w) => `${w.change} ${w.path}`)).toEqual([
      'added latest',
      'modified mod.txt',
      'added new/file.txt',
      'modified secret.env',
      'modified tool.sh',
    ])
    expect(r.report.deleted.sort()).toEqual(['del.txt', 'old/only.txt'])
    expect(r.report.leftAlone).toEqual([])

    expect(mtimes(dir, ['keep.txt'])).toEqual(untouched)
    expect(read(dir, 'mod.txt').toString()).toBe('the task\n')
    expect(read(dir, 'new/file.txt').toString()).toBe('added by the task\n')
    expect(lstatSync(join(dir, 'tool.sh')).mode & 0o111).not.toBe(0)
    // A rewritten key file keeps its mode (never widened), and task-N-post records it.
    expect(read(dir, 'secret.env').toString()).toBe('KEY=2\n')
    expect(lstatSync(join(dir, 'secret.env')).mode & 0o777).toBe(0o600)
    expect(git('cat-file', 'commit', 'task-1-post')).toContain('Ralph-Modes: {"secret.env":"600"}')
    expect(readlinkSync(join(dir, 'latest'))).toBe('mod.txt')
    expect(existsSync(join(dir, 'del.txt'))).toBe(false)
    expect(existsSync(join(dir, 'old'))).toBe(false)

    // The timeline: the folder as it was, then exactly the merged tree; no safety snapshot, no rollback.
    expect(treeOf('task-1-pre')).toBe(treeOf(base.commit))
    expect(treeOf('task-1-post')).toBe(treeOf(merged))
    const list = (await engine.list()).items
    expect(list.map((s) => s.kind)).toEqual(['task-post', 'task-pre', 'manual'])
    // Counted from task-1-pre, as a serial task's post is.
    expect(list[0]).toMatchObject({
      ...{ task: 1, message: 'task 1: added the feature', rollbackTarget: null },
      ...{ added: 2, modified: 3, deleted: 2 },
    })
    expect(rolledBackTasks([...list].reverse())).toEqual(new Set())
    const status = await engine.status()
    expect(status).toMatchObject({ dirty: false, rollbackNotice: null })
    expect(status.position?.tag).toBe('task-1-post')
    expect(await engine.pendingRollbackNotice()).toBeNull()
    expect(existsSync(join(gitDir(), 'ralph-rollback.json'))).toBe(false)
    await expect(engine.applyCommitAsTask(options)).rejects.toThrow(
      'Task 1 is in the timeline already (task-1-post exists).',
    )
  })

  it('stops at user edits in its way with nothing written; "keep theirs" applies the rest around them', async () => {
    const { engine, merged, options } = await scenario()
    userEdits()
    const before = fingerprint(dir)
    const tagsBefore = (await engine.list()).total

    const asked = await engine.applyCommitAsTask(options)
    expect(asked).toEqual({ kind: 'user-edits', paths: ['extra.txt', 'keep.txt', 'mod.txt'] })
    expect(fingerprint(dir)).toEqual(before)
    expect((await engine.list()).total).toBe(tagsBefore)

    const r = await engine.applyCommitAsTask({ ...options, userEdits: 'keep-theirs' })
    if (r.kind !== 'applied') throw new Error(`not applied: ${JSON.stringify(r)}`)
    expect(r.kept).toEqual(['extra.txt', 'keep.txt', 'mod.txt'])
    expect(r.overwritten).toEqual([])
    expect(read(dir, 'mod.txt').toString()).toBe('the user\n')
    expect(read(dir, 'keep.txt').toString()).toBe('the user too\n')
    expect(read(dir, 'extra.txt').toString()).toBe('made by the user\n')
    expect(read(dir, 'new/file.txt').toString()).toBe('added by the task\n')
    expect(existsSync(join(dir, 'del.txt'))).toBe(false)
    // task-N-post is the merged tree with the user's version at exactly the kept paths.
    const differs = git('diff-tree', '-r', '--name-only', '--no-renames', merged, 'task-1-post').split('\n')
    expect(differs).toEqual(['.ralph/plan.jsonl', 'extra.txt', 'keep.txt', 'mod.txt'])
    expect(git('show', 'task-1-post:mod.txt')).toBe('the user')
    expect(read(dir, '.ralph/plan.jsonl').toString()).toBe('{"accepted by the build":true}\n')
    expect((await engine.status()).dirty).toBe(false)
  })

  it("\"take the task's\" writes the task's version; the user's stays in task-N-pre", async () => {
    const { engine, merged, options } = await scenario()
    userEdits()
    // A build killed after taking task-1-pre (before any file was written): the next apply uses it again.
    await engine.save({ kind: 'task-pre', task: 1, message: 'pre-task 1: add the feature' })
    const r = await engine.applyCommitAsTask({ ...options, userEdits: 'take-task' })
    if (r.kind !== 'applied') throw new Error(`not applied: ${JSON.stringify(r)}`)
    expect(r.preTag).toBe('task-1-pre')
    expect((await engine.list({ kind: 'task-pre' })).total).toBe(1)
    expect(r.overwritten).toEqual(['extra.txt', 'keep.txt', 'mod.txt'])
    expect(read(dir, 'mod.txt').toString()).toBe('the task\n')
    expect(read(dir, 'keep.txt').toString()).toBe('untouched\n')
    expect(existsSync(join(dir, 'extra.txt'))).toBe(false)
    // The build's own file is no user edit: it stays whatever the choice.
    expect(git('diff-tree', '-r', '--name-only', merged, 'task-1-post')).toBe('.ralph/plan.jsonl')
    expect((await engine.show('task-1-pre', 'mod.txt')).content.toString()).toBe('the user\n')
    expect((await engine.show('task-1-pre', 'extra.txt')).content.toString()).toBe('made by the user\n')
  })
})

describe('an interrupted apply that cannot be finished on its own', () => {
  it('asks for Finish rollback, which keeps the unexplained file in a safety snapshot naming no rollback', async () => {
    const { engine, merged } = await scenario()
    const pre = await engine.save({ kind: 'task-pre', task: 1, message: 'pre-task 1' })
    // What a kill leaves: the journal (as applyTask.ts writes it), one file written; then someone adds a file.
    const journal = {
      ...{ target: 'task-1-post', targetCommit: merged, safetyTag: pre.tag, safetyCommit: pre.commit },
      ...{ startedAt: 1_700_000_000_000, undo: false, apply: { task: 1, postMessage: 'task 1: done' } },
    }
    writeFileSync(join(gitDir(), 'ralph-rollback.json'), JSON.stringify(journal))
    write(dir, 'mod.txt', 'the task\n')
    write(dir, 'note.txt', 'written after the crash\n')

    const next = engineFor()
    const notice = (await next.status()).rollbackNotice
    expect(notice).toMatchObject({ state: 'interrupted', target: 'task-1-post' })
    expect(notice?.message).toMatch(
      /^Applying task 1's merged work was interrupted, .*note\.txt changed since/,
    )
    const report = await next.finishRollback()
    expect(treeOf('task-1-post')).toBe(treeOf(merged))
    expect(existsSync(join(dir, 'note.txt'))).toBe(false)
    expect((await next.show(report.safetyTag!, 'note.txt')).content.toString()).toBe(
      'written after the crash\n',
    )
    const list = (await next.list()).items
    expect(list.find((s) => s.tag === report.safetyTag)?.rollbackTarget).toBeNull()
    expect(rolledBackTasks([...list].reverse())).toEqual(new Set())
    expect((await next.status()).rollbackNotice).toBeNull()
  })
})

describe('an apply killed with SIGKILL midway', () => {
  const FILES = 2_000
  const name = (i: number) => `src/f${String(i).padStart(4, '0')}.txt`
  const content = (side: 'A' | 'B', i: number) => `${side} ${i}\n`.repeat(400)
  /** 'A' or 'B' when every file holds that side, else the first file that does not. */
  const side = (): string => {
    if (!existsSync(join(dir, name(0)))) return `mixed at ${name(0)}`
    const first = readFileSync(join(dir, name(0)), 'utf8') === content('A', 0) ? 'A' : 'B'
    for (let i = 0; i < FILES; i++) {
      const file = join(dir, name(i))
      if (!existsSync(file) || readFileSync(file, 'utf8') !== content(first, i)) return `mixed at ${name(i)}`
    }
    return first
  }

  /** Runs `child.ts apply` and kills it once the first file holds the task's content; true if it was killed. */
  async function killMidway(options: object, to: 'A' | 'B'): Promise<boolean> {
    const proc = spawn(process.execPath, ['--import', 'tsx', child, 'apply', dir, JSON.stringify(options)], {
      stdio: 'ignore',
    })
    let done = false
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()))
    void exited.then(() => (done = true))
    const changed = () => {
      try {
        return readFileSync(join(dir, name(0)), 'utf8') === content(to, 0)
      } catch {
        return true // unlinked for its rewrite: the apply is writing
      }
    }
    while (!done && !changed()) await new Promise((r) => setImmediate(r))
    const killed = !done && proc.kill('SIGKILL')
    await exited
    return killed
  }

  it('is finished by the next open: the folder is exactly at task-N-post, and no rollback is reported', async () => {
    for (let i = 0; i < FILES; i++) write(dir, name(i), content('A', i))
    let base = (await engineFor().save({ kind: 'manual', message: 'the integration state' })).commit
    let midway = false
    // Each try applies the next task (the other side's content); a child that finished before the kill is a
    // plain apply, and the next try goes back the other way.
    for (let task = 1; task <= 4 && !midway; task++) {
      const to = task % 2 === 1 ? 'B' : 'A'
      const merged = mergedCommit(base, `refs/lanes/${task}/merged`, (lane) => {
        for (let i = 0; i < FILES; i++) write(lane, name(i), content(to, i))
      })
      const options = {
        task,
        commit: merged,
        expectedBase: base,
        preMessage: `pre-task ${task}`,
        postMessage: `task ${task}: all ${to}`,
      }
      const killed = await killMidway(options, to)
      const journal = existsSync(join(gitDir(), 'ralph-rollback.json'))
      if (killed && journal) midway = side() !== to
      else expect(journal).toBe(false)

      const next = engineFor()
      const status = await next.status()
      expect(side()).toBe(to)
      expect(treeOf(`task-${task}-post`)).toBe(treeOf(merged))
      expect(treeOf(`task-${task}-pre`)).toBe(treeOf(base))
      expect(status).toMatchObject({ dirty: false, rollbackNotice: null })
      expect(status.position?.tag).toBe(`task-${task}-post`)
      expect(existsSync(join(gitDir(), 'ralph-rollback.json'))).toBe(false)
      if (killed && journal) {
        expect(next.repairsMade).toContainEqual(
          expect.stringContaining(
            `Applying task ${task}'s merged work was interrupted and has been finished`,
          ),
        )
      }
      const list = (await next.list()).items
      expect(list.filter((s) => s.kind === 'safety')).toEqual([])
      expect(rolledBackTasks([...list].reverse())).toEqual(new Set())
      base = merged
    }
    expect(midway).toBe(true)
  }, 300_000)
})
