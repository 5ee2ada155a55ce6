// Verification again on the merged tree (issue #38, seam 4), with real git, a real lane made by createLane from a
// real project store, the real verifyTask with DET commands in the sandbox, and the fake LLM server for the judge.
// The lane's task is snapshotted in the lane (task-2-pre/post, as its loop would) and fetched into the project's
// store; the integration state is a commit of the project's store; mergeLaneResult makes the merged commit.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  createLane,
  fetchLaneSnapshots,
  laneProjectId,
  mergeLaneResult,
  verifyMergedInLane,
  type Lane,
  type VerifyMergedInput,
} from '../../../src/main/lanes'
import {
  acquireTaskLock,
  BRANCH_REF,
  runningTask,
  ShadowGit,
  SnapshotEngine,
  storePaths,
} from '../../../src/main/snapshots'
import { fingerprint } from '../../../src/main/snapshots/testkit'
import { openDatabase, type Db } from '../../../src/main/store/database'
import { VerdictsRepo } from '../../../src/main/store/verdictsRepo'
import { verifyTask, type VerifyResult } from '../../../src/main/verify'
import { memoryLogger } from '../../../src/main/workspace/logFile'
import { startFakeLlmServer, type FakeLlmServer } from '../../fixtures/fakeLlmServer'
import { makeTempDir } from '../../helpers/tempDir'

const log = memoryLogger()

/** `node check.cjs FILE WANT [FILE WANT …]`: exits 1 naming the first file whose text is not WANT. */
const CHECK = `const fs = require('fs')
const args = process.argv.slice(2)
for (let i = 0; i < args.length; i += 2) {
  const got = fs.existsSync(args[i]) ? fs.readFileSync(args[i], 'utf8').trim() : '(missing)'
  if (got !== args[i + 1]) { console.error(args[i] + ': expected "' + args[i + 1] + '", got "' + got + '"'); process.exit(1) }
}
`

let llm: FakeLlmServer
beforeAll(async () => {
  llm = await startFakeLlmServer()
})
afterAll(() => llm.close())

let tmp: ReturnType<typeof makeTempDir>
let project: string
let appData: string
let db: Db
beforeEach(() => {
  tmp = makeTempDir('ralph-lane-verify-')
  project = join(tmp.path, 'project')
  appData = join(tmp.path, 'app-data')
  mkdirSync(project)
  mkdirSync(appData)
  db = openDatabase(join(appData, 'ralph.db'))
  llm.requests.length = 0
})
afterEach(() => {
  db.close()
  tmp.cleanup()
})

function write(root: string, files: Record<string, string | null>): void {
  for (const [path, text] of Object.entries(files)) {
    const full = join(root, path)
    if (text === null) execFileSync('rm', ['-f', full])
    else {
      mkdirSync(dirname(full), { recursive: true })
      writeFileSync(full, text)
    }
  }
}

const gitIn = (gitDir: string, args: string[], opts: { input?: string; env?: Record<string, string> } = {}) =>
  execFileSync(
    'git',
    ['-c', 'user.name=T', '-c', 'user.email=t@example.com', `--git-dir=${gitDir}`, ...args],
    {
      encoding: 'utf8',
      input: opts.input,
      env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', ...opts.env },
    },
  ).trim()
const projectGitDir = (): string => storePaths(project).gitDir

/** Another task's result already merged: the base's tree with these files set (null: deleted), in the project's store. */
function integrationCommit(base: string, files: Record<string, string | null>): string {
  const env = { GIT_INDEX_FILE: join(tmp.path, 'integration-index') }
  const git = (args: string[], input?: string) => gitIn(projectGitDir(), args, { env, input })
  git(['read-tree', base])
  for (const [path, text] of Object.entries(files)) {
    if (text === null) git(['update-index', '--force-remove', path])
    else
      git([
        'update-index',
        '--add',
        '--cacheinfo',
        `100644,${git(['hash-object', '-w', '--stdin'], text)},${path}`,
      ])
  }
  return git(['commit-tree', git(['write-tree']), '-p', base, '-m', 'integration'])
}

const BASE_FILES = {
  'check.cjs': CHECK,
  'lib.cjs': "exports.greet = (name) => 'hello ' + name\n",
  'a.txt': 'a0\n',
  'b.txt': 'b0\n',
  'old.txt': 'to be removed by the other task\n',
  'readme.md': '# the project\n',
  '.gitignore': 'node_modules/\n',
  '.ralph/config.json': '{}\n',
}

interface Setup {
  lane: Lane
  base: string
  post: string
}

/**
 * The project at its base snapshot, lane 1 made from it (with the setup's ignored node_modules), and the lane's task 2
 * (`laneFiles`) snapshotted in the lane as its loop does, then fetched into the project's store.
 */
async function setUp(laneFiles: Record<string, string | null>): Promise<Setup> {
  write(project, BASE_FILES)
  const engine = new SnapshotEngine({ projectDir: project, logger: log })
  await engine.init()
  const base = (await engine.save({ kind: 'task-post', task: 1 })).commit
  const lane = await createLane({
    appDataDir: appData,
    projectId: laneProjectId(project),
    projectDir: project,
    lane: 1,
    task: 2,
    base,
    logger: log,
  })
  write(lane.workDir, { 'node_modules/dep/index.js': 'module.exports = "installed by the setup"\n' })
  const laneEngine = new SnapshotEngine({ projectDir: lane.workDir, logger: log })
  await laneEngine.save({ kind: 'task-pre', task: 2 })
  write(lane.workDir, laneFiles)
  await laneEngine.save({ kind: 'task-post', task: 2 })
  const fetched = await fetchLaneSnapshots({ projectDir: project, laneStoreDir: lane.storeDir, task: 2 })
  return { lane, base, post: fetched.post! }
}

async function merge(s: Setup, integration: string): Promise<string> {
  const merged = await mergeLaneResult(new ShadowGit(projectGitDir(), project), {
    ours: integration,
    theirs: s.post,
    task: 2,
    base: s.base,
    message: 'task 2 merged',
  })
  if (merged.kind !== 'clean' || !merged.commit)
    throw new Error(`the merge was not clean: ${JSON.stringify(merged)}`)
  return merged.commit
}

const model = () => ({
  provider: 'openai-compatible' as const,
  model: 'fake-model',
  baseUrl: llm.baseUrl,
  apiKey: null,
})

const request = (accept: string[]) => ({
  task: { id: 't-lane', name: 'Write a.txt', accept },
  model: model(),
  signal: new AbortController().signal,
  concurrency: 1,
  retry: { maxRetries: 0 },
  logger: log,
  env: { ...process.env, RALPH_HOME: appData },
})

/** The chat requests' user messages (the judge's evidence), in order. */
const evidenceSent = (): string[] =>
  llm.requests
    .filter((r) => r.path === '/v1/chat/completions')
    .map((r) =>
      (r.body as { messages: { role: string; content: unknown }[] }).messages
        .filter((m) => m.role === 'user')
        .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
        .join('\n'),
    )

/** The project's own state a lane's verification must leave alone: its files and every ref of its store. */
const projectState = () => ({
  files: fingerprint(project),
  refs: gitIn(projectGitDir(), ['for-each-ref', '--format=%(refname) %(objectname)']),
  head: readFileSync(join(projectGitDir(), 'HEAD'), 'utf8'),
})

const laneGit = (lane: Lane, args: string[]) =>
  gitIn(lane.storeDir, [`--work-tree=${lane.workDir}`, ...args], { env: { GIT_INDEX_FILE: lane.indexFile } })

describe('verifyMergedInLane', { timeout: 60_000 }, () => {
  it('PASS: the lane moves to the merged tree, its DET check sees both tasks’ work, the judge sees integration→merged under a new nonce', async () => {
    const s = await setUp({ 'a.txt': 'a1\n', 'notes.md': 'the lane task wrote this\n' })
    // The lane task's own verification, as the build runs it in the lane: only its own change passes there.
    llm.enqueue(
      { kind: 'verdict', answer: 'YES', reason: 'a.txt says a1' },
      { kind: 'verdict', answer: 'YES', reason: 'a.txt says a1, the rest is the other task' },
    )
    const first = await verifyTask({
      ...request(['DET: `node check.cjs a.txt a1` exits 0', 'LLM: a.txt says a1']),
      projectDir: s.lane.workDir,
      fromTag: 'task-2-pre',
      toTag: 'task-2-post',
    })
    expect(first.outcome).toBe('PASS')

    const integration = integrationCommit(s.base, { 'b.txt': 'b1\n', 'old.txt': null })
    const merged = await merge(s, integration)
    const libStat = statSync(join(s.lane.workDir, 'lib.cjs'))
    // After the lane's last snapshot: a tracked file changed (the merged tree's text comes back), a file of its own.
    write(s.lane.workDir, { 'readme.md': 'edited after the snapshot\n', 'scratch.log': 'the lane’s own\n' })
    const before = projectState()
    const verdicts = new VerdictsRepo(db)
    const result = await verifyMergedInLane({
      ...request([
        'DET: `node check.cjs a.txt a1 b.txt b1` exits 0',
        'LLM: a.txt says a1 and nothing else changed',
      ]),
      lane: s.lane,
      projectDir: project,
      integration,
      merged,
      firstNonce: first.nonce,
      verdicts,
    })

    expect(result.outcome).toBe('PASS')
    expect(
      result.verdicts.filter((v) => v.ref.startsWith('AC')).map((v) => [v.ref, v.kind, v.answer]),
    ).toEqual([
      ['AC1', 'DET', 'YES'],
      ['AC2', 'LLM', 'YES'],
    ])
    expect(result.nonce).not.toBe(first.nonce)
    // The judge's evidence: the merged change (a.txt, notes.md), not the other task's b.txt or old.txt.
    const evidence = evidenceSent()
    expect(evidence).toHaveLength(2)
    expect(evidence[1]).toContain(result.nonce)
    expect(evidence[1]).toContain(
      '## Changed files (2)\n- a.txt (modified, +1 -1)\n- notes.md (added, +1 -0)\n\n',
    )
    expect(evidence[1]).not.toContain('+b1')
    expect(evidence[1]).not.toContain('old.txt')

    // The lane is the merged tree: both tasks' files, the other task's deletion, the setup's node_modules kept, an
    // unchanged file not rewritten; its index and branch follow; the verification's tags are gone again.
    const lane = s.lane.workDir
    expect(readFileSync(join(lane, 'a.txt'), 'utf8')).toBe('a1\n')
    expect(readFileSync(join(lane, 'b.txt'), 'utf8')).toBe('b1\n')
    expect(existsSync(join(lane, 'old.txt'))).toBe(false)
    expect(readFileSync(join(lane, 'readme.md'), 'utf8')).toBe(BASE_FILES['readme.md'])
    expect(readFileSync(join(lane, 'scratch.log'), 'utf8')).toBe('the lane’s own\n')
    expect(readFileSync(join(lane, 'node_modules/dep/index.js'), 'utf8')).toContain('installed by the setup')
    const libAfter = statSync(join(lane, 'lib.cjs'))
    expect([libAfter.ino, libAfter.mtimeMs]).toEqual([libStat.ino, libStat.mtimeMs])
    expect(laneGit(s.lane, ['rev-parse', BRANCH_REF])).toBe(merged)
    expect(laneGit(s.lane, ['diff-index', '--cached', '--name-only', merged])).toBe('')
    expect(laneGit(s.lane, ['diff-files', '--name-only'])).toBe('')
    expect(await runningTask(s.lane.workDir)).toBeNull()
    expect(laneGit(s.lane, ['tag', '--list', 'merge-verify-*'])).toBe('')

    // The verdicts are the user's project's; the project's folder, tags and refs are as they were.
    const stored = verdicts.listByTask(project, 't-lane')
    expect(stored.map((v) => [v.ref, v.answer, v.nonce])).toEqual(
      result.verdicts.map((v) => [v.ref, v.answer, result.nonce]),
    )
    expect(verdicts.listByTask(s.lane.workDir, 't-lane')).toEqual([])
    expect(projectState()).toEqual(before)
  })

  it('FAIL: a merge that is clean as text but breaks the lane task’s DET check fails with the reason, no model call', async () => {
    const s = await setUp({
      'use.cjs':
        "try { console.log(require('./lib.cjs').greet('lane')) } catch (e) { console.error(e.message); process.exit(1) }\n",
    })
    // The other task renamed greet() to hello(): no line of either side conflicts.
    const integration = integrationCommit(s.base, {
      'lib.cjs': "exports.hello = (name) => 'hello ' + name\n",
    })
    const merged = await merge(s, integration)
    const before = projectState()
    const result = await verifyMergedInLane({
      ...request(['DET: `node use.cjs` exits 0', 'LLM: it greets the lane']),
      lane: s.lane,
      projectDir: project,
      integration,
      merged,
    })
    expect(result.outcome).toBe('FAIL')
    expect(result.modelCalls).toBe(0)
    const det = result.verdicts.find((v) => v.ref === 'AC1')!
    expect([det.kind, det.answer]).toEqual(['DET', 'NO'])
    expect(det.reason).toContain('`node use.cjs` exited with 1')
    expect(det.reason).toMatch(/greet is not a function/)
    expect(result.feedback).toContain('FAIL AC1')
    expect(readFileSync(join(s.lane.workDir, 'lib.cjs'), 'utf8')).toContain('exports.hello')
    expect(existsSync(join(s.lane.workDir, 'node_modules/dep/index.js'))).toBe(true)
    expect(projectState()).toEqual(before)
  })

  it('refuses a commit not in the project’s store, a lane of another project, and a verification sealed with the first nonce', async () => {
    const s = await setUp({ 'a.txt': 'a1\n' })
    const integration = integrationCommit(s.base, { 'b.txt': 'b1\n' })
    const merged = await merge(s, integration)
    const input = (over: Partial<VerifyMergedInput>): VerifyMergedInput => ({
      ...request(['DET: `node check.cjs a.txt a1` exits 0']),
      lane: s.lane,
      projectDir: project,
      integration,
      merged,
      ...over,
    })

    await expect(verifyMergedInLane(input({ merged: 'f'.repeat(40) }))).rejects.toMatchObject({
      kind: 'not-found',
      message: expect.stringContaining(
        `The merged commit "${'f'.repeat(40)}" is not in the project's snapshot store`,
      ),
    })
    await expect(verifyMergedInLane(input({ integration: '--output=x' }))).rejects.toMatchObject({
      kind: 'invalid-input',
    })
    // A snapshot of the lane's own that nothing fetched into the project's store: refused as well.
    write(s.lane.workDir, { 'c.txt': 'only in the lane\n' })
    const laneOnly = (
      await new SnapshotEngine({ projectDir: s.lane.workDir, logger: log }).save({ kind: 'manual' })
    ).commit
    const laneFiles = fingerprint(s.lane.workDir)
    await expect(verifyMergedInLane(input({ integration: laneOnly }))).rejects.toMatchObject({
      kind: 'not-found',
    })
    expect(fingerprint(s.lane.workDir)).toEqual(laneFiles)

    // A loop still running in the lane (it holds the lane's task lock): refused as busy, the lane untouched.
    const running = await acquireTaskLock(s.lane.workDir, 'task 2')
    await expect(verifyMergedInLane(input({}))).rejects.toMatchObject({
      kind: 'busy',
      message: expect.stringContaining('Lane 1 is still running a task'),
    })
    await running.release()
    expect(fingerprint(s.lane.workDir)).toEqual(laneFiles)

    const other = join(tmp.path, 'other')
    mkdirSync(other)
    write(other, { 'x.txt': 'x\n' })
    const otherEngine = new SnapshotEngine({ projectDir: other, logger: log })
    await otherEngine.init()
    await otherEngine.save({ kind: 'manual' })
    await expect(verifyMergedInLane(input({ projectDir: other }))).rejects.toMatchObject({
      kind: 'invalid-input',
      message: expect.stringContaining('was not made from'),
    })

    // A verification sealed with the lane's first nonce does not count: it is made once more (a chance meeting of two
    // random nonces), and refused when the nonce comes back again.
    const sealedWith = (nonce: string, costUsd: number): VerifyResult => ({
      outcome: 'PASS',
      nonce,
      verdicts: [],
      costUsd,
      feedback: '',
      modelCalls: 1,
      warnings: [],
    })
    const nonces = ['ABC123', 'DEF456']
    const seen: string[] = []
    const retried = await verifyMergedInLane(
      input({
        firstNonce: 'ABC123',
        verify: (req) => {
          seen.push(`${req.projectDir} ${req.fromTag}..${req.toTag}`)
          return Promise.resolve(sealedWith(nonces[seen.length - 1]!, 0.01))
        },
      }),
    )
    expect([retried.nonce, retried.costUsd]).toEqual(['DEF456', 0.02])
    expect(seen).toEqual(Array(2).fill(`${s.lane.workDir} merge-verify-from..merge-verify-to`))
    await expect(
      verifyMergedInLane(
        input({ firstNonce: 'ABC123', verify: () => Promise.resolve(sealedWith('ABC123', 0)) }),
      ),
    ).rejects.toMatchObject({ kind: 'internal', message: expect.stringContaining('nonce') })
    expect(laneGit(s.lane, ['tag', '--list', 'merge-verify-*'])).toBe('')
  })
})
