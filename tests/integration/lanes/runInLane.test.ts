// A queue task run in a lane (issue #38), against real git, real SQLite, real bubblewrap and the fake model server:
// the lane is a project of its own inside the app data folder, its task's snapshots reach the project's store as
// refs/lanes/N/*, its run row is the user's project's with the lane's number, its commands see the lane's number and
// ports and cannot write the user's project or read the app data, its setup command runs first, and the user's folder
// and timeline stay as they were.
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, realpathSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { createLane, runInLane, type Lane, type LaneRunResult } from '../../../src/main/lanes'
import { SnapshotEngine, storePaths } from '../../../src/main/snapshots'
import { fingerprint, userGit } from '../../../src/main/snapshots/testkit'
import { ProjectsRepo } from '../../../src/main/store'
import { makeTempDir } from '../../helpers/tempDir'
import { memoryLogger } from '../../../src/main/workspace/logFile'
import { AppMcpServers } from '../../../src/main/mcp'
import { FileVault } from '../../../src/main/secrets/fileVault'
import { everythingServer } from '../mcp/fixtures'
import { loopFixture, parsed, tools } from '../loop/harness'

const t = loopFixture()
const log = memoryLogger()
const TASK = 5

const storeGit = (gitDir: string, ...args: string[]): string =>
  execFileSync('git', [`--git-dir=${gitDir}`, ...args], { encoding: 'utf8' })

/**
 * The user's project (a file, its own git repository, a snapshot task-1-pre, the lane settings), its row in the
 * database, and lane 1 made from task-1-pre inside the app data folder (the folder holding ralph.db).
 */
async function setUp(
  setup: string,
  files: Record<string, string> = {},
): Promise<{ lane: Lane; projectId: number; appData: string }> {
  t.h.write({
    'src/app.ts': 'export const x = 1\n',
    '.gitignore': '.cache/\n.env\n',
    '.env': 'SECRET=from-the-user\n',
    '.ralph/config.json': JSON.stringify({ lanes: { setup, copy: ['.env'] } }),
    ...files,
  })
  userGit(t.h.dir, 'init', '-q')
  userGit(t.h.dir, 'add', 'src')
  userGit(t.h.dir, 'commit', '-qm', 'user')
  const engine = new SnapshotEngine({ projectDir: t.h.dir, logger: log })
  await engine.init()
  await engine.save({ kind: 'task-pre', task: 1 })
  const projectId = new ProjectsRepo(t.h.db).upsert(realpathSync(t.h.dir), 'app', Date.now()).id
  const appData = realpathSync(t.h.home.path)
  const lane = await createLane({
    appDataDir: appData,
    projectId: String(projectId),
    projectDir: t.h.dir,
    lane: 1,
    task: TASK,
    base: 'task-1-pre',
    logger: log,
  })
  return { lane, projectId, appData }
}

function run(
  lane: Lane,
  projectId: number,
  appData: string,
  projectDir = t.h.dir,
  mcpServers?: AppMcpServers,
): Promise<LaneRunResult> {
  return runInLane({
    ...(mcpServers ? { mcpServers } : {}),
    lane,
    task: TASK,
    projectDir,
    projectId,
    message: 'x should be 2',
    model: { provider: 'openai-compatible', model: 'fake-model', baseUrl: t.llm.baseUrl, apiKey: null },
    maxIterations: 3,
    signal: new AbortController().signal,
    runs: t.h.runs,
    env: { ...process.env, RALPH_HOME: appData },
    logger: log,
    emit: (e) => t.h.events.push(e),
  })
}

const projectTags = (): string => storeGit(storePaths(t.h.dir).gitDir, 'tag')

describe('a task in a lane', () => {
  it('runs the whole loop in the lane and brings its snapshots back as refs/lanes/N, leaving the user’s folder alone', async () => {
    const { lane, projectId, appData } = await setUp(
      `mkdir -p .cache && echo "setup saw lane $RALPH_LANE port $RALPH_LANE_PORT" > .cache/setup.txt; ` +
        `touch ${t.h.dir}/setup-was-here 2>> .cache/setup.txt; true`,
    )
    const before = fingerprint(t.h.dir)
    const tagsBefore = projectTags()
    const userHead = userGit(t.h.dir, 'rev-parse', 'HEAD')
    t.llm.enqueue(
      parsed({ type: 'bugfix' }),
      tools(
        [
          'run_command',
          {
            command:
              '{ cat .cache/setup.txt; echo "env: $RALPH_LANE $RALPH_LANE_PORT $RALPH_LANE_PORTS"; ' +
              `echo pwned > ${t.h.dir}/src/app.ts; ls -a ${appData}; head -c 20 ${appData}/ralph.db; } ` +
              '> .cache/probe.txt 2>&1',
          },
        ],
        ['edit_file', { path: 'src/app.ts', old_string: 'x = 1', new_string: 'x = 2' }],
        ['mark_complete', { summary: 'Set x to 2 in src/app.ts.' }],
      ),
    )

    const result = await run(lane, projectId, appData)
    expect(result).toMatchObject({ status: 'complete', task: TASK, lane: 1, baseCommit: lane.marker.base })

    // The lane's own store has the task's snapshots; the project's store has them as refs/lanes/5/*, not as tags.
    const project = storePaths(t.h.dir).gitDir
    expect(storeGit(lane.storeDir, 'rev-parse', `task-${TASK}-post`).trim()).toBe(result.postCommit)
    expect(storeGit(project, 'rev-parse', `refs/lanes/${TASK}/post`).trim()).toBe(result.postCommit)
    expect(storeGit(project, 'rev-parse', `refs/lanes/${TASK}/pre`).trim()).toBe(result.preCommit)
    expect(storeGit(project, 'show', `refs/lanes/${TASK}/post:src/app.ts`)).toBe('export const x = 2\n')
    expect(storeGit(project, 'show', `refs/lanes/${TASK}/post:.ralph/task-counter.txt`).trim()).toBe(
      `${TASK}`,
    )
    expect(storeGit(project, 'ls-tree', '-r', '--name-only', `refs/lanes/${TASK}/post`)).not.toMatch(
      /\.env|\.cache/,
    )

    // The user's folder, repository and timeline are exactly as they were.
    expect(fingerprint(t.h.dir)).toEqual(before)
    expect(projectTags()).toBe(tagsBefore)
    expect(userGit(t.h.dir, 'rev-parse', 'HEAD')).toBe(userHead)
    expect(existsSync(join(t.h.dir, 'setup-was-here'))).toBe(false)

    // The run row and its usage are the user's project's, with the lane's number.
    const row = t.h.db
      .prepare('SELECT project_id, project_path, lane, task, status FROM runs WHERE id = ?')
      .get(result.runId)
    expect(row).toEqual({
      project_id: projectId,
      project_path: realpathSync(t.h.dir),
      lane: 1,
      task: TASK,
      status: 'complete',
    })
    expect(t.h.runs.getRun(result.runId!)).toMatchObject({ lane: 1 })
    expect(t.h.runs.costForRun(result.runId!).calls).toBe(2) // the parse and the iteration

    // The command ran after the setup, saw the lane's environment, and could neither write the user's project nor
    // read the app data folder that holds the lane.
    const told = readFileSync(join(lane.workDir, '.cache/probe.txt'), 'utf8')
    expect(told).toContain('setup saw lane 1 port 42010')
    expect(told).toContain('env: 1 42010 42010-42019')
    expect(told).toMatch(/cannot create .*src\/app\.ts/)
    expect(told).toMatch(/^\.\n\.\.\nlanes\n/m) // the app data folder shows only the way to the lane
    expect(told).toMatch(/cannot open .*ralph\.db.*No such file/)
    expect(told).not.toContain('SQLite format')
  })

  it("starts the .mcp.json servers the user approved for their project, not the lane's folder; others wait", async () => {
    const mcpJson = { mcpServers: { approved: everythingServer, unapproved: everythingServer } }
    const { lane, projectId, appData } = await setUp('true', { '.mcp.json': JSON.stringify(mcpJson) })
    const app = new AppMcpServers(t.h.db, new FileVault(appData))
    ;(await app.approvals(t.h.dir)).approve({ name: 'approved', origin: 'project', config: everythingServer })
    t.llm.enqueue(
      parsed({ type: 'bugfix' }),
      tools(
        ['edit_file', { path: 'src/app.ts', old_string: 'x = 1', new_string: 'x = 2' }],
        ['mark_complete', { summary: 'Set x to 2 in src/app.ts.' }],
      ),
    )
    const result = await run(lane, projectId, appData, t.h.dir, app)
    expect(result.status, result.message).toBe('complete')
    const servers = t.h.events.find((e) => e.type === 'mcp.servers')
    const byName = (servers as { servers: { server: string }[] }).servers.toSorted((a, b) =>
      a.server.localeCompare(b.server),
    )
    expect(byName).toMatchObject([
      { server: 'approved', ok: true },
      { server: 'unapproved', ok: false, message: expect.stringMatching(/waits for your approval/) },
    ])
  }, 120_000)

  it('fails the task with the setup command’s output when the setup fails, before any iteration', async () => {
    const { lane, projectId, appData } = await setUp(
      'echo "npm ERR! broken lockfile in lane $RALPH_LANE"; exit 3',
    )
    const tagsBefore = projectTags()
    t.llm.enqueue(parsed({ type: 'bugfix' }))
    // A lane runs only for the project whose snapshots it borrows.
    const other = makeTempDir('ralph-other-')
    onTestFinished(() => other.cleanup())
    await new SnapshotEngine({ projectDir: other.path, logger: log }).init()
    await expect(run(lane, projectId, appData, other.path)).rejects.toThrow(
      /was not made from .*'s snapshots/,
    )

    const result = await run(lane, projectId, appData)
    expect(result).toMatchObject({ status: 'failed', reason: 'error', task: TASK, postCommit: null })
    expect(result.message).toMatch(
      /Lane 1's setup command `echo .*` \(lanes.setup in .ralph\/config.json\) exited with 3/,
    )
    expect(result.message).toContain('npm ERR! broken lockfile in lane 1')
    // No model call at all: the setup runs before the parse and the first iteration.
    expect(t.h.chatRequests()).toHaveLength(0)
    expect(t.h.runs.getRun(result.runId!)).toMatchObject({ status: 'failed', lane: 1, task: TASK })
    // The pre-task snapshot is kept for the build to look at; no post, no new tag in the project.
    expect(storeGit(storePaths(t.h.dir).gitDir, 'rev-parse', `refs/lanes/${TASK}/pre`).trim()).toBe(
      result.preCommit,
    )
    expect(projectTags()).toBe(tagsBefore)
  })
})
