// `ralph build --parallel N` through the real CLI (issue #38): real git, real bubblewrap, real SQLite and the fake
// model server. Lanes call the model at the same time, so each task's replies are routed by its notes (the parse
// and the iterations both carry them), never by a FIFO script.
import { execFileSync, spawn } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { addTask, cancelTask, queryState, setSpec } from '../../../src/main/queue'
import { openDatabase } from '../../../src/main/store/database'
import { SnapshotEngine, storePaths } from '../../../src/main/snapshots'
import { createLane, keptMessage, laneProjectId, projectLanesDir } from '../../../src/main/lanes'
import { MERGED_FROM_TAG } from '../../../src/main/lanes/verifyMerged'
import { runBuild, type BuildEvent } from '../../../src/main/build'
import { verifyTask } from '../../../src/main/verify'
import { memoryLogger } from '../../../src/main/workspace/logFile'
import {
  startFakeLlmServer,
  verdictSealOf,
  type FakeLlmServer,
  type RecordedRequest,
} from '../../fixtures/fakeLlmServer'
import { RALPH_BIN, runCli } from '../../helpers/cli'
import { makeTempDir } from '../../helpers/tempDir'
import { loopFixture, say, tools } from '../loop/harness'
import { CHECK_SCRIPT, cliEnv, ndjson, writeAttempt } from '../build/buildCliFixture'

const options = { logger: memoryLogger() }

type Event = {
  type: string
  lane?: number | null
  taskId?: string
  task?: number
  tag?: string
  commit?: string
  kind?: string
  status?: string
  event?: string
  verifiedAgain?: boolean
}

describe('ralph build --parallel (lanes, through the CLI)', { timeout: 300_000 }, () => {
  let llm: FakeLlmServer
  let project: ReturnType<typeof makeTempDir>
  let home: ReturnType<typeof makeTempDir>
  let env: NodeJS.ProcessEnv
  beforeAll(async () => {
    llm = await startFakeLlmServer()
  })
  afterAll(() => llm.close())
  beforeEach(async () => {
    // A test scripts replies for outcomes that may not happen (which of two tasks reruns): none is left over.
    llm.reset()
    llm.fallback = say('Nothing more.')
    project = makeTempDir('ralph-lanes-build-')
    home = makeTempDir('ralph-home-')
    env = cliEnv(home.path, llm.baseUrl)
    writeFileSync(join(project.path, 'check.cjs'), CHECK_SCRIPT)
    writeFileSync(join(project.path, 'spec.md'), '# Files\n')
    await setSpec({ projectDir: project.path, spec: 'spec.md', options })
  })
  afterEach(() => {
    project.cleanup()
    home.cleanup()
  })

  const notes = (file: string, want: string) => `Write the word ${want} into ${file} and nothing else.`
  /** A task whose DET criterion checks FILE (no model call to verify), its replies routed by its notes. */
  const add = async (name: string, file: string, want: string, deps: string[] = []) => {
    const id = (
      await addTask({
        projectDir: project.path,
        name,
        notes: notes(file, want),
        accept: [`DET: \`node check.cjs ${file} ${want}\` exits 0`],
        deps,
        options,
      })
    ).ids[0]!
    return id
  }
  type Judged = readonly (readonly [file: string, want: string])[]
  /** Tasks whose criteria are a DET check of their file and the model-judged `looks` (each `LLM: FILE says WANT…`). */
  const addJudged = async (tasks: Judged, looks: readonly string[]) => {
    for (const [file, want] of tasks)
      await addTask({
        projectDir: project.path,
        name: `Write ${file}`,
        notes: notes(file, want),
        accept: [
          `DET: \`node check.cjs ${file} ${want}\` exits 0`,
          ...looks.map((look) => `LLM: ${file} says ${want}${look}`),
        ],
        options,
      })
  }
  /** The parse or iteration reply for whichever of `tasks` the request is about (its notes are in it). */
  const attemptReply = (tasks: Judged, request: RecordedRequest) => {
    const body = JSON.stringify(request.body)
    const mine = tasks.find(([file, want]) => body.includes(notes(file, want)))
    if (!mine) return say('Nothing more.')
    const [parse, iteration] = writeAttempt(mine[0], mine[1])
    return Array.isArray((request.body as { tools?: unknown }).tools) ? iteration! : parse!
  }
  /** The replies of one attempt of the task whose notes are `notes(file, want)`. */
  const script = (file: string, want: string, write = want) =>
    llm.route((r) => JSON.stringify(r.body).includes(notes(file, want)), ...writeAttempt(file, write))

  const build = async (parallel: number, ...flags: string[]) => {
    const result = await runCli(
      ['build', '--json', '--parallel', String(parallel), ...flags, '--project', project.path],
      {
        env,
      },
    )
    writeFileSync(join(home.path, 'transcript.ndjson'), result.stdout)
    return { result, events: ndjson<Event>(result.stdout) }
  }
  /** The project store's tags and their commits. */
  const storeTags = () =>
    new Map(
      execFileSync('git', [`--git-dir=${storePaths(project.path).gitDir}`, 'show-ref', '--tags'], {
        encoding: 'utf8',
      })
        .split('\n')
        .filter(Boolean)
        .map((l) => {
          const [commit, ref] = l.split(' ')
          return [ref!.replace('refs/tags/', ''), commit!] as const
        }),
    )
  const laneFolders = () => {
    const dir = projectLanesDir(home.path, laneProjectId(project.path))
    return existsSync(dir) ? readdirSync(dir) : []
  }
  /** git on the project's snapshot store. */
  const storeGit = (...args: string[]) =>
    execFileSync('git', [`--git-dir=${storePaths(project.path).gitDir}`, ...args], {
      encoding: 'utf8',
    }).trim()

  it('builds independent tasks in lanes at once, a dependant only after its dependency merged', async () => {
    const a = await add('Write a.txt', 'a.txt', 'alpha')
    const b = await add('Write b.txt', 'b.txt', 'beta')
    const c = await add('Write c.txt', 'c.txt', 'gamma')
    const d = await add('Write d.txt', 'd.txt', 'delta', [a])
    // b's first attempt writes the wrong word: its verification in the lane FAILs, it is rejected and tried again
    // in a fresh lane with the reasons.
    script('b.txt', 'beta', 'bet')
    for (const [file, want] of [
      ['a.txt', 'alpha'],
      ['b.txt', 'beta'],
      ['c.txt', 'gamma'],
      ['d.txt', 'delta'],
    ] as const)
      script(file, want)

    // A lane a killed build left behind: this build removes it before it makes its own.
    const engine = new SnapshotEngine({ projectDir: project.path, logger: options.logger })
    await engine.init()
    const { commit } = await engine.save({ kind: 'manual' })
    const leftover = {
      ...{ appDataDir: home.path, projectId: laneProjectId(project.path), projectDir: project.path },
      ...{ lane: 2, task: 99, base: commit, logger: options.logger },
    }
    await createLane(leftover)
    expect(laneFolders()).toEqual(['lane-2'])

    const { result, events } = await build(3)
    expect(result.code, result.stderr + result.stdout.slice(-3000)).toBe(0)
    expect(events.at(-1)).toMatchObject({ type: 'build.finished', status: 'complete', lane: null })
    // Every event carries its lane; a lane's loop events too.
    expect(events.every((e) => e.lane === null || (typeof e.lane === 'number' && e.lane >= 1))).toBe(true)
    const lanes = events.filter((e) => e.type === 'build.lane')
    expect(lanes.slice(0, 3).map((e) => e.taskId)).toEqual([a, b, c])
    expect(new Set(lanes.slice(0, 3).map((e) => e.lane))).toEqual(new Set([1, 2, 3]))
    expect(
      events.filter((e) => e.type === 'iteration.started').every((e) => typeof e.lane === 'number'),
    ).toBe(true)

    // D started only after A merged.
    const at = (pred: (e: Event) => boolean) => events.findIndex(pred)
    expect(at((e) => e.type === 'build.lane' && e.taskId === d)).toBeGreaterThan(
      at((e) => e.type === 'build.merged' && e.taskId === a),
    )

    // The user's folder has every change; the queue is empty; the timeline has each task's pre and post, applied in
    // merge order.
    for (const [file, want] of [
      ['a.txt', 'alpha'],
      ['b.txt', 'beta'],
      ['c.txt', 'gamma'],
      ['d.txt', 'delta'],
    ] as const)
      expect(readFileSync(join(project.path, file), 'utf8').trim()).toBe(want)
    expect((await queryState({ projectDir: project.path })).tasks).toEqual([])
    const merged = events.filter((e) => e.type === 'build.merged')
    expect(merged.map((e) => e.taskId).sort()).toEqual([a, b, c, d].sort())
    // The applies' snapshots are the project's tags (a lane's own snapshots have the same names in its store).
    const tags = storeTags()
    const applied = events
      .filter((e) => e.type === 'snapshot.created' && e.kind !== 'manual' && tags.get(e.tag!) === e.commit)
      .map((e) => e.tag)
    expect(applied).toEqual(merged.flatMap((e) => [`task-${e.task}-pre`, `task-${e.task}-post`]))
    // The first merge had nothing before it; a lane of the same base merged after it was verified again on the
    // merged tree.
    // The history has one line per merged task, in merge order, each about its own task.
    const history = readFileSync(join(project.path, '.ralph/task-history.md'), 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('- Task'))
    expect(history).toEqual(
      merged.map((e) => {
        const file = { [a]: 'a.txt', [b]: 'b.txt', [c]: 'c.txt', [d]: 'd.txt' }[e.taskId!]
        return `- Task ${e.task} (complete): Wrote ${file} with the requested content.`
      }),
    )
    expect(merged[0]!.verifiedAgain).toBe(false)
    expect(merged.filter((e) => e.verifiedAgain).length).toBeGreaterThanOrEqual(1)

    // b: rejected in its lane, then built again in a fresh one with the reasons, never applied in between.
    expect(events.filter((e) => e.type === 'build.rejected').map((e) => e.taskId)).toEqual([b])
    expect(lanes.filter((e) => e.taskId === b)).toHaveLength(2)
    const retry = llm.requests.map((r) => JSON.stringify(r.body)).find((p) => p.includes('was rejected'))
    expect(retry).toContain('expected \\"beta\\", got \\"bet\\"')

    // Run rows are the user's project's, each with its lane.
    const db = openDatabase(join(home.path, 'ralph.db'))
    try {
      const rows = db.prepare('SELECT lane FROM runs ORDER BY id').all() as { lane: number | null }[]
      expect(rows).toHaveLength(5)
      // A task waiting in the merge train keeps its lane folder while the next task starts in another: up to twice
      // as many lane numbers as lanes.
      expect(rows.every((r) => r.lane !== null && r.lane >= 1 && r.lane <= 6)).toBe(true)
      // Each task's parse started before its lane was made, and its lane's run took it: one parse call per run,
      // recorded on that run with its task number.
      const parses = db
        .prepare(
          "SELECT u.run_id AS run, u.task AS task, r.task AS runTask FROM llm_usage u LEFT JOIN runs r ON r.id = u.run_id WHERE u.purpose = 'parse'",
        )
        .all() as { run: number | null; task: number; runTask: number | null }[]
      expect(parses).toHaveLength(5)
      expect(parses.every((p) => p.run !== null && p.task === p.runTask)).toBe(true)
    } finally {
      db.close()
    }
    expect(laneFolders()).toEqual([])
  })

  it('merges one of two tasks editing the same file; the other reruns on the new base and merges', async () => {
    const x = await add('Write one.txt as x', 'one.txt', 'x')
    const y = await add('Write one.txt as y', 'one.txt', 'y')
    script('one.txt', 'x')
    script('one.txt', 'y')
    // Whichever merges second conflicts and runs again: both have a second attempt scripted.
    script('one.txt', 'x')
    script('one.txt', 'y')

    const { result, events } = await build(2)
    expect(result.code, result.stderr + result.stdout.slice(-3000)).toBe(0)
    const reruns = events.filter((e) => e.type === 'build.rerun')
    expect(reruns).toHaveLength(1)
    const second = reruns[0]!.taskId!
    expect([x, y]).toContain(second)
    const merged = events.filter((e) => e.type === 'build.merged').map((e) => e.taskId)
    expect(merged).toEqual([second === x ? y : x, second])
    // The rerun's model was told about the conflict; the folder has the rerun's version.
    const prompts = llm.requests.map((r) => JSON.stringify(r.body))
    expect(prompts.some((p) => p.includes('conflicted with work merged before them'))).toBe(true)
    expect(readFileSync(join(project.path, 'one.txt'), 'utf8').trim()).toBe(second === x ? 'x' : 'y')
    expect(laneFolders()).toEqual([])
  })

  it('escalates a task whose rerun on the new base conflicts again, never marking it done', async () => {
    // x and y both write one.txt; z (after x) too. y's model answers only once x is in the user's folder, so y
    // conflicts with x and reruns on the new base; its rerun answers only once z is applied, so it conflicts again.
    const x = await add('Write one.txt as x', 'one.txt', 'x')
    const y = await add('Write one.txt as y', 'one.txt', 'y')
    const z = await add('Write one.txt as z', 'one.txt', 'z', [x])
    const folderSays = async (want: string) => {
      const file = join(project.path, 'one.txt')
      const deadline = Date.now() + 120_000
      while (!(existsSync(file) && readFileSync(file, 'utf8').trim() === want) && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50))
    }
    const yAfter = (want: string) => {
      const [parse, iteration] = writeAttempt('one.txt', 'y')
      return [parse!, { kind: 'computed' as const, reply: async () => (await folderSays(want), iteration!) }]
    }
    script('one.txt', 'x')
    // z starts once x is merged; it answers only once y's rerun has asked, so y's rerun starts before z is applied
    // (otherwise its new base would hold z, and the rerun would merge cleanly).
    const rerunAsked = async () => {
      const deadline = Date.now() + 120_000
      const asked = () =>
        llm.requests.some((r) => JSON.stringify(r.body).includes('conflicted with work merged before them'))
      while (!asked() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
    }
    const [zParse, zIteration] = writeAttempt('one.txt', 'z')
    llm.route(
      (r) => JSON.stringify(r.body).includes(notes('one.txt', 'z')),
      { kind: 'computed', reply: async () => (await rerunAsked(), zParse!) },
      zIteration!,
    )
    llm.route((r) => JSON.stringify(r.body).includes(notes('one.txt', 'y')), ...yAfter('x'), ...yAfter('z'))

    const { result, events } = await build(2)
    expect(result.code, result.stderr + result.stdout.slice(-3000)).toBe(4)
    expect(events.filter((e) => e.type === 'build.rerun').map((e) => e.taskId)).toEqual([y])
    expect(events.filter((e) => e.type === 'build.merged').map((e) => e.taskId)).toEqual([x, z])
    expect(events.filter((e) => e.type === 'build.lane' && e.taskId === y)).toHaveLength(2)
    expect(
      events.find((e) => e.type === 'build.notification' && e.taskId === y && e.event === 'escalation'),
    ).toBeDefined()
    expect(events.at(-1)).toMatchObject({ type: 'build.finished', status: 'escalated' })
    // y is not done: it waits in the queue for a person, the folder holds z's version, no lane is left.
    expect((await queryState({ projectDir: project.path })).tasks.map((t) => [t.id, t.status])).toEqual([
      [y, 'pending'],
    ])
    expect(readFileSync(join(project.path, 'one.txt'), 'utf8').trim()).toBe('z')
    const db = openDatabase(join(home.path, 'ralph.db'))
    try {
      const rows = db.prepare('SELECT task_id, message FROM queue_escalations').all() as {
        task_id: string
        message: string
      }[]
      expect(rows).toEqual([{ task_id: y, message: expect.stringMatching(/after a rerun on the new base/) }])
    } finally {
      db.close()
    }
    expect(laneFolders()).toEqual([])
  })

  /** `git show REV` in the project's snapshot store. */
  const inStore = (...rev: string[]) =>
    execFileSync('git', [`--git-dir=${storePaths(project.path).gitDir}`, 'show', ...rev], {
      encoding: 'utf8',
    })

  /** The task's replies, the user saving FILES while its iteration runs in the lane. */
  const userSaves = (task: [string, string], files: Record<string, string>) => {
    const [parse, iteration] = writeAttempt(...task)
    llm.route((r) => JSON.stringify(r.body).includes(notes(...task)), parse!, {
      kind: 'computed',
      reply: () => {
        for (const [file, content] of Object.entries(files)) writeFileSync(join(project.path, file), content)
        return iteration!
      },
    })
  }

  // The user saves notes.txt while n runs (a file no task changes), then a.txt and other.txt while a runs: a.txt is
  // what a's merged work changes. Without --on-user-edits (and no terminal) the build stops there.
  it.each([
    ['stop', []],
    ['keep-theirs', ['--on-user-edits', 'keep-theirs']],
    ['take-task', ['--on-user-edits', 'take-task']],
  ] as const)(
    'the user’s edit to a file a merged task changes, answered %s: nothing overwritten silently',
    async (answer, flags) => {
      const n = await add('Write n.txt', 'n.txt', 'nu')
      const a = await add('Write a.txt', 'a.txt', 'alpha', [n])
      userSaves(['n.txt', 'nu'], { 'notes.txt': 'my notes\n' })
      userSaves(['a.txt', 'alpha'], { 'a.txt': 'mine\n', 'other.txt': 'mine too\n' })
      const { result, events } = await build(2, ...flags)
      expect(result.code, result.stdout.slice(-3000)).toBe(answer === 'stop' ? 3 : 0)

      // n was applied around the user's notes.txt, which its task-N-post holds.
      const merged = events.filter((e) => e.type === 'build.merged')
      expect(merged[0]!.taskId).toBe(n)
      expect(inStore(`task-${merged[0]!.task}-post:notes.txt`)).toBe('my notes\n')
      expect(readFileSync(join(project.path, 'n.txt'), 'utf8')).toBe('nu\n')
      expect(readFileSync(join(project.path, 'notes.txt'), 'utf8')).toBe('my notes\n')
      // The user's other edit while a ran stays whatever the answer.
      expect(readFileSync(join(project.path, 'other.txt'), 'utf8')).toBe('mine too\n')

      // The build asked about a.txt only, naming the task, its number and lane; then said the answer.
      const lane = events.find((e) => e.type === 'build.lane' && e.taskId === a)!
      const about = { taskId: a, task: lane.task, lane: lane.lane, paths: ['a.txt'] }
      const asked = events.filter((e) => e.type === 'build.user-edits')
      expect(asked).toEqual([expect.objectContaining(about)])
      const answered = events.filter((e) => e.type === 'build.user-edits-answered')
      expect(answered).toEqual([expect.objectContaining({ ...about, answer })])
      // The task's merged work is kept in the store whatever the answer.
      expect(inStore(`refs/lanes/${lane.task}/merged:a.txt`)).toBe('alpha\n')

      // The timeline reads as a serial build: each applied task's pre and post, in merge order.
      const tags = storeTags()
      const applied = events
        .filter((e) => e.type === 'snapshot.created' && e.kind !== 'manual' && tags.get(e.tag!) === e.commit)
        .map((e) => e.tag)
      expect(applied).toEqual(merged.flatMap((e) => [`task-${e.task}-pre`, `task-${e.task}-post`]))
      const pre = `task-${lane.task}-pre`
      const post = `task-${lane.task}-post`
      switch (answer) {
        case 'stop':
          expect(events.at(-1)).toMatchObject({
            type: 'build.finished',
            status: 'paused',
            message: expect.stringMatching(new RegExp(`before applying ${a} .*you changed a\\.txt`)),
          })
          expect(answered[0]).toMatchObject({ snapshot: null })
          expect(readFileSync(join(project.path, 'a.txt'), 'utf8')).toBe('mine\n')
          expect(merged.map((e) => e.taskId)).toEqual([n])
          // Nothing was written for a: not even its pre snapshot.
          expect(tags.has(pre)).toBe(false)
          break
        case 'keep-theirs':
          expect(events.at(-1)).toMatchObject({ type: 'build.finished', status: 'complete' })
          expect(answered[0]).toMatchObject({ snapshot: post })
          expect(readFileSync(join(project.path, 'a.txt'), 'utf8')).toBe('mine\n')
          expect(inStore(`${post}:a.txt`)).toBe('mine\n')
          expect(inStore(`${post}:other.txt`)).toBe('mine too\n')
          // The post snapshot says whose version a.txt holds.
          expect(inStore('--no-patch', '--format=%B', post)).toContain('kept your version of a.txt')
          expect(merged.map((e) => e.taskId)).toEqual([n, a])
          break
        case 'take-task':
          expect(events.at(-1)).toMatchObject({ type: 'build.finished', status: 'complete' })
          expect(answered[0]).toMatchObject({ snapshot: pre, message: expect.stringContaining(pre) })
          expect(readFileSync(join(project.path, 'a.txt'), 'utf8')).toBe('alpha\n')
          // The safety snapshot taken before the apply holds the user's version.
          expect(inStore(`${pre}:a.txt`)).toBe('mine\n')
          expect(inStore(`${post}:other.txt`)).toBe('mine too\n')
          expect(merged.map((e) => e.taskId)).toEqual([n, a])
          break
      }
      expect((await queryState({ projectDir: project.path })).tasks.map((t) => t.id)).toEqual(
        answer === 'stop' ? [a] : [],
      )
      expect(laneFolders()).toEqual([])
    },
  )

  // The whole build after a keep-theirs: b and c, queued behind a, start from a's task-N-post (the user's a.txt), so
  // they build, merge and apply on top of the user's version without asking again; c then changes a.txt itself.
  it('goes on after keep-theirs: the tasks queued behind build, merge and apply on the user’s version', async () => {
    const a = await add('Write a.txt', 'a.txt', 'alpha')
    const b = await add('Write b.txt', 'b.txt', 'beta', [a])
    const c = await add('Write a.txt as gamma', 'a.txt', 'gamma', [b])
    userSaves(['a.txt', 'alpha'], { 'a.txt': 'mine\n' })
    script('b.txt', 'beta')
    script('a.txt', 'gamma')
    const { result, events } = await build(2, '--on-user-edits', 'keep-theirs')
    expect(result.code, result.stdout.slice(-3000)).toBe(0)
    expect(events.at(-1)).toMatchObject({ type: 'build.finished', status: 'complete', accepted: [a, b, c] })
    const merged = events.filter((e) => e.type === 'build.merged')
    expect(merged.map((e) => e.taskId)).toEqual([a, b, c])
    const [ta, tb, tc] = merged.map((e) => e.task!)
    // One question, about a's apply; answered keep-theirs.
    expect(events.filter((e) => e.type === 'build.user-edits')).toEqual([
      expect.objectContaining({ taskId: a, paths: ['a.txt'] }),
    ])
    expect(events.filter((e) => e.type === 'build.user-edits-answered')).toEqual([
      expect.objectContaining({ taskId: a, answer: 'keep-theirs', snapshot: `task-${ta}-post` }),
    ])
    // b's and c's lanes started from a's post (the user's a.txt), not from a's own version.
    const lanes = events.filter((e) => e.type === 'build.lane')
    const postOf = (task: number) => storeTags().get(`task-${task}-post`)
    expect(lanes.find((e) => e.taskId === b)).toMatchObject({ base: postOf(ta!) })
    expect(lanes.find((e) => e.taskId === c)).toMatchObject({ base: postOf(tb!) })
    expect(inStore(`task-${ta}-post:a.txt`)).toBe('mine\n')
    expect(inStore(`task-${tb}-post:a.txt`)).toBe('mine\n')
    expect(inStore(`task-${tb}-post:b.txt`)).toBe('beta\n')
    // c changed the user's version (its task-N-pre holds it) and the folder has c's.
    expect(inStore(`task-${tc}-pre:a.txt`)).toBe('mine\n')
    expect(readFileSync(join(project.path, 'a.txt'), 'utf8')).toBe('gamma\n')
    expect(readFileSync(join(project.path, 'b.txt'), 'utf8')).toBe('beta\n')
    // The timeline reads as a serial build.
    const tags = storeTags()
    const applied = events
      .filter((e) => e.type === 'snapshot.created' && e.kind !== 'manual' && tags.get(e.tag!) === e.commit)
      .map((e) => e.tag)
    expect(applied).toEqual(merged.flatMap((e) => [`task-${e.task}-pre`, `task-${e.task}-post`]))
    expect((await queryState({ projectDir: project.path })).tasks).toEqual([])
    expect(laneFolders()).toEqual([])
  })

  // A terminal (script(1) gives the CLI a real one) asks: "t" takes the task's version; Ctrl+C at the question stops
  // the build (readline would otherwise swallow it).
  it.each([
    ['t', 't\r', 0, 'alpha\n'],
    ['Ctrl+C', '\x03', 130, 'mine\n'],
  ] as const)('asks in a terminal; %s answers', async (name, key, exit, content) => {
    const a = await add('Write a.txt', 'a.txt', 'alpha')
    const [parse, iteration] = writeAttempt('a.txt', 'alpha')
    llm.route((r) => JSON.stringify(r.body).includes(notes('a.txt', 'alpha')), parse!, {
      kind: 'computed',
      reply: () => {
        writeFileSync(join(project.path, 'a.txt'), 'mine\n')
        return iteration!
      },
    })
    const line = [process.execPath, RALPH_BIN, 'build', '--parallel', '2', '--project', project.path]
    const child = spawn('script', ['-qec', line.join(' '), '/dev/null'], {
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let out = ''
    child.stdout.on('data', (c: Buffer) => (out += c.toString()))
    const code = new Promise<number | null>((resolve) => child.on('close', resolve))
    await expect.poll(() => out, { timeout: 120_000, interval: 50 }).toContain('Your choice [k/t/S]')
    expect(out).toContain(
      `? You changed a.txt during the build, and “Write a.txt” (${a}, task 1 from lane 1)`,
    )
    child.stdin.write(key)
    expect(await code, out.slice(-2000)).toBe(exit)
    expect(out).toContain(
      name === 't' ? 'your version is in the safety snapshot task-1-pre' : 'Nothing was overwritten',
    )
    expect(readFileSync(join(project.path, 'a.txt'), 'utf8')).toBe(content)
    expect(laneFolders()).toEqual([])
  })

  it('stops every lane on Ctrl+C (exit 130), the tasks still pending, no lane left', async () => {
    const a = await add('Write a.txt', 'a.txt', 'alpha')
    const b = await add('Write b.txt', 'b.txt', 'beta')
    for (const [file, want] of [
      ['a.txt', 'alpha'],
      ['b.txt', 'beta'],
    ] as const)
      llm.route((r) => JSON.stringify(r.body).includes(notes(file, want)), writeAttempt(file, want)[0]!, {
        kind: 'hang',
      })
    const child = spawn(
      process.execPath,
      [RALPH_BIN, 'build', '--json', '--parallel', '2', '--project', project.path],
      { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
    )
    let out = ''
    child.stdout.on('data', (c: Buffer) => (out += c.toString()))
    await expect
      .poll(() => ndjson<Event>(out).filter((e) => e.type === 'iteration.started').length, {
        timeout: 120_000,
        interval: 50,
      })
      .toBe(2)
    expect(laneFolders()).toHaveLength(2)
    const code = new Promise<number | null>((resolve) => child.on('close', resolve))
    child.kill('SIGINT')
    expect(await code).toBe(130)
    const events = ndjson<Event>(out)
    expect(events.at(-1)).toMatchObject({ type: 'build.finished', status: 'stopped' })
    expect(
      events
        .filter((e) => e.type === 'task.failed')
        .map((e) => e.lane)
        .sort(),
    ).toEqual([1, 2])
    const state = await queryState({ projectDir: project.path })
    expect(state.tasks.map((t) => [t.id, t.status])).toEqual([
      [a, 'pending'],
      [b, 'pending'],
    ])
    expect(laneFolders()).toEqual([])
  })

  // A serial build (`--parallel 1`, the default) after a stopped lanes build: the kept work of a task still pending
  // is resumed as a lanes build resumes it (in a lane, from the kept commit), kept work of a task gone is discarded
  // saying why; with no kept work to resume, the build stays serial and discards what is left.
  it('a serial build resumes a stopped lane’s kept work, and discards kept work whose task is gone', async () => {
    const a = await add('Write a.txt', 'a.txt', 'alpha')
    const b = await add('Write b.txt', 'b.txt', 'beta')
    const [aParse] = writeAttempt('a.txt', 'alpha')
    // a's lane writes a first file, then its model hangs: that file is the work its lane keeps.
    llm.route(
      (r) => JSON.stringify(r.body).includes(notes('a.txt', 'alpha')),
      aParse!,
      tools(['write_file', { path: 'a-draft.txt', content: 'half done\n' }]),
      { kind: 'hang' },
    )
    llm.route(
      (r) => JSON.stringify(r.body).includes(notes('b.txt', 'beta')),
      writeAttempt('b.txt', 'beta')[0]!,
      {
        kind: 'hang',
      },
    )
    const child = spawn(
      process.execPath,
      [RALPH_BIN, 'build', '--json', '--parallel', '2', '--project', project.path],
      { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
    )
    let out = ''
    child.stdout.on('data', (c: Buffer) => (out += c.toString()))
    const code = new Promise<number | null>((resolve) => child.on('close', resolve))
    await expect.poll(() => llm.pending(), { timeout: 120_000, interval: 50 }).toBe(0)
    await expect
      .poll(() => ndjson<Event>(out).some((e) => e.type === 'tool.called'), { timeout: 60_000, interval: 50 })
      .toBe(true)
    child.kill('SIGINT')
    expect(await code).toBe(130)
    const kept = ndjson<Event & { action?: string }>(out).filter((e) => e.type === 'build.kept')
    expect(kept.map((e) => `${e.taskId} ${e.action}`).sort()).toEqual([`${a} kept`, `${b} kept`].sort())
    const stoppedRefs = () =>
      execFileSync(
        'git',
        [
          `--git-dir=${storePaths(project.path).gitDir}`,
          'for-each-ref',
          '--format=%(refname)',
          'refs/lanes/*/stopped',
        ],
        { encoding: 'utf8' },
      )
        .split('\n')
        .filter(Boolean)
    expect(stoppedRefs()).toHaveLength(2)

    // b is cancelled meanwhile; a is built by a plain `ralph build`.
    await cancelTask({ projectDir: project.path, id: b, options })
    llm.reset()
    llm.fallback = say('Nothing more.')
    script('a.txt', 'alpha')
    const resumed = await runCli(['build', '--json', '--project', project.path], { env })
    expect(resumed.code, resumed.stdout.slice(-3000)).toBe(0)
    const events = ndjson<Event & { action?: string; message?: string }>(resumed.stdout)
    const settled = events.filter((e) => e.type === 'build.kept')
    expect(settled).toEqual([
      expect.objectContaining({
        taskId: b,
        action: 'discarded',
        message: expect.stringMatching(/no longer pending/),
      }),
      expect.objectContaining({ taskId: a, action: 'resumed' }),
    ])
    // a ran in a lane that started from its kept work, its model told so; the folder has both files.
    expect(events.filter((e) => e.type === 'build.lane').map((e) => e.taskId)).toEqual([a])
    expect(llm.requests.some((r) => JSON.stringify(r.body).includes('# Resumed'))).toBe(true)
    expect(readFileSync(join(project.path, 'a-draft.txt'), 'utf8')).toBe('half done\n')
    expect(readFileSync(join(project.path, 'a.txt'), 'utf8')).toBe('alpha\n')
    expect(events.at(-1)).toMatchObject({ type: 'build.finished', status: 'complete', accepted: [a] })
    expect(stoppedRefs()).toEqual([])
    expect(laneFolders()).toEqual([])

    // Kept work of a task that is gone, and nothing to resume: the build stays serial and discards it.
    const c = await add('Write c.txt', 'c.txt', 'gamma')
    const git = (...args: string[]) =>
      execFileSync('git', [`--git-dir=${storePaths(project.path).gitDir}`, ...args], {
        encoding: 'utf8',
      }).trim()
    const head = git('rev-parse', 'HEAD')
    const orphan = git(
      'commit-tree',
      `${head}^{tree}`,
      '-p',
      head,
      '-m',
      keptMessage({ task: 42, taskId: 't-gone1', lane: 1, base: head }),
    )
    git('update-ref', 'refs/lanes/42/stopped', orphan)
    script('c.txt', 'gamma')
    const serial = await runCli(['build', '--json', '--project', project.path], { env })
    expect(serial.code, serial.stdout.slice(-3000)).toBe(0)
    const after = ndjson<Event & { action?: string; message?: string }>(serial.stdout)
    expect(after.filter((e) => e.type === 'build.kept')).toEqual([
      expect.objectContaining({ taskId: 't-gone1', task: 42, action: 'discarded', lane: null }),
    ])
    expect(after.some((e) => e.type === 'build.lane')).toBe(false)
    expect(after.at(-1)).toMatchObject({ type: 'build.finished', status: 'complete', accepted: [c] })
    expect(stoppedRefs()).toEqual([])
  })

  // The second task to merge is verified again on the merged tree: one of its two criteria is judged (and paid
  // for), the other's call hangs, and Ctrl+C cancels that verification. Its judged criterion is in the final total.
  it('counts a merged-tree verification cancelled by Ctrl+C in the build’s final cost', async () => {
    // A priced model id (gpt-4o-mini: $0.15 / $0.60 per 1M tokens): every call has a cost.
    env = cliEnv(home.path, llm.baseUrl, 'gpt-4o-mini')
    const usage = { prompt_tokens: 1200, completion_tokens: 40 }
    const tasks = [
      ['x.txt', 'xray'],
      ['y.txt', 'yank'],
    ] as const
    await addJudged(tasks, [' (first look)', ' (second look)'])
    // Answered from the request itself (lanes ask at once): a task's second verification nonce is its merged one.
    const nonces = new Map<string, string[]>()
    let hung = false
    llm.fallback = {
      kind: 'computed',
      reply: (request) => {
        const body = JSON.stringify(request.body)
        const task = tasks.find(([file, want]) => body.includes(`${file} says ${want}`))
        const seal = verdictSealOf(request.body)
        if (seal && task) {
          const seen = nonces.get(task[0]) ?? []
          if (!seen.includes(seal.nonce)) nonces.set(task[0], [...seen, seal.nonce])
          if (seen.length >= 1 && seen[0] !== seal.nonce && body.includes('(second look)')) {
            hung = true
            return { kind: 'hang' }
          }
          return { kind: 'verdict', answer: 'YES', reason: 'It says so.', usage }
        }
        return attemptReply(tasks, request)
      },
    }
    const child = spawn(
      process.execPath,
      [RALPH_BIN, 'build', '--json', '--parallel', '2', '--project', project.path],
      { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
    )
    let out = ''
    child.stdout.on('data', (c: Buffer) => (out += c.toString()))
    const code = new Promise<number | null>((resolve) => child.on('close', resolve))
    type Judged = Event & { nonce?: string; verdict?: { kind: string; costUsd: number } }
    const mergedNonce = () => [...nonces.values()].find((n) => n.length === 2)?.[1]
    const judgedOnMerge = () =>
      ndjson<Judged>(out).filter(
        (e) =>
          e.type === 'verify.criterion' &&
          e.verdict?.kind === 'LLM' &&
          e.nonce !== undefined &&
          e.nonce === mergedNonce(),
      )
    await expect
      .poll(() => hung && judgedOnMerge().length === 1, { timeout: 120_000, interval: 50 })
      .toBe(true)
    child.kill('SIGINT')
    expect(await code, out.slice(-3000)).toBe(130)
    const events = ndjson<Judged & { costUsd?: number }>(out)
    const finished = events.at(-1)!
    expect(finished).toMatchObject({ type: 'build.finished', status: 'stopped' })
    // The merged verification never completed, but its judged criterion cost money.
    expect(events.some((e) => e.type === 'verify.completed' && e.nonce === mergedNonce())).toBe(false)
    const merged = judgedOnMerge()[0]!.verdict!.costUsd
    expect(merged).toBeGreaterThan(0)
    // The total is every call the build paid for: what the store recorded, the cancelled verification's included.
    const db = openDatabase(join(home.path, 'ralph.db'))
    try {
      const { paid, judge } = db
        .prepare(
          "SELECT SUM(cost_usd) AS paid, SUM(CASE WHEN purpose = 'verify' THEN 1 ELSE 0 END) AS judge FROM llm_usage",
        )
        .get() as { paid: number; judge: number }
      // Two criteria in each lane, one on the merged tree.
      expect(judge).toBe(5)
      expect(finished.costUsd).toBeCloseTo(paid, 8)
    } finally {
      db.close()
    }
    expect(laneFolders()).toEqual([])
    // The lane stopped while its merged tree was verified keeps its own task's work, never that merged tree.
    const stoppedFile = [...nonces].find(([, n]) => n.length === 2)![0]
    const otherFile = tasks.map(([file]) => file).find((f) => f !== stoppedFile)!
    const kept = storeGit('for-each-ref', '--format=%(refname)', 'refs/lanes/*/stopped')
    expect(kept.split('\n')).toHaveLength(1)
    const keptFiles = storeGit('ls-tree', '-r', '--name-only', kept).split('\n')
    expect(keptFiles).toContain(stoppedFile)
    expect(keptFiles).not.toContain(otherFile)
  })

  // Two tasks with a model-judged criterion. The second to join the merge train is verified on the merged tree while
  // its lane's own verification is still being judged; that lane verdict is NO. It leaves the train: nothing of its
  // merged verification is shown or applied, what that verification cost is counted, and its retry merges.
  it('drops a task whose lane verdict fails while its merged tree is verified, and merges its retry', async () => {
    env = cliEnv(home.path, llm.baseUrl, 'gpt-4o-mini')
    const usage = { prompt_tokens: 900, completion_tokens: 30 }
    const tasks = [
      ['p.txt', 'papa'],
      ['q.txt', 'quebec'],
    ] as const
    await addJudged(tasks, [''])
    const nonces = new Map<string, string[]>()
    // Both lanes' first verdicts wait until one task's merged tree is being verified: that task's lane says NO.
    const held = new Map<string, (answer: 'YES' | 'NO') => void>()
    let loser: string | null = null
    llm.fallback = {
      kind: 'computed',
      reply: (request) => {
        const body = JSON.stringify(request.body)
        const seal = verdictSealOf(request.body)
        const task = tasks.find(([file, want]) => body.includes(`${file} says ${want}`))
        if (seal && task) {
          const [file] = task
          const seen = nonces.get(file) ?? []
          if (!seen.includes(seal.nonce)) nonces.set(file, [...seen, seal.nonce])
          const verdict = (answer: 'YES' | 'NO') =>
            ({
              kind: 'verdict',
              answer,
              reason: answer === 'YES' ? 'It says so.' : 'It says less.',
              usage,
            }) as const
          if (seen.length === 0)
            return new Promise((resolve) => held.set(file, (answer) => resolve(verdict(answer))))
          if (seen.length === 1 && seen[0] !== seal.nonce && loser === null) {
            loser = file
            held.get(file)?.('NO')
            for (const [other, release] of held) if (other !== file) release('YES')
          }
          return verdict('YES')
        }
        return attemptReply(tasks, request)
      },
    }
    const { result, events } = await build(2)
    expect(result.code, result.stderr + result.stdout.slice(-3000)).toBe(0)
    expect(events.at(-1)).toMatchObject({ type: 'build.finished', status: 'complete' })
    expect(loser).not.toBeNull()
    const [, speculative] = nonces.get(loser!)!
    const loserId = events.find(
      (e) =>
        e.type === 'build.lane' &&
        e.taskId !== undefined &&
        events.some(
          (x) =>
            x.type === 'build.attempt' && x.taskId === e.taskId && (x as { attempt?: number }).attempt === 2,
        ),
    )!.taskId!
    const firstTask = events.find((e) => e.type === 'build.lane' && e.taskId === loserId)!.task!
    // Its lane's verdict rejected it: the merge it had joined never reached the stream, nor did that verification.
    expect(events.some((e) => e.type === 'build.rejected' && e.taskId === loserId)).toBe(true)
    expect(events.some((e) => e.type === 'build.merging' && e.task === firstTask)).toBe(false)
    expect(events.some((e) => (e as { nonce?: string }).nonce === speculative)).toBe(false)
    // Both tasks merged in the end, the loser on its second attempt, and the folder holds both words.
    expect(
      events
        .filter((e) => e.type === 'build.merged')
        .map((e) => e.taskId)
        .sort(),
    ).toHaveLength(2)
    for (const [file, want] of tasks) expect(readFileSync(join(project.path, file), 'utf8').trim()).toBe(want)
    // The dropped verification was paid for: the build's total is every call the store recorded.
    const db = openDatabase(join(home.path, 'ralph.db'))
    try {
      const { paid } = db.prepare('SELECT SUM(cost_usd) AS paid FROM llm_usage').get() as { paid: number }
      expect((events.at(-1) as { costUsd?: number }).costUsd).toBeCloseTo(paid, 8)
    } finally {
      db.close()
    }
    expect(laneFolders()).toEqual([])
  })

  it('stops every lane at the build’s time budget, counted across lanes (exit 4), no lane left', async () => {
    for (const [file, want] of [
      ['a.txt', 'alpha'],
      ['b.txt', 'beta'],
    ] as const) {
      await add(`Write ${file}`, file, want)
      llm.route((r) => JSON.stringify(r.body).includes(notes(file, want)), writeAttempt(file, want)[0]!, {
        kind: 'hang',
      })
    }
    const result = await runCli(
      ['build', '--json', '--parallel', '2', '--max-minutes', '0.15', '--project', project.path],
      { env },
    )
    expect(result.code, result.stdout.slice(-3000)).toBe(4)
    const events = ndjson<Event>(result.stdout)
    expect(events.some((e) => e.type === 'build.budget' && (e as { level?: string }).level === 'stop')).toBe(
      true,
    )
    expect(events.at(-1)).toMatchObject({ type: 'build.finished', status: 'budget' })
    expect((await queryState({ projectDir: project.path })).tasks.map((t) => t.status)).toEqual([
      'pending',
      'pending',
    ])
    expect(laneFolders()).toEqual([])
  })
})

// In-process, for the one path the CLI cannot script: a FAIL on the merged tree. The verification is the real one
// everywhere; only its first run on a merged tree is turned into a FAIL (a clean merge that is wrong as code).
describe('a lanes build: a FAIL on the merged tree', { timeout: 300_000 }, () => {
  const t = loopFixture()

  it('reruns the task once in a fresh lane on the new base with the verdict, then merges it', async () => {
    const { h } = t
    writeFileSync(join(h.dir, 'check.cjs'), CHECK_SCRIPT)
    writeFileSync(join(h.dir, 'spec.md'), '# Files\n')
    await setSpec({ projectDir: h.dir, spec: 'spec.md', options })
    const task = async (file: string, want: string) => {
      const note = `Write the word ${want} into ${file} and nothing else.`
      const match = (r: { body: unknown }) => JSON.stringify(r.body).includes(note)
      t.llm.route(match, ...writeAttempt(file, want), ...writeAttempt(file, want))
      return (
        await addTask({
          projectDir: h.dir,
          name: `Write ${file}`,
          notes: note,
          accept: [`DET: \`node check.cjs ${file} ${want}\` exits 0`],
          options,
        })
      ).ids[0]!
    }
    const p = await task('p.txt', 'one')
    const q = await task('q.txt', 'two')
    let failedOnce = false
    const events: (BuildEvent & { lane?: number | null })[] = []
    const result = await runBuild({
      projectDir: h.dir,
      logger: memoryLogger(),
      model: { provider: 'openai-compatible', model: 'fake-model', baseUrl: t.llm.baseUrl, apiKey: null },
      signal: new AbortController().signal,
      runs: h.runs,
      parallel: 2,
      appDataDir: h.home.path,
      env: { ...process.env, RALPH_HOME: h.home.path },
      emit: (e) => events.push(e),
      verify: async (req) => {
        const real = await verifyTask(req)
        if (req.fromTag !== MERGED_FROM_TAG || failedOnce) return real
        failedOnce = true
        const no = { answer: 'NO' as const, reason: 'p.txt and q.txt disagree once merged' }
        return { ...real, outcome: 'FAIL', verdicts: real.verdicts.map((v) => ({ ...v, ...no })) }
      },
    })
    expect(result, JSON.stringify(events.slice(-5))).toMatchObject({ status: 'complete' })
    expect(failedOnce).toBe(true)
    const reruns = events.filter((e) => e.type === 'build.rerun')
    expect(reruns).toHaveLength(1)
    expect(reruns[0]).toMatchObject({ reason: expect.stringContaining('p.txt and q.txt disagree') })
    const second = (reruns[0] as { taskId: string }).taskId
    // Its fresh lane started from the new base and its model was told why.
    const lanes = events.filter((e) => e.type === 'build.lane' && e.taskId === second)
    expect(lanes).toHaveLength(2)
    const merged = events.filter((e) => e.type === 'build.merged')
    expect(merged.map((e) => (e as { taskId: string }).taskId)).toEqual([second === p ? q : p, second])
    expect(t.llm.requests.some((r) => JSON.stringify(r.body).includes('merged tree said FAIL'))).toBe(true)
    expect(readFileSync(join(h.dir, 'p.txt'), 'utf8').trim()).toBe('one')
    expect(readFileSync(join(h.dir, 'q.txt'), 'utf8').trim()).toBe('two')
    expect(existsSync(projectLanesDir(h.home.path, laneProjectId(h.dir)))).toBe(true)
    expect(readdirSync(projectLanesDir(h.home.path, laneProjectId(h.dir)))).toEqual([])
  })
})

// In-process: Stop pressed while the build asks about the user's edits (the CLI's answer comes at once).
describe('a lanes build asking about the user’s edits', { timeout: 300_000 }, () => {
  const t = loopFixture()

  it('stops while it asks about the user’s edits: nothing overwritten, the task pending', async () => {
    const { h } = t
    writeFileSync(join(h.dir, 'check.cjs'), CHECK_SCRIPT)
    writeFileSync(join(h.dir, 'spec.md'), '# Files\n')
    await setSpec({ projectDir: h.dir, spec: 'spec.md', options })
    const note = 'Write the word alpha into a.txt and nothing else.'
    const [parse, iteration] = writeAttempt('a.txt', 'alpha')
    t.llm.route((r) => JSON.stringify(r.body).includes(note), parse!, {
      kind: 'computed',
      reply: () => {
        writeFileSync(join(h.dir, 'a.txt'), 'mine\n')
        return iteration!
      },
    })
    const a = (
      await addTask({
        projectDir: h.dir,
        name: 'Write a.txt',
        notes: note,
        accept: ['DET: `node check.cjs a.txt alpha` exits 0'],
        options,
      })
    ).ids[0]!
    const stop = new AbortController()
    const questions: unknown[] = []
    const events: (BuildEvent & { lane?: number | null })[] = []
    const result = await runBuild({
      projectDir: h.dir,
      logger: memoryLogger(),
      model: { provider: 'openai-compatible', model: 'fake-model', baseUrl: t.llm.baseUrl, apiKey: null },
      signal: stop.signal,
      runs: h.runs,
      parallel: 2,
      appDataDir: h.home.path,
      env: { ...process.env, RALPH_HOME: h.home.path },
      emit: (e) => events.push(e),
      // The user never answers: Stop is pressed while the question is open.
      answerUserEdits: (question) => {
        questions.push(question)
        stop.abort()
        return new Promise(() => {})
      },
    })
    expect(result, JSON.stringify(events.slice(-5))).toMatchObject({ status: 'stopped', taskId: a })
    expect(result.message).toContain('Nothing was overwritten')
    const lane = events.find((e) => e.type === 'build.lane')! as { task: number; lane: number }
    expect(questions).toEqual([
      expect.objectContaining({ taskId: a, task: lane.task, lane: lane.lane, paths: ['a.txt'] }),
    ])
    expect(events.some((e) => e.type === 'build.user-edits-answered')).toBe(false)
    expect(readFileSync(join(h.dir, 'a.txt'), 'utf8')).toBe('mine\n')
    const tags = execFileSync('git', [`--git-dir=${storePaths(h.dir).gitDir}`, 'tag'], { encoding: 'utf8' })
    expect(tags.split('\n')).not.toContain(`task-${lane.task}-pre`)
    expect((await queryState({ projectDir: h.dir })).tasks.map((x) => [x.id, x.status])).toEqual([
      [a, 'pending'],
    ])
    expect(readdirSync(projectLanesDir(h.home.path, laneProjectId(h.dir)))).toEqual([])
  })
})
