// `ralph build --workers kubernetes` through the real CLI against tests/fixtures/fakeKube.ts (a cluster cannot run
// here: the fake speaks the Job, Pod, Pod-log and Secret wire shapes, and runs each Job's pod as the real `ralph
// worker` on this machine). Each lane's task runs in a Job; its result comes back through the pod's log, is verified
// and merged here. A pod that dies is a worker fault: the lane is reported and retried once; a second fault fails the
// task saying both, with nothing merged. Ticked vault secrets reach the job's Secret, unticked ones never leave.
import { execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { addTask, setSpec } from '../../../src/main/queue'
import { storePaths } from '../../../src/main/snapshots'
import { openDatabase } from '../../../src/main/store/database'
import { RunsRepo } from '../../../src/main/store/runsRepo'
import { memoryLogger } from '../../../src/main/workspace/logFile'
import { startFakeKube, type FakeKube } from '../../fixtures/fakeKube'
import { startFakeLlmServer, type FakeLlmServer } from '../../fixtures/fakeLlmServer'
import { RALPH_BIN, runCli } from '../../helpers/cli'
import { makeTempDir } from '../../helpers/tempDir'
import { say, tools } from '../loop/harness'
import { EVERYTHING } from '../mcp/fixtures'
import { CHECK_SCRIPT, cliEnv, ndjson, writeAttempt } from '../build/buildCliFixture'

const options = { logger: memoryLogger() }
const KEY = 'sk-kube-build-key-0123456789'
const TICKED = 'ticked-vault-value-0123456789'
const UNTICKED = 'unticked-vault-value-0123456789'

type Event = {
  type: string
  lane?: number | null
  taskId?: string
  where?: string
  retryOf?: { where: string; fault: string }
  status?: string
  message?: string
}

/**
 * What runs as a pod's `ralph`: the real worker, but the first `dies` runs (counted in `counter`) exit 3 at once,
 * before any result — a worker that died.
 */
function dyingRalph(dir: string, dies: number): string[] {
  const script = join(dir, 'dying-ralph.cjs')
  const counter = join(dir, 'runs')
  writeFileSync(
    script,
    `const fs = require('fs'); const { spawnSync } = require('child_process')
const n = fs.existsSync(${JSON.stringify(counter)}) ? Number(fs.readFileSync(${JSON.stringify(counter)}, 'utf8')) : 0
fs.writeFileSync(${JSON.stringify(counter)}, String(n + 1))
if (n < ${dies}) { console.error('worker died'); process.exit(3) }
const r = spawnSync(process.execPath, [${JSON.stringify(RALPH_BIN)}, ...process.argv.slice(2)], { stdio: 'inherit' })
process.exit(r.status ?? 1)
`,
  )
  return [process.execPath, script]
}

describe('ralph build --workers kubernetes (fake cluster)', { timeout: 300_000 }, () => {
  let llm: FakeLlmServer
  let kube: FakeKube | null = null
  let project: ReturnType<typeof makeTempDir>
  let home: ReturnType<typeof makeTempDir>
  let env: NodeJS.ProcessEnv

  beforeAll(async () => {
    llm = await startFakeLlmServer()
    // Built once here (bin/ralph.js builds out/node when it is stale), not inside a pod's time.
    expect((await runCli(['--version'])).code).toBe(0)
  })
  afterAll(() => llm?.close())
  beforeEach(async () => {
    llm.reset()
    llm.fallback = say('Nothing more.')
    project = makeTempDir('ralph-kube-build-')
    home = makeTempDir('ralph-home-')
    writeFileSync(join(project.path, 'check.cjs'), CHECK_SCRIPT)
    writeFileSync(join(project.path, 'spec.md'), '# Files\n')
    await setSpec({ projectDir: project.path, spec: 'spec.md', options })
  })
  afterEach(async () => {
    await kube?.close()
    kube = null
    project.cleanup()
    home.cleanup()
  })

  const startKube = async (ralph: string[]) => {
    kube = await startFakeKube({ commands: { ralph } })
    env = { ...cliEnv(home.path, llm.baseUrl), RALPH_API_KEY: KEY, KUBECONFIG: kube.kubeconfig }
    return kube
  }
  const notes = (file: string, want: string) => `Write the word ${want} into ${file} and nothing else.`
  const add = async (file: string, want: string) =>
    (
      await addTask({
        projectDir: project.path,
        name: `Write ${file}`,
        notes: notes(file, want),
        accept: [`DET: \`node check.cjs ${file} ${want}\` exits 0`],
        options,
      })
    ).ids[0]!
  const script = (file: string, want: string) =>
    llm.route((r) => JSON.stringify(r.body).includes(notes(file, want)), ...writeAttempt(file, want))
  const useWorkers = (workers: object) => {
    const file = join(project.path, '.ralph', 'config.json')
    const config = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as object) : {}
    writeFileSync(
      file,
      JSON.stringify({ ...config, workers: { backend: 'kubernetes', cpus: 1, ...workers } }),
    )
  }
  const build = async (...flags: string[]) => {
    const result = await runCli(['build', '--json', ...flags, '--project', project.path], { env })
    return { result, events: ndjson<Event>(result.stdout) }
  }
  const postTags = () =>
    execFileSync('git', [`--git-dir=${storePaths(project.path).gitDir}`, 'tag', '--list', 'task-*-post'], {
      encoding: 'utf8',
    })
      .split('\n')
      .filter(Boolean)
  const jobText = (secret: { data?: Record<string, string> }) =>
    Buffer.from(secret.data!['job.tar']!, 'base64').toString('latin1')

  it('runs two tasks as two Jobs, says where each runs, verifies, merges and records them here; only ticked secrets travel', async () => {
    const k = await startKube([process.execPath, RALPH_BIN])
    const a = await add('a.txt', 'alpha')
    const b = await add('b.txt', 'beta')
    // Task a reads its MCP server's environment first: the ticked secret reached it, the unticked one did not.
    const [parse, write] = writeAttempt('a.txt', 'alpha')
    llm.route(
      (r) => JSON.stringify(r.body).includes(notes('a.txt', 'alpha')),
      parse!,
      tools(['mcp__everything__get-env', {}]),
      write!,
    )
    script('b.txt', 'beta')
    for (const [name, value] of [
      ['TICKED', TICKED],
      ['UNTICKED', UNTICKED],
    ])
      expect((await runCli(['mcp', 'secret', name!, '--value', value!], { env })).code).toBe(0)
    const added = await runCli(
      [
        'mcp',
        'add',
        'everything',
        '--command',
        'node',
        '--arg',
        EVERYTHING,
        '--arg',
        'stdio',
        '--env',
        'TOKEN=${TICKED}',
      ],
      { env },
    )
    expect(added.code, added.stderr).toBe(0)
    useWorkers({ remoteSecrets: ['TICKED'] })

    const { result, events } = await build('--parallel', '2', '--workers', 'kubernetes')
    expect(result.code, result.stderr + result.stdout.slice(-3000)).toBe(0)
    expect(events.at(-1)).toMatchObject({ type: 'build.finished', status: 'complete' })
    expect(readFileSync(join(project.path, 'a.txt'), 'utf8')).toBe('alpha\n')
    expect(readFileSync(join(project.path, 'b.txt'), 'utf8')).toBe('beta\n')
    expect(postTags().sort()).toEqual(['task-1-post', 'task-2-post'])

    // Where each lane's attempt runs: its Job, by namespace and name.
    const placed = events.filter((e) => e.type === 'build.worker')
    expect(placed.map((e) => e.taskId).sort()).toEqual([a, b].sort())
    for (const e of placed) expect(e.where).toMatch(/^k8s: default\/ralph-job-\w+$/)
    expect(placed.every((e) => e.retryOf === undefined)).toBe(true)
    // The loop's events came from the pods' logs, tagged with their lanes; the verification ran here.
    for (const lane of [1, 2]) {
      const types = events.filter((e) => e.lane === lane).map((e) => e.type)
      expect(types).toEqual(expect.arrayContaining(['task.started', 'task.completed', 'verify.completed']))
    }

    // The jobs carry the build's task: its queue id, its attempt and criteria; never a key or a vault secret.
    expect(k.createdSecrets.length).toBe(2)
    const texts = k.createdSecrets.map(jobText)
    for (const id of [a, b]) expect(texts.some((t) => t.includes(`"id": "${id}"`))).toBe(true)
    for (const t of texts) {
      expect(t).toContain('"attempt": 1')
      expect(t).toMatch(/"criteria": \[\s*"AC1 DET: `node check\.cjs [ab]\.txt \w+` exits 0"/)
      for (const secret of [KEY, TICKED, UNTICKED]) expect(t).not.toContain(secret)
    }
    // The key and the ticked secret only in each job's Secret; the unticked one nowhere.
    for (const s of k.createdSecrets) {
      expect(Buffer.from(s.data!.RALPH_API_KEY!, 'base64').toString()).toBe(KEY)
      expect(Buffer.from(s.data!.RALPH_SECRET_TICKED!, 'base64').toString()).toBe(TICKED)
    }
    // The server ran in the pod with the ticked secret in its environment, filled there from the Secret.
    const envSeen = llm.requests
      .map((r) => JSON.stringify(r.body))
      .filter((body) => body.includes('"role":"tool"') && body.includes('TOKEN'))
    expect(envSeen.length).toBeGreaterThan(0)
    for (const body of envSeen) {
      expect(body).toContain(`TOKEN\\": \\"${TICKED}`)
      expect(body).not.toContain(UNTICKED)
    }
    const sent = JSON.stringify([k.createdJobs, k.createdSecrets])
    expect(sent).not.toContain(Buffer.from(UNTICKED).toString('base64'))
    expect(sent).not.toContain(UNTICKED)
    expect(JSON.stringify(k.createdJobs)).not.toContain(KEY)
    expect(k.jobs.size + k.secrets.size + k.running()).toBe(0)

    // The run rows are the user's project's, from the pods' events, as a local lane's (the chat shows the cards).
    const db = openDatabase(join(home.path, 'ralph.db'))
    try {
      type Row = {
        id: number
        project_path: string
        lane: number
        status: string
        title: string
        iterations: number
      }
      const rows = db
        .prepare('SELECT id, project_path, lane, status, title, iterations FROM runs ORDER BY lane')
        .all() as Row[]
      expect(rows.map((r) => [r.project_path, r.lane, r.status, r.iterations])).toEqual([
        [project.path, 1, 'complete', 1],
        [project.path, 2, 'complete', 1],
      ])
      expect(rows.map((r) => r.title).sort()).toEqual(['Write a.txt', 'Write b.txt'])
      const repo = new RunsRepo(db)
      for (const r of rows) {
        const calls = r.title === 'Write a.txt' ? 3 : 2
        expect(repo.savedReceipt(r.id)).toMatchObject({
          inputTokens: 10 * calls,
          outputTokens: 5 * calls,
          iterations: 1,
        })
        expect(repo.costForRun(r.id)).toMatchObject({ inputTokens: 10 * calls, outputTokens: 5 * calls })
        expect(repo.toolCallsForRun(r.id).map((c) => c.name)).toEqual([
          ...(r.title === 'Write a.txt' ? ['mcp__everything__get-env'] : []),
          'write_file',
          'mark_complete',
        ])
      }
    } finally {
      db.close()
    }
  })

  it('retries a lane whose worker died once, and reports it; a second death fails the task saying both', async () => {
    await startKube(dyingRalph(home.path, 1))
    await add('a.txt', 'alpha')
    script('a.txt', 'alpha')
    useWorkers({})
    const { result, events } = await build('--workers', 'kubernetes')
    expect(result.code, result.stderr + result.stdout.slice(-3000)).toBe(0)
    const placed = events.filter((e) => e.type === 'build.worker')
    expect(placed.length).toBe(2)
    expect(placed[1]!.where).not.toBe(placed[0]!.where)
    expect(placed[1]!.retryOf).toEqual({
      where: placed[0]!.where,
      fault: expect.stringMatching(/failed \(exit code 3\): worker died without a result; nothing of lane 1/),
    })
    expect(readFileSync(join(project.path, 'a.txt'), 'utf8')).toBe('alpha\n')

    // Every attempt dies: the task fails with both faults and what to do; nothing of it is merged.
    await kube!.close()
    mkdirSync(join(home.path, 'again'))
    await startKube(dyingRalph(join(home.path, 'again'), 99))
    const id2 = await add('c.txt', 'gamma')
    const second = await build('--workers', 'kubernetes')
    expect(second.result.code).not.toBe(0)
    expect(second.events.at(-1)).toMatchObject({ type: 'build.finished', status: 'failed' })
    expect(second.events.at(-1)!.message).toMatch(
      new RegExp(
        `^${id2} could not run in lane \\d+: Lane \\d+'s worker failed twice, and nothing of either attempt was merged: ` +
          'first on k8s: default/ralph-job-\\w+ it died before it finished .*; then on k8s: default/ralph-job-\\w+ it ' +
          'died before it finished .*ralph workers test',
      ),
    )
    expect(existsSync(join(project.path, 'c.txt'))).toBe(false)
    expect(postTags()).toEqual(['task-1-post'])
  })

  it('retries on this machine when the config says so', async () => {
    await startKube(dyingRalph(home.path, 99))
    await add('a.txt', 'alpha')
    script('a.txt', 'alpha')
    useWorkers({ retry: 'local' })
    const { result, events } = await build('--workers', 'kubernetes')
    expect(result.code, result.stderr + result.stdout.slice(-3000)).toBe(0)
    const placed = events.filter((e) => e.type === 'build.worker')
    expect(placed.map((e) => e.where)).toEqual([expect.stringMatching(/^k8s: default\//), 'local'])
    expect(placed[1]!.retryOf?.where).toBe(placed[0]!.where)
    expect(readFileSync(join(project.path, 'a.txt'), 'utf8')).toBe('alpha\n')
  })

  it('Ctrl+C stops the build: the running Job and its Secret are deleted, and the lane is not retried', async () => {
    const k = await startKube([process.execPath, RALPH_BIN])
    await add('a.txt', 'alpha')
    // The worker's parse is answered, its first iteration never is: the task is under way in its pod.
    llm.route(
      (r) => JSON.stringify(r.body).includes(notes('a.txt', 'alpha')),
      writeAttempt('a.txt', 'alpha')[0]!,
      { kind: 'hang' },
    )
    useWorkers({})
    const child = spawn(
      process.execPath,
      [RALPH_BIN, 'build', '--json', '--workers', 'kubernetes', '--project', project.path],
      {
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    let out = ''
    child.stdout.on('data', (c: Buffer) => (out += c.toString()))
    await expect
      .poll(() => ndjson<Event>(out).filter((e) => e.type === 'iteration.started').length, {
        timeout: 120_000,
        interval: 50,
      })
      .toBe(1)
    expect(k.running()).toBe(1)
    const code = new Promise<number | null>((resolve) => child.on('close', resolve))
    child.kill('SIGINT')
    expect(await code).toBe(130)
    const events = ndjson<Event>(out)
    expect(events.at(-1)).toMatchObject({ type: 'build.finished', status: 'stopped' })
    expect(events.filter((e) => e.type === 'build.worker')).toHaveLength(1)
    expect(k.createdJobs).toHaveLength(1)
    await expect.poll(() => k.jobs.size + k.secrets.size + k.running(), { timeout: 30_000 }).toBe(0)
    expect(existsSync(join(project.path, 'a.txt'))).toBe(false)
    // The task's run row, recorded from the pod's events, ends stopped (not left running).
    const db = openDatabase(join(home.path, 'ralph.db'))
    try {
      expect(db.prepare('SELECT lane, status FROM runs').all()).toEqual([{ lane: 1, status: 'stopped' }])
    } finally {
      db.close()
    }
  })
})
