// A lanes build that ends early (issue #38), through the real CLI: Stop keeps each lane's work in the project's store
// and the next build resumes it; kill -9 at each phase (a lane's creation, an iteration, a merge, an apply) leaves
// the user's folder at a task-N-pre or task-N-post state and no lane that `ralph lanes` cannot list and clean, and
// the next build finishes the queue. One set-up for all: two independent tasks, the fake model answering each task
// by its notes (a parse, one iteration that writes the file, then "done"), so a killed build's unused replies never
// put the next build's out of step.
import { execFileSync, spawn } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { addTask, queryState, setSpec } from '../../../src/main/queue'
import { laneProjectId, projectLanesDir } from '../../../src/main/lanes'
import { SnapshotEngine, storePaths } from '../../../src/main/snapshots'
import { memoryLogger } from '../../../src/main/workspace/logFile'
import type { RecordedRequest, ScriptedReply } from '../../fixtures/fakeLlmServer'
import { RALPH_BIN, runCli } from '../../helpers/cli'
import { makeTempDir } from '../../helpers/tempDir'
import { parsed, say, tools, useFakeLlmServer } from '../loop/harness'
import { CHECK_SCRIPT, cliEnv, ndjson } from '../build/buildCliFixture'

const options = { logger: memoryLogger() }

type Event = {
  type: string
  lane?: number | null
  taskId?: string
  task?: number
  action?: string
  status?: string
}

/** How the fake model answers a task's iteration: write the file and finish, write a part and hang, or hang. */
type Answer = 'finish' | 'partial-then-hang' | 'hang'

describe('a lanes build stopped or killed', { timeout: 300_000 }, () => {
  const t = useFakeLlmServer()
  let project: ReturnType<typeof makeTempDir>
  let home: ReturnType<typeof makeTempDir>
  let env: NodeJS.ProcessEnv
  let answer: Answer
  /** Requests the model left hanging (a build waiting in an iteration). */
  let hung: number
  const tasks = [
    ['a.txt', 'alpha'],
    ['b.txt', 'beta'],
  ] as const

  beforeEach(async () => {
    project = makeTempDir('ralph-lanes-kill-')
    home = makeTempDir('ralph-home-')
    env = cliEnv(home.path, t.llm.baseUrl)
    answer = 'finish'
    hung = 0
    writeFileSync(join(project.path, 'check.cjs'), CHECK_SCRIPT)
    writeFileSync(join(project.path, 'spec.md'), '# Files\n')
    await setSpec({ projectDir: project.path, spec: 'spec.md', options })
    // Notes unique to this test's project: a reply routed here never answers another test's build.
    const tag = project.path
    for (const [file, want] of tasks) {
      const notes = `Write the word ${want} into ${file} and nothing else (${tag}).`
      await addTask({
        projectDir: project.path,
        name: `Write ${file}`,
        notes,
        accept: [`DET: \`node check.cjs ${file} ${want}\` exits 0`],
        options,
      })
      t.llm.route(
        (r) => JSON.stringify(r.body).includes(notes),
        ...Array.from({ length: 40 }, () => reply(file, want)),
      )
    }
  })
  afterEach(() => {
    project.cleanup()
    home.cleanup()
  })

  /** One task's model: a parse for a request without tools; in an iteration, as `answer` says, then "done". */
  const replied = new Map<string, number>()
  const reply = (file: string, want: string): ScriptedReply => ({
    kind: 'computed',
    reply: (r: RecordedRequest) => {
      const body = r.body as { tools?: unknown[]; messages?: { role: string }[] }
      if (!body.tools?.length) {
        replied.set(file, 0)
        return parsed({ type: 'fresh', title: `Write ${file}` })
      }
      const turn = replied.get(file) ?? 0
      replied.set(file, turn + 1)
      if (answer === 'hang' || (answer === 'partial-then-hang' && turn > 0)) {
        hung++
        return { kind: 'hang' }
      }
      if (answer === 'partial-then-hang')
        return tools(['write_file', { path: `partial-${file}`, content: `begun ${want}\n` }])
      if (turn > 0) return say('Nothing more.')
      return tools(
        ['write_file', { path: file, content: `${want}\n` }],
        ['mark_complete', { summary: `Wrote ${file} with the requested content.` }],
      )
    },
  })

  const ralph = (...args: string[]) => runCli([...args, '--project', project.path], { env })
  const laneFolders = () => {
    const dir = projectLanesDir(home.path, laneProjectId(project.path))
    return existsSync(dir) ? readdirSync(dir).sort() : []
  }
  const store = (...args: string[]) =>
    execFileSync('git', [`--git-dir=${storePaths(project.path).gitDir}`, ...args], { encoding: 'utf8' })

  /** `ralph build --parallel 2 --json`, ended by `signal` once an event `at` matches: its events and exit code. */
  async function buildUntil(at: (e: Event) => boolean, signal: NodeJS.Signals) {
    const child = spawn(
      process.execPath,
      [RALPH_BIN, 'build', '--json', '--parallel', '2', '--project', project.path],
      { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
    )
    let out = ''
    let err = ''
    let sent = false
    const lines = () => ndjson<Event>(out.slice(0, out.lastIndexOf('\n') + 1))
    const check = () => {
      if (sent || !lines().some(at)) return
      sent = true
      child.kill(signal)
    }
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString()
      check()
    })
    child.stderr.on('data', (c: Buffer) => (err += c.toString()))
    // `at` may wait on the model's side too (requests hanging): looked at again while no event comes.
    const poll = setInterval(check, 50)
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
    clearInterval(poll)
    expect(sent, `the build ended before the event: ${err}\n${out.slice(-2000)}`).toBe(true)
    return { code, events: ndjson<Event>(out.slice(0, out.lastIndexOf('\n') + 1)) }
  }

  /** The project's files outside .ralph/, path → content. */
  const folderFiles = (): Record<string, string> => {
    const files: Record<string, string> = {}
    const walk = (dir: string) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const p = join(dir, e.name)
        if (e.isDirectory()) {
          if (e.name !== '.ralph') walk(p)
        } else files[relative(project.path, p)] = readFileSync(p, 'utf8')
      }
    }
    walk(project.path)
    return files
  }
  const tagFiles = (tag: string): Record<string, string> => {
    const files: Record<string, string> = {}
    for (const path of store('ls-tree', '-r', '-z', '--name-only', tag).split('\0'))
      if (path && !path.startsWith('.ralph/')) files[path] = store('show', `${tag}:${path}`)
    return files
  }

  /** After a kill: the folder is at the newest applied task's post (or pre), or as it was before any apply. */
  async function expectFolderAtATaskState(): Promise<string> {
    // The next open finishes (or undoes) an apply the kill interrupted, as the app and every command do.
    await new SnapshotEngine({ projectDir: project.path, logger: options.logger }).open()
    const numbers = store('tag', '--list', 'task-*')
      .split('\n')
      .flatMap((tag) => /^task-([0-9]+)-(pre|post)$/.exec(tag) ?? [])
      .filter((_, i) => i % 3 === 1)
      .map(Number)
    if (numbers.length === 0) {
      expect(Object.keys(folderFiles()).sort()).toEqual(['check.cjs', 'spec.md'])
      return 'before any task'
    }
    const n = Math.max(...numbers)
    const tag = store('tag', '--list', `task-${n}-post`).trim() || `task-${n}-pre`
    expect(folderFiles()).toEqual(tagFiles(tag))
    return tag
  }

  /** The next build finishes the queue: both files written, nothing pending, no lane left. */
  async function expectNextBuildFinishes(): Promise<Event[]> {
    answer = 'finish'
    const next = await ralph('build', '--json', '--parallel', '2')
    expect(next.code, next.stderr + next.stdout.slice(-3000)).toBe(0)
    for (const [file, want] of tasks) expect(readFileSync(join(project.path, file), 'utf8')).toBe(`${want}\n`)
    expect((await queryState({ projectDir: project.path })).tasks).toEqual([])
    expect(laneFolders()).toEqual([])
    return ndjson<Event>(next.stdout)
  }

  it('Stop keeps each lane’s work in the store; ralph lanes lists it; the next build resumes it', async () => {
    answer = 'partial-then-hang'
    // Stop once both lanes wrote a part of their task and wait in the model.
    const stopped = await buildUntil(() => hung >= 2, 'SIGINT')
    expect(stopped.code).toBe(130)
    const kept = stopped.events.filter((e) => e.type === 'build.kept')
    expect(kept.map((e) => e.action)).toEqual(['kept', 'kept'])
    expect(new Set(kept.map((e) => e.lane))).toEqual(new Set([1, 2]))
    expect(stopped.events.at(-1)).toMatchObject({ type: 'build.finished', status: 'stopped' })
    expect(laneFolders()).toEqual([])
    // The user's folder never saw the lanes' work; the store holds it, each on the base it started from.
    expect(existsSync(join(project.path, 'partial-a.txt'))).toBe(false)
    const listed = JSON.parse((await ralph('lanes', '--json')).stdout) as {
      lanes: unknown[]
      kept: { task: number; taskId: string; base: string; ref: string }[]
    }
    expect(listed.lanes).toEqual([])
    expect(listed.kept.map((k) => k.taskId).sort()).toEqual(kept.map((e) => e.taskId).sort())
    for (const k of listed.kept) {
      expect(k.ref).toBe(`refs/lanes/${k.task}/stopped`)
      expect(store('rev-parse', `${k.ref}^`).trim()).toBe(k.base)
    }
    const text = await ralph('lanes')
    expect(text.stdout).toMatch(/Work of 2 stopped lanes kept in the snapshot store/)

    const events = await expectNextBuildFinishes()
    expect(events.filter((e) => e.type === 'build.kept').map((e) => e.action)).toEqual(['resumed', 'resumed'])
    // Each lane started from its kept work: the part written before Stop reached the user's folder with the rest.
    expect(readFileSync(join(project.path, 'partial-a.txt'), 'utf8')).toBe('begun alpha\n')
    expect(readFileSync(join(project.path, 'partial-b.txt'), 'utf8')).toBe('begun beta\n')
    expect(t.llm.requests.some((r) => JSON.stringify(r.body).includes('An earlier build was stopped'))).toBe(
      true,
    )
    expect(JSON.parse((await ralph('lanes', '--json')).stdout)).toMatchObject({ lanes: [], kept: [] })
  })

  const phases: [string, Answer, (e: Event) => boolean][] = [
    ['a lane’s creation', 'finish', (e) => e.type === 'build.lane'],
    ['an iteration', 'hang', (e) => e.type === 'iteration.started' && typeof e.lane === 'number'],
    ['a merge', 'finish', (e) => e.type === 'build.merging'],
    ['an apply', 'finish', (e) => e.type === 'build.applying'],
  ]
  it.each(phases)(
    'kill -9 during %s: the folder is at a task state, the lanes are accounted for, the next build finishes',
    async (_, how, at) => {
      answer = how
      const killed = await buildUntil(at, 'SIGKILL')
      expect(killed.code).toBe(null)
      const state = await expectFolderAtATaskState()
      // Every lane folder the kill left is listed (with its state) and `ralph lanes clean` removes it.
      const left = laneFolders()
      if (how === 'hang') expect(left).toEqual(['lane-1', 'lane-2'])
      if (at({ type: 'build.merging' })) expect(left.length).toBeGreaterThanOrEqual(1)
      // Killed at its apply, the merged work is kept in the store; the kill lands before the apply's first write or
      // in it (an apply killed midway is finished by the next open: tests/integration/snapshots/applyTask.test.ts).
      if (at({ type: 'build.applying' })) {
        expect(store('for-each-ref', '--format=%(refname)', 'refs/lanes/*/merged')).toMatch(/merged/)
        expect(state).toMatch(/^(before any task|task-[0-9]+-(pre|post))$/)
      }
      const listed = JSON.parse((await ralph('lanes', '--json')).stdout) as {
        buildRunning: boolean
        lanes: { lane: number; state: string }[]
      }
      expect(listed.buildRunning).toBe(false)
      expect(listed.lanes.map((l) => `lane-${l.lane}`)).toEqual(left)
      expect(listed.lanes.every((l) => l.state === 'ready' || l.state === 'incomplete')).toBe(true)
      const cleaned = await ralph('lanes', 'clean', '--json')
      expect(cleaned.code, cleaned.stderr).toBe(0)
      expect(laneFolders()).toEqual([])
      await expectNextBuildFinishes()
    },
  )
})
