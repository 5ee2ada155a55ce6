import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { isAppError } from '../../../src/shared/errors'
import { logResultSchema, mutationResultSchema, type MutationResult } from '../../../src/shared/queue'
import * as queue from '../../../src/main/queue'
import { write } from '../../../src/main/snapshots/testkit'
import { makeTempDir } from '../../helpers/tempDir'
import { fileAt, refCount, refHead, storeGit } from './gitkit'
import { memoryLogger } from '../../../src/main/workspace/logFile'

/** The queue's changes in these tests: failures they survive are kept in memory. */
const options = { logger: memoryLogger() }

let dir: string
let cleanup: () => void
beforeEach(() => {
  ;({ path: dir, cleanup } = makeTempDir('ralph-queue-'))
  write(dir, 'specs/coverage.md', '# Coverage\n')
  write(dir, 'specs/next.md', '# Next\n')
})
afterEach(() => cleanup())

const planText = () => readFileSync(join(dir, '.ralph/plan.jsonl'), 'utf8')

async function rejects(p: Promise<unknown>, kind: string, message: RegExp): Promise<void> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  )
  expect(isAppError(err), String(err)).toBe(true)
  expect((err as { kind: string }).kind).toBe(kind)
  expect((err as Error).message).toMatch(message)
}

describe('mutations', () => {
  it('every mutation writes plan.jsonl and records exactly one commit holding it on refs/ralph/queue', async () => {
    const projectDir = dir
    let expected = 0
    const check = (r: MutationResult): MutationResult => {
      expected++
      // Plain JSON that the contract's schema accepts as it is.
      expect(mutationResultSchema.parse(JSON.parse(JSON.stringify(r)))).toEqual(r)
      expect(refCount(dir)).toBe(expected)
      expect(r.commit).toBe(refHead(dir))
      expect(fileAt(dir, 'refs/ralph/queue')).toBe(planText())
      expect(storeGit(dir, 'log', '-1', '--format=%s', 'refs/ralph/queue').trim()).toBe(r.message)
      expect(storeGit(dir, 'ls-tree', '--name-only', 'refs/ralph/queue').trim()).toBe('plan.jsonl')
      return r
    }
    check(await queue.setSpec({ projectDir, spec: './specs/coverage.md', options }))
    const a = check(
      await queue.addTask({
        projectDir,
        name: 'Add parser tests',
        accept: ['DET: npm test'],
        priority: 'high',
        options,
      }),
    )
    const [ta] = a.ids
    const b = check(
      await queue.addTask({ projectDir, name: 'Fix tokenizer', deps: [ta!], notes: 'edge cases', options }),
    )
    const [tb] = b.ids
    expect(b.state.tasks[1]).toMatchObject({
      id: tb,
      deps: [ta],
      blockedBy: [ta],
      notes: 'edge cases',
      spec: 'specs/coverage.md',
    })
    expect(check(await queue.markTaskDone({ projectDir, options })).state.tasks[0]).toMatchObject({
      id: ta,
      status: 'done',
    })
    check(await queue.rejectTask({ projectDir, reason: 'tests fail', options }))
    check(await queue.markTaskDone({ projectDir, id: ta, doneAt: 'abc123', options }))
    expect(check(await queue.acceptTasks({ projectDir, options })).state.tasks.map((t) => t.id)).toEqual([tb])
    check(await queue.editTask({ projectDir, id: tb!, priority: 'low', options }))
    const issue = check(await queue.addIssue({ projectDir, desc: 'Flaky test in CI', options }))
    expect(issue.ids[0]).toMatch(/^i-[0-9a-z]{4}$/)
    check(await queue.closeIssue({ projectDir, options }))
    check(await queue.cancelTask({ projectDir, id: tb!, options }))
    expect(await queue.queryStage({ projectDir })).toBe('COMPLETE')
    // The history is one line of commits, each parented on the one before.
    expect(storeGit(dir, 'rev-list', '--min-parents=2', '--count', 'refs/ralph/queue').trim()).toBe('0')
    // The store's own snapshot branch is untouched by queue changes.
    expect(storeGit(dir, 'for-each-ref', '--format=%(refname)').trim().split('\n')).toEqual([
      'refs/ralph/queue',
    ])
  })

  it('creates the snapshot store on first use and records nothing when the file would not change', async () => {
    expect(existsSync(join(dir, '.ralph/snapshots.git'))).toBe(false)
    await queue.setSpec({ projectDir: dir, spec: 'specs/coverage.md', options })
    const again = await queue.setSpec({ projectDir: dir, spec: 'specs/coverage.md', options })
    expect(again.commit).toBeNull()
    expect(again.message).toMatch(/no change/)
    expect(refCount(dir)).toBe(1)
  })

  it('done_at defaults to the latest snapshot', async () => {
    const { SnapshotEngine } = await import('../../../src/main/snapshots')
    await queue.setSpec({ projectDir: dir, spec: 'specs/coverage.md', options })
    await queue.addTask({ projectDir: dir, name: 'x', options })
    const saved = await new SnapshotEngine({ projectDir: dir, logger: memoryLogger() }).save({
      kind: 'manual',
    })
    const done = await queue.markTaskDone({ projectDir: dir, options })
    expect(done.state.tasks[0]!.doneAt).toBe(saved.commit)
  })

  it('refuses with errors that say what was wrong and what to do', async () => {
    await rejects(
      queue.setSpec({ projectDir: dir, spec: 'specs/missing.md', options }),
      'not-found',
      /spec file specs\/missing\.md does not exist/,
    )
    await rejects(
      queue.addTask({ projectDir: dir, name: 'x', options }),
      'invalid-input',
      /No spec is set.*ralph set-spec/,
    )
    await queue.setSpec({ projectDir: dir, spec: 'specs/coverage.md', options })
    await rejects(
      queue.addTask({ projectDir: dir, name: 'x', deps: ['t-zzzz'], options }),
      'not-found',
      /Unknown dependency t-zzzz/,
    )
    await rejects(queue.acceptTasks({ projectDir: dir, options }), 'invalid-input', /No done tasks/)
    await rejects(queue.queryState({ projectDir: join(dir, 'nope') }), 'not-found', /does not exist/)
    // Refused commands leave the file and the history as they were.
    expect(refCount(dir)).toBe(1)
  })
})

describe('loading', () => {
  it('reports malformed lines by line number, warns about duplicate ids, and keeps both through a mutation', async () => {
    const lines = [
      '{"t": "spec", "spec": "specs/coverage.md"}',
      '{"t":"task","id":"t-1a2b","spec":"specs/coverage.md","name":"one","s":"p"}',
      '<<<<<<< HEAD',
      '{"t":"task","id":"t-1a2b","spec":"specs/coverage.md","name":"one again","s":"p"}',
      '{"t":"task","id":"t-3c4d"}',
    ]
    write(dir, '.ralph/plan.jsonl', lines.join('\n') + '\n')
    const state = await queue.queryState({ projectDir: dir })
    expect(state.malformed.map((m) => [m.line, m.text])).toEqual([
      [3, '<<<<<<< HEAD'],
      [5, '{"t":"task","id":"t-3c4d"}'],
    ])
    expect(state.tasks.map((t) => t.name)).toEqual(['one', 'one again'])
    expect(state.warnings.map((w) => w.line)).toContain(4)
    const added = await queue.addTask({ projectDir: dir, name: 'three', options })
    expect(planText().split('\n').slice(0, 5)).toEqual(lines)
    expect(added.state.malformed.map((m) => m.line)).toEqual([3, 5])
    expect(fileAt(dir, 'refs/ralph/queue')).toBe(planText())
  })
})

describe('pre-flight of a new spec', () => {
  it('asks before dropping unfinished tasks; abort changes nothing; cancel drops tasks and tombstones', async () => {
    await queue.setSpec({ projectDir: dir, spec: 'specs/coverage.md', options })
    const { ids } = await queue.addTask({ projectDir: dir, name: 'pending one', options })
    await queue.addTask({ projectDir: dir, name: 'rejected one', options })
    await queue.markTaskDone({ projectDir: dir, id: ids[0], options })
    await queue.rejectTask({ projectDir: dir, reason: 'no', options })
    await queue.addIssue({ projectDir: dir, desc: 'keep me', options })
    const before = planText()
    const commits = refCount(dir)

    const asked = await queue.startSpec({ projectDir: dir, spec: 'specs/next.md', options })
    expect(asked.outcome).toBe('needs-choice')
    expect(asked.preflight.prompt).toMatch(/^Found unfinished tasks from spec 'specs\/coverage\.md':/)
    const aborted = await queue.startSpec({
      projectDir: dir,
      spec: 'specs/next.md',
      onUnfinished: 'abort',
      options,
    })
    expect(aborted.outcome).toBe('aborted')
    expect(planText()).toBe(before)
    expect(refCount(dir)).toBe(commits)

    const started = await queue.startSpec({
      projectDir: dir,
      spec: 'specs/next.md',
      onUnfinished: 'cancel',
      options,
    })
    expect(started.outcome).toBe('started')
    expect(started.result!.state).toMatchObject({
      spec: 'specs/next.md',
      tasks: [],
      tombstones: [],
      stage: 'INVESTIGATE',
    })
    expect(started.result!.state.issues.map((i) => i.desc)).toEqual(['keep me'])
    expect(refCount(dir)).toBe(commits + 1)
  })
})

describe('log', () => {
  it('--all tells accepted, rejected and cancelled tasks apart from the history ref', async () => {
    const projectDir = dir
    await queue.setSpec({ projectDir, spec: 'specs/coverage.md', options })
    const acc = (await queue.addTask({ projectDir, name: 'will be accepted', options })).ids[0]!
    const rej = (await queue.addTask({ projectDir, name: 'will be rejected', options })).ids[0]!
    const can = (await queue.addTask({ projectDir, name: 'will be cancelled', options })).ids[0]!
    await queue.markTaskDone({ projectDir, id: acc, options })
    await queue.markTaskDone({ projectDir, id: rej, options })
    await queue.rejectTask({ projectDir, id: rej, reason: 'output format is wrong', options })
    await queue.acceptTasks({ projectDir, options })
    await queue.startSpec({ projectDir, spec: 'specs/next.md', onUnfinished: 'cancel', options })
    const open = (await queue.addTask({ projectDir, name: 'still open', options })).ids[0]!

    const log = await queue.queueLog({ projectDir, all: true })
    if (log.kind !== 'tasks') throw new Error('expected tasks')
    expect(logResultSchema.parse(log)).toEqual(log)
    const status = Object.fromEntries(log.tasks.map((t) => [t.id, t.status]))
    expect(status).toEqual({ [acc]: 'accepted', [rej]: 'rejected', [can]: 'cancelled', [open]: 'pending' })
    const rejected = log.tasks.find((t) => t.id === rej)!
    expect(rejected.rejected).toMatchObject({ reason: 'output format is wrong' })
    expect(rejected.desc).toBe('will be rejected')
    expect(log.tasks.find((t) => t.id === acc)!.accepted!.commit).toMatch(/^[0-9a-f]{40}$/)

    const bySpec = await queue.queueLog({ projectDir, all: true, spec: 'specs/next.md' })
    expect(bySpec.kind === 'tasks' && bySpec.tasks.map((t) => t.id)).toEqual([open])
  })

  it('lists recent changes newest first, filtered by spec and by --since (a commit or a date)', async () => {
    const projectDir = dir
    await queue.setSpec({ projectDir, spec: 'specs/coverage.md', options })
    const first = await queue.addTask({ projectDir, name: 'a', options })
    await queue.addTask({ projectDir, name: 'b', spec: 'specs/next.md', options })
    const log = await queue.queueLog({ projectDir })
    if (log.kind !== 'changes') throw new Error('expected changes')
    expect(log.entries.map((e) => e.op)).toEqual(['task-add', 'task-add', 'set-spec'])
    expect(log.entries[1]).toMatchObject({
      message: first.message,
      ids: first.ids,
      spec: 'specs/coverage.md',
    })
    const next = await queue.queueLog({ projectDir, spec: 'specs/next.md' })
    expect(next.kind === 'changes' && next.entries.map((e) => e.message)).toEqual([
      expect.stringMatching(/: b$/),
    ])
    const since = await queue.queueLog({ projectDir, since: first.commit!.slice(0, 10) })
    expect(since.kind === 'changes' && since.entries.length).toBe(1)
    const future = await queue.queueLog({ projectDir, since: '2999-01-01' })
    expect(future.kind === 'changes' && future.entries).toEqual([])
    const past = await queue.queueLog({ projectDir, since: '2000-01-01', limit: 2 })
    expect(past.kind === 'changes' && past.entries.length).toBe(2)
    await rejects(
      queue.queueLog({ projectDir, since: 'last tuesday' }),
      'invalid-input',
      /--since takes a date/,
    )
  })

  it('is empty for a project without history', async () => {
    expect(await queue.queueLog({ projectDir: dir })).toEqual({ kind: 'changes', entries: [] })
    expect(await queue.queueLog({ projectDir: dir, all: true })).toEqual({ kind: 'tasks', tasks: [] })
  })
})

describe('rollback', () => {
  it('restores plan.jsonl like any state file and never rewrites the history ref', async () => {
    const { SnapshotEngine } = await import('../../../src/main/snapshots')
    const engine = new SnapshotEngine({ projectDir: dir, logger: memoryLogger() })
    await queue.setSpec({ projectDir: dir, spec: 'specs/coverage.md', options })
    const kept = (await queue.addTask({ projectDir: dir, name: 'kept', options })).ids[0]!
    const snap = await engine.save({ kind: 'manual' })
    const atSnapshot = planText()
    const later = (await queue.addTask({ projectDir: dir, name: 'added later', options })).ids[0]!
    const head = refHead(dir)
    const count = refCount(dir)

    await engine.rollback(snap.tag)
    expect(planText()).toBe(atSnapshot)
    expect(refHead(dir)).toBe(head)
    expect(refCount(dir)).toBe(count)

    // The next change builds on the restored file and lands on top of the unchanged history.
    const next = await queue.addTask({ projectDir: dir, name: 'after rollback', options })
    expect(next.state.tasks.map((t) => t.name)).toEqual(['kept', 'after rollback'])
    expect(storeGit(dir, 'rev-parse', `${next.commit}^`).trim()).toBe(head)
    const log = await queue.queueLog({ projectDir: dir, all: true })
    const status = log.kind === 'tasks' ? Object.fromEntries(log.tasks.map((t) => [t.id, t.status])) : {}
    expect(status[kept]).toBe('pending')
    expect(status[later]).toBe('cancelled')
  })

  it('a plain overwrite of plan.jsonl (what a rollback does) leaves the ref alone', async () => {
    await queue.setSpec({ projectDir: dir, spec: 'specs/coverage.md', options })
    await queue.addTask({ projectDir: dir, name: 'x', options })
    const head = refHead(dir)
    writeFileSync(join(dir, '.ralph/plan.jsonl'), '{"t":"spec","spec":"specs/coverage.md"}\n')
    expect(await queue.queryStage({ projectDir: dir })).toBe('COMPLETE')
    expect(refHead(dir)).toBe(head)
  })
})
