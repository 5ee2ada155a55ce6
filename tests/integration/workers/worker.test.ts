// A lane's job run by `ralph worker` (issue #39), with real git, the real CLI in a child process, real bubblewrap and
// the fake model server: the coordinator makes a job from its project's store, the worker runs it and brings back a
// bundle, the coordinator checks it, fetches it as refs/lanes/N/*, merges it and verifies the merged tree with a nonce
// of its own that the worker never saw. Damaged, foreign and key-carrying jobs and results are refused.
import { execFileSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { workerFiles, type WorkerJob } from '../../../src/shared/workerJob'
import { createLane, laneProjectId, mergeLaneResult, verifyMergedInLane } from '../../../src/main/lanes'
import { readRef, ShadowGit, SnapshotEngine, storePaths } from '../../../src/main/snapshots'
import {
  createJob,
  fetchWorkerResult,
  jobMcpServers,
  packJobTar,
  readJob,
  runWorker,
  workerAppData,
  type CreatedJob,
  type WorkerStreamEvent,
} from '../../../src/main/workers'
import { unsandboxedAllowed } from '../../../src/main/sandbox'
import { openDatabase } from '../../../src/main/store/database'
import { memoryLogger } from '../../../src/main/workspace/logFile'
import { runCli } from '../../helpers/cli'
import { testMcpServers } from '../../helpers/mcpApproval'
import { approveServer } from '../../../src/main/mcp'
import { EVERYTHING, everythingServer, writeMcpJson } from '../mcp/fixtures'
import { makeTempDir } from '../../helpers/tempDir'
import { parsed, tools, useFakeLlmServer } from '../loop/harness'

const log = memoryLogger()
const server = useFakeLlmServer()
const TASK = 2
const WORKER_KEY = 'sk-worker-env-key-0123456789'
const COORDINATOR_KEY = 'sk-coordinator-vault-key-9876543210'

/** `node check.cjs FILE WANT`: exits 1 when FILE's text is not WANT. */
const CHECK = `const fs = require('fs')
const [file, want] = process.argv.slice(2)
const got = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() : '(missing)'
if (got !== want) { console.error(file + ': expected ' + want + ', got ' + got); process.exit(1) }
`

let tmp: ReturnType<typeof makeTempDir>
let project: string
let base: string
beforeEach(async () => {
  tmp = makeTempDir('ralph-worker-')
  project = join(tmp.path, 'project')
  write(project, {
    'check.cjs': CHECK,
    'a.txt': 'a0\n',
    'b.txt': 'b0\n',
    '.ralph/config.json': JSON.stringify({
      lanes: { setup: 'echo "setup ran in lane $RALPH_LANE" > .setup.log' },
    }),
    '.gitignore': '.setup.log\n',
  })
  const engine = new SnapshotEngine({ projectDir: project, logger: log })
  await engine.init()
  base = (await engine.save({ kind: 'task-post', task: 1 })).commit
})
afterEach(() => tmp.cleanup())

function write(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), text)
  }
}

const projectGit = (...args: string[]) =>
  execFileSync('git', [`--git-dir=${storePaths(project).gitDir}`, ...args], { encoding: 'utf8' }).trim()

function makeJob(over: Partial<Parameters<typeof createJob>[0]> = {}): Promise<CreatedJob> {
  return createJob({
    projectDir: project,
    out: join(tmp.path, 'job'),
    base: 'task-1-post',
    task: {
      number: TASK,
      id: 't-a1',
      name: 'Write a1',
      message: 'Write a1 into a.txt\n\nAcceptance criteria:\n- AC1 DET: `node check.cjs a.txt a1` exits 0',
      context: null,
      criteria: ['AC1 DET: `node check.cjs a.txt a1` exits 0'],
      feedback: '',
      attempt: 1,
    },
    lane: 1,
    settings: { maxIterations: 3, engine: null, waitForLimits: false },
    model: {
      provider: 'openai-compatible',
      model: 'fake-model',
      baseUrl: server.llm.baseUrl,
      localContextMax: null,
    },
    secrets: [COORDINATOR_KEY],
    logger: log,
    ...over,
  })
}

const workerEnv = (home: string): NodeJS.ProcessEnv => ({
  RALPH_HOME: home,
  RALPH_API_KEY: WORKER_KEY,
  // The coordinator's settings are not the worker's: the job names the model.
  RALPH_PROVIDER: '',
  RALPH_MODEL: '',
  RALPH_BASE_URL: '',
})

const lines = (text: string) =>
  text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { type: string; lane: number | null } & Record<string, unknown>)

describe('ralph worker', { timeout: 120_000 }, () => {
  it('runs a job as a local lane would; the coordinator checks, fetches, merges and verifies it with its own nonce', async () => {
    const job = await makeJob()
    expect(readdirSync(job.dir).sort()).toEqual([workerFiles.baseBundle, workerFiles.job])
    const jobText = readFileSync(job.jobFile, 'utf8')
    expect(jobText).not.toMatch(/apiKey|nonce|sk-/i)
    expect(job.job.lane).toEqual({ number: 1, setup: 'echo "setup ran in lane $RALPH_LANE" > .setup.log' })
    // The project's store got no ref from making the job.
    const refsBefore = projectGit('for-each-ref', '--format=%(refname)')

    server.llm.enqueue(
      parsed({ type: 'mutation' }),
      tools(
        [
          'run_command',
          { command: 'cat .setup.log > setup-seen.txt; echo "key=$RALPH_API_KEY" >> setup-seen.txt' },
        ],
        ['edit_file', { path: 'a.txt', old_string: 'a0', new_string: 'a1' }],
        ['mark_complete', { summary: 'a.txt says a1.' }],
      ),
    )
    const out = join(tmp.path, 'out')
    const run = await runCli(['worker', '--job', job.dir, '--out', out], {
      env: workerEnv(join(tmp.path, 'worker-home')),
    })
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)

    // NDJSON on stdout: the worker's own events around the loop's, every one with the lane.
    const events = lines(run.stdout)
    const types = events.map((e) => e.type)
    expect(types[0]).toBe('worker.started')
    expect(events[0]).toMatchObject({ task: TASK, lane: 1, base, sandbox: 'bubblewrap' })
    expect(types).toEqual(
      expect.arrayContaining(['task.started', 'snapshot.created', 'tool.called', 'task.completed']),
    )
    expect(types.at(-1)).toBe('worker.finished')
    expect(types).not.toContain('worker.sandbox')
    expect(types.filter((t) => t.startsWith('verify.'))).toEqual([])
    expect(events.every((e) => e.lane === 1)).toBe(true)

    // The key came from the worker's environment, to the model only; the sandboxed command never saw it.
    const chats = server.llm.requests.filter((r) => r.path === '/v1/chat/completions')
    expect(chats.length).toBe(2)
    expect(chats.every((r) => r.headers.authorization === `Bearer ${WORKER_KEY}`)).toBe(true)

    // The result folder.
    expect(readdirSync(out).sort()).toEqual(
      [workerFiles.result, workerFiles.resultBundle, workerFiles.transcript].sort(),
    )
    const result = JSON.parse(readFileSync(join(out, workerFiles.result), 'utf8')) as Record<string, unknown>
    expect(result).toMatchObject({ status: 'complete', task: TASK, lane: 1, base, sandbox: 'bubblewrap' })
    expect(readFileSync(join(out, workerFiles.transcript), 'utf8')).toBe(run.stdout)

    // Refused before anything is fetched: a damaged bundle, a result of another job.
    const damaged = join(tmp.path, 'damaged')
    cpSync(out, damaged, { recursive: true })
    const bundle = readFileSync(join(damaged, workerFiles.resultBundle))
    const packAt = bundle.indexOf('PACK')
    bundle.fill(0x41, packAt + 40, packAt + 60)
    writeFileSync(join(damaged, workerFiles.resultBundle), bundle)
    await expect(
      fetchWorkerResult({ projectDir: project, resultDir: damaged, job: job.job, logger: log }),
    ).rejects.toThrow(/result bundle \(result.bundle\) could not be unpacked/)
    const foreign: WorkerJob = { ...job.job, task: { ...job.job.task, number: 7 } }
    await expect(
      fetchWorkerResult({ projectDir: project, resultDir: out, job: foreign, logger: log }),
    ).rejects.toThrow(/answers another job \(task 2, not 7\): nothing was fetched/)
    const integration = otherTaskCommit()
    // Well-formed bundles that are not this job's work: based on another commit, or a "pre" that is not the base.
    const forged = forge(out, result, { basedOn: integration })
    await expect(
      fetchWorkerResult({ projectDir: project, resultDir: forged, job: job.job, logger: log }),
    ).rejects.toThrow(/is not based on the job's base .* \(it needs .*\): nothing was fetched/)
    const notFromBase = forge(out, result, { basedOn: base, preFromPost: true })
    await expect(
      fetchWorkerResult({ projectDir: project, resultDir: notFromBase, job: job.job, logger: log }),
    ).rejects.toThrow(/pre-task snapshot is not the job's base: it changes a.txt/)
    expect(projectGit('for-each-ref', '--format=%(refname)')).toBe(refsBefore)

    // The coordinator takes it: refs/lanes/2/pre|post, exactly where a local lane's run leaves them.
    const fetched = await fetchWorkerResult({
      projectDir: project,
      resultDir: out,
      job: job.job,
      logger: log,
    })
    expect(fetched.post).toBe(result.post)
    const gitDir = storePaths(project).gitDir
    expect(await readRef(gitDir, `refs/lanes/${TASK}/post`)).toBe(result.post)
    expect(await readRef(gitDir, `refs/lanes/${TASK}/pre`)).toBe(result.pre)
    expect(projectGit('show', `refs/lanes/${TASK}/post:a.txt`)).toBe('a1')
    const seen = projectGit('show', `refs/lanes/${TASK}/post:setup-seen.txt`)
    expect(seen).toContain('setup ran in lane 1')
    expect(seen).not.toContain(WORKER_KEY)
    expect(projectGit('for-each-ref', '--format=%(refname)', 'refs/lanes')).toBe(
      `refs/lanes/${TASK}/post\nrefs/lanes/${TASK}/pre`,
    )

    // Merge onto another task's work and verify the merged tree here, with a nonce of the coordinator's own.
    const merged = await mergeLaneResult(new ShadowGit(gitDir, project), {
      ours: integration,
      theirs: fetched.post!,
      task: TASK,
      base,
      message: 'task 2 merged',
    })
    if (merged.kind !== 'clean' || !merged.commit) throw new Error(`not clean: ${JSON.stringify(merged)}`)
    const lane = await createLane({
      appDataDir: join(tmp.path, 'coordinator-home'),
      projectId: laneProjectId(project),
      projectDir: project,
      lane: 1,
      task: TASK,
      base,
      logger: log,
    })
    server.llm.enqueue({ kind: 'verdict', answer: 'YES', reason: 'a.txt says a1' })
    const verdict = await verifyMergedInLane({
      task: {
        id: 't-a1',
        name: 'Write a1',
        accept: ['DET: `node check.cjs a.txt a1` exits 0', 'LLM: a.txt says a1'],
      },
      model: {
        provider: 'openai-compatible',
        model: 'fake-model',
        baseUrl: server.llm.baseUrl,
        apiKey: null,
      },
      signal: new AbortController().signal,
      concurrency: 1,
      retry: { maxRetries: 0 },
      logger: log,
      env: { ...process.env, RALPH_HOME: join(tmp.path, 'coordinator-home') },
      lane,
      projectDir: project,
      integration,
      merged: merged.commit,
    })
    expect(verdict.outcome).toBe('PASS')
    expect(readFileSync(join(lane.workDir, 'b.txt'), 'utf8')).toBe('b1\n')
    // The seal is the coordinator's: nothing the worker had or wrote holds it.
    for (const dir of [job.dir, out])
      for (const f of readdirSync(dir)) expect(readFileSync(join(dir, f)).includes(verdict.nonce)).toBe(false)
  })

  it('where bubblewrap cannot run, the container is the sandbox: said once, and the lane may run commands', async () => {
    const job = await makeJob()
    server.llm.enqueue(
      parsed({ type: 'mutation' }),
      tools(
        ['edit_file', { path: 'a.txt', old_string: 'a0', new_string: 'a1' }],
        ['mark_complete', { summary: 'a.txt says a1.' }],
      ),
    )
    const workDir = join(tmp.path, 'work')
    const appData = workerAppData(workDir)
    mkdirSync(appData, { recursive: true })
    const db = openDatabase(join(appData, 'ralph.db'))
    const events: WorkerStreamEvent[] = []
    // The job as one tar file, as a carrier that moves one file brings it.
    const tarFile = join(tmp.path, 'job.tar')
    await packJobTar(job.dir, tarFile)
    const written = await runWorker({
      jobPath: tarFile,
      outDir: join(tmp.path, 'out'),
      workDir,
      db,
      env: { ...process.env, ...workerEnv(join(tmp.path, 'worker-home')) },
      signal: new AbortController().signal,
      emit: (e) => events.push(e),
      logger: log,
      support: { kind: 'none', binary: null, reason: 'bubblewrap does not work here: No permissions' },
    }).finally(() => db.close())
    expect(written.result).toMatchObject({ status: 'complete', sandbox: 'container' })
    const said = events.filter((e) => e.type === 'worker.sandbox')
    expect(said).toHaveLength(1)
    expect(said[0]).toMatchObject({
      lane: 1,
      message: expect.stringContaining('the container this worker runs in'),
    })
    expect(events[0]).toMatchObject({ type: 'worker.started', sandbox: 'container' })
    // The permission is the worker's own, for its lane's folder only (never the coordinator's app data).
    const laneWork = join(appData, 'lanes', 'worker', 'lane-1', 'work')
    expect(await unsandboxedAllowed(laneWork, appData)).toBe(true)
    expect(await unsandboxedAllowed(project, appData)).toBe(false)
  })

  it("runs the task's approved MCP servers, their placeholders filled from the ticked secrets only", async () => {
    const TICKED = 'ticked-secret-value-0123456789'
    const UNTICKED = 'unticked-secret-value-9876543210'
    const coordinator = join(tmp.path, 'coordinator')
    mkdirSync(coordinator, { recursive: true })
    const db = openDatabase(join(coordinator, 'ralph.db'))
    let servers: Awaited<ReturnType<typeof jobMcpServers>>
    try {
      const app = testMcpServers(db, coordinator)
      app.setSecret('TICKED', TICKED)
      app.setSecret('UNTICKED', UNTICKED)
      app.set('everything', { command: 'node', args: [EVERYTHING, 'stdio'], env: { TOKEN: '${TICKED}' } })
      // The project's own: one approved (it travels), one waiting for approval (it never does).
      writeMcpJson(project, { approved: everythingServer, unapproved: everythingServer })
      await approveServer(project, app, 'approved')
      const ticked = (name: string) => name === 'TICKED'
      servers = await jobMcpServers(project, app, ticked)
      expect(servers.map((s) => `${s.origin}:${s.name}`)).toEqual(['project:approved', 'app:everything'])
      // A server needing a secret that is not ticked: the job is refused, naming both and what to tick.
      app.set('needy', { command: 'node', args: [EVERYTHING, 'stdio'], env: { KEY: '${UNTICKED}' } })
      await expect(jobMcpServers(project, app, ticked)).rejects.toThrow(
        'The MCP server "needy" needs the vault secret UNTICKED, which is not ticked for remote workers, so a ' +
          'worker could not start it: tick it under "Secrets for remote workers" in Settings → Workers, or switch ' +
          '"needy" off for this project in Settings → MCP servers.',
      )
      // One whose value lives in the vault itself (not a named secret) never leaves either.
      app.remove('needy')
      app.set('literal', { command: 'node', args: [EVERYTHING, 'stdio'], env: { KEY: UNTICKED } })
      await expect(jobMcpServers(project, app, ticked)).rejects.toThrow(
        /^The MCP server "literal" keeps env KEY in this machine's vault, which a remote worker never gets/,
      )
    } finally {
      db.close()
    }
    const job = await makeJob({ mcpServers: servers, secrets: [COORDINATOR_KEY, TICKED] })
    const jobText = readFileSync(job.jobFile, 'utf8')
    expect(jobText).toContain('"TOKEN": "${TICKED}"')
    expect(jobText).not.toContain(TICKED)
    expect(jobText).not.toContain(UNTICKED)

    server.llm.enqueue(
      parsed({ type: 'mutation' }),
      tools(['mcp__everything__get-env', {}]),
      tools(
        ['edit_file', { path: 'a.txt', old_string: 'a0', new_string: 'a1' }],
        ['mark_complete', { summary: 'Read the environment; a.txt says a1.' }],
      ),
    )
    const run = await runCli(['worker', '--job', job.dir, '--out', join(tmp.path, 'out')], {
      // Whatever else the worker's environment holds, only a placeholder's own secret reaches a server.
      env: {
        ...workerEnv(join(tmp.path, 'worker-home')),
        RALPH_SECRET_TICKED: TICKED,
        RALPH_SECRET_UNTICKED: UNTICKED,
      },
    })
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    const started = lines(run.stdout).find((e) => e.type === 'mcp.servers') as unknown as {
      servers: { server: string; ok: boolean }[]
    }
    expect(started.servers.find((s) => s.server === 'everything')).toMatchObject({ ok: true })
    const chats = server.llm.requests.filter((r) => r.path === '/v1/chat/completions')
    const toolResults = JSON.stringify(
      (chats[2]!.body as { messages: { role: string }[] }).messages.filter((m) => m.role === 'tool'),
    )
    expect(toolResults).toContain(`\\"TOKEN\\": \\"${TICKED}\\"`)
    expect(toolResults).not.toContain(UNTICKED)
    expect(toolResults).not.toContain('RALPH_SECRET_')
  })

  it('refuses a job with a key in it, and a worker refuses a job whose bundle fails git bundle verify', async () => {
    await expect(
      makeJob({
        model: {
          provider: 'openai-compatible',
          model: 'fake-model',
          baseUrl: server.llm.baseUrl,
          localContextMax: null,
          apiKey: COORDINATOR_KEY,
        } as never,
      }),
    ).rejects.toThrow(/model holds a key \("apiKey"\): a job never carries one/)
    const withFeedback = (feedback: string) => makeJob({ task: { ...baseTask(), feedback } })
    await expect(withFeedback(`the server answered 401 for ${COORDINATOR_KEY}`)).rejects.toThrow(
      /would carry a secret of this machine/,
    )
    await expect(
      withFeedback('use ANTHROPIC_KEY=sk-ant-api03-' + 'abcdefghij'.repeat(9) + 'AA'),
    ).rejects.toThrow(/holds what looks like a secret: Anthropic API key/)
    expect(existsSync(join(tmp.path, 'job'))).toBe(false)

    const job = await makeJob()
    // A bundle in a hash format this store does not read: git bundle verify refuses it.
    writeFileSync(job.bundleFile, `# v3 git bundle\n@object-format=sha256\n${base} refs/ralph/base\n\nPACK`)
    await expect(readJob(job.dir, log)).rejects.toThrow(/base bundle \(base.bundle\) fails git bundle verify/)
    const out = join(tmp.path, 'out')
    const run = await runCli(['worker', '--job', job.dir, '--out', out], {
      env: workerEnv(join(tmp.path, 'worker-home')),
    })
    expect(run.code).toBe(2)
    expect(run.stderr).toMatch(/ralph: The job's base bundle \(base.bundle\) fails git bundle verify/)
    expect(run.stdout).toBe('')
    expect(existsSync(out)).toBe(false)
    // One file that is not a job archive: refused with tar's reason, nothing run.
    const notATar = join(tmp.path, 'job.tar')
    writeFileSync(notATar, 'not an archive')
    const fromFile = await runCli(['worker', '--job', notATar, '--out', out], {
      env: workerEnv(join(tmp.path, 'worker-home')),
    })
    expect(fromFile.code).toBe(2)
    expect(fromFile.stderr).toMatch(/ralph: tar failed unpacking the job .*job\.tar: /)
    expect(server.llm.requests).toHaveLength(0)
  })
})

const baseTask = (): WorkerJob['task'] => ({
  number: TASK,
  id: 't-a1',
  name: 'Write a1',
  message: 'Write a1 into a.txt',
  context: null,
  criteria: [],
  feedback: '',
  attempt: 1,
})

/** Another task's result already merged: the base with b.txt changed, in the project's store. */
function otherTaskCommit(): string {
  const env = { ...process.env, GIT_INDEX_FILE: join(tmp.path, 'integration-index') }
  const git = (args: string[], input?: string) =>
    execFileSync(
      'git',
      [
        '-c',
        'user.name=T',
        '-c',
        'user.email=t@example.com',
        `--git-dir=${storePaths(project).gitDir}`,
        ...args,
      ],
      { encoding: 'utf8', env, input },
    ).trim()
  git(['read-tree', base])
  git([
    'update-index',
    '--add',
    '--cacheinfo',
    `100644,${git(['hash-object', '-w', '--stdin'], 'b1\n')},b.txt`,
  ])
  return git(['commit-tree', git(['write-tree']), '-p', base, '-m', 'integration'])
}

/**
 * A copy of the result folder whose bundle is made by hand in a scratch store (borrowing the project's objects): the
 * same refs, but carried on `basedOn`, and with `preFromPost` a "pre" snapshot that already holds the task's work.
 */
function forge(
  out: string,
  result: Record<string, unknown>,
  opts: { basedOn: string; preFromPost?: boolean },
): string {
  const dir = join(tmp.path, `forged-${opts.preFromPost ? 'pre' : 'base'}`)
  cpSync(out, dir, { recursive: true })
  const store = join(dir, 'scratch.git')
  const git = (args: string[], input?: string) =>
    execFileSync(
      'git',
      ['-c', 'user.name=T', '-c', 'user.email=t@example.com', `--git-dir=${store}`, ...args],
      {
        encoding: 'utf8',
        input,
      },
    ).trim()
  execFileSync('git', ['init', '-q', '--bare', store])
  writeFileSync(join(store, 'objects/info/alternates'), join(storePaths(project).gitDir, 'objects') + '\n')
  git(['bundle', 'unbundle', join(out, workerFiles.resultBundle)])
  const post = result.post as string
  const pre = opts.preFromPost
    ? git(['commit-tree', `${post}^{tree}`], 'not a pre\n')
    : (result.pre as string)
  const carrier = git(
    ['commit-tree', `${post}^{tree}`, '-p', opts.basedOn, '-p', pre, '-p', post],
    'forged\n',
  )
  git(['update-ref', `refs/lanes/${TASK}/pre`, pre])
  git(['update-ref', `refs/lanes/${TASK}/post`, post])
  git(['update-ref', `refs/lanes/${TASK}/result`, carrier])
  const bundle = join(dir, workerFiles.resultBundle)
  execFileSync('rm', ['-f', bundle])
  const refs = ['pre', 'post', 'result'].map((r) => `refs/lanes/${TASK}/${r}`)
  git(['bundle', 'create', '-q', bundle, ...refs, '--not', opts.basedOn])
  writeFileSync(join(dir, workerFiles.result), JSON.stringify({ ...result, pre }))
  execFileSync('rm', ['-rf', store])
  return dir
}
