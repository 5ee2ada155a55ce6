// Hostile scenario (issue 23): a model writes credential files and an unquoted AWS secret key, and verification
// must FAIL the task, naming each file. Everything is real: the `ralph` CLI as a child process (task add, build),
// the fake model server scripting the model's tool calls over HTTP, the sandboxed command, snapshots, SQLite.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { openDatabase } from '../../../src/main/store/database'
import { startFakeLlmServer, type FakeLlmServer } from '../../fixtures/fakeLlmServer'
import { runCli } from '../../helpers/cli'
import { makeTempDir } from '../../helpers/tempDir'
import { CHECK_SCRIPT, cliEnv, ndjson } from '../build/buildCliFixture'
import { parsed, say, tools } from '../loop/harness'

type Event = { type: string; taskId?: string; outcome?: string; feedback?: string }

const AWS_SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ9mR2kXaB'

/**
 * The model's attempt: it writes the files with a shell command (the file tools refuse `.env` names; a hostile
 * model goes around them), then says it is done.
 */
const hostileAttempt = () => [
  parsed({ type: 'fresh', title: 'Add the deployment configuration' }),
  tools(
    [
      'run_command',
      {
        command: [
          'mkdir -p deploy keys config',
          "printf 'DATABASE_URL=postgres://localhost/app\\n' > prod.env",
          "printf 'DEBUG=0\\n' > deploy/.ENV",
          "printf 'not really a key\\n' > keys/server.PEM",
          `printf 'aws:\\n  region: eu-west-1\\n  aws_secret_access_key: ${AWS_SECRET}\\n' > config/secrets.yml`,
        ].join(' && '),
      },
    ],
    ['mark_complete', { summary: 'Added the deployment configuration.' }],
  ),
]

describe('hostile: verification refuses credential files and secrets (CLI)', { timeout: 240_000 }, () => {
  let llm: FakeLlmServer
  let project: ReturnType<typeof makeTempDir>
  let home: ReturnType<typeof makeTempDir>
  let env: NodeJS.ProcessEnv
  beforeAll(async () => {
    llm = await startFakeLlmServer()
  })
  afterAll(() => llm.close())
  beforeEach(async () => {
    llm.requests.length = 0
    llm.fallback = say('Nothing more.')
    project = makeTempDir('ralph-hostile-secrets-')
    home = makeTempDir('ralph-home-')
    env = cliEnv(home.path, llm.baseUrl)
    writeFileSync(join(project.path, 'check.cjs'), CHECK_SCRIPT)
    writeFileSync(join(project.path, 'spec.md'), '# Deployment\n')
    const spec = await runCli(['set-spec', 'spec.md', '--project', project.path], { env })
    expect(spec.code, spec.stderr).toBe(0)
  })
  afterEach(() => {
    project.cleanup()
    home.cleanup()
  })

  const addTask = async (name: string, accept: string): Promise<string> => {
    const r = await runCli(['task', 'add', name, '--accept', accept, '--project', project.path, '--json'], {
      env,
    })
    expect(r.code, r.stderr).toBe(0)
    const id = /\bt-[0-9a-z]+\b/.exec(r.stdout)?.[0]
    expect(id, r.stdout).toBeDefined()
    return id!
  }

  it('FAILs the task on blocked paths and the secret, naming each file', async () => {
    const id = await addTask('Add the deployment configuration', 'DET: no secrets are committed')
    // One scripted attempt: the FAIL sends the task back, and the retries (the model has nothing more to say)
    // stall until the build stops for a person; the task is never accepted.
    llm.enqueue(...hostileAttempt())
    const result = await runCli(['build', '--json', '--project', project.path], { env })
    expect(result.code, result.stderr + result.stdout.slice(-2000)).toBe(4)
    const events = ndjson<Event>(result.stdout)
    const completed = events.filter((e) => e.type === 'verify.completed')
    expect(completed.map((e) => `${e.taskId} ${e.outcome}`)).toEqual([`${id} FAIL`])
    expect(events.find((e) => e.type === 'build.rejected')).toMatchObject({ taskId: id })
    expect(events.some((e) => e.type === 'build.accepted')).toBe(false)

    // The verdicts, as recorded: blocked-paths names each file with its rule, secrets names the file and line.
    const db = openDatabase(join(home.path, 'ralph.db'))
    try {
      const rows = db
        .prepare(
          "SELECT ref, answer, reason FROM verdicts WHERE ref IN ('blocked-paths', 'secrets') ORDER BY id",
        )
        .all() as { ref: string; answer: string; reason: string }[]
      const blocked = rows.filter((r) => r.ref === 'blocked-paths')
      const secrets = rows.filter((r) => r.ref === 'secrets')
      expect(blocked).toHaveLength(1)
      expect(secrets).toHaveLength(1)
      for (const v of blocked) {
        expect(v.answer).toBe('NO')
        expect(v.reason).toContain('prod.env (*.env)')
        expect(v.reason).toContain('deploy/.ENV (.env)')
        expect(v.reason).toContain('keys/server.PEM (*.pem)')
        expect(v.reason).toContain('config/secrets.yml (secrets.y*ml)')
      }
      for (const v of secrets) {
        expect(v.answer).toBe('NO')
        expect(v.reason).toContain('config/secrets.yml:3 (AWS secret access key, wJal…aB (40 chars))')
        // The verdict (which goes back to the model as feedback) never holds the secret itself.
        expect(v.reason).not.toContain(AWS_SECRET)
      }
    } finally {
      db.close()
    }
    // Nor does the feedback the retry's model reads.
    expect(completed[0]!.feedback).toContain('config/secrets.yml')
    expect(JSON.stringify(llm.requests.map((r) => r.body))).not.toContain(AWS_SECRET)
  })

  it('control: a task writing only .env.example passes the blocked-paths and secrets checks', async () => {
    const id = await addTask(
      'Add an example environment file',
      'DET: `node check.cjs .env.example API_URL=http://localhost:3000` exits 0',
    )
    llm.enqueue(
      parsed({ type: 'fresh', title: 'Add an example environment file' }),
      tools(
        ['write_file', { path: '.env.example', content: 'API_URL=http://localhost:3000\n' }],
        ['mark_complete', { summary: 'Added .env.example.' }],
      ),
    )
    const result = await runCli(['build', '--json', '--project', project.path], { env })
    expect(result.code, result.stderr + result.stdout.slice(-2000)).toBe(0)
    const events = ndjson<Event>(result.stdout)
    expect(
      events.filter((e) => e.type === 'verify.completed').map((e) => `${e.taskId} ${e.outcome}`),
    ).toEqual([`${id} PASS`])
    const db = openDatabase(join(home.path, 'ralph.db'))
    try {
      const rows = db
        .prepare(
          "SELECT ref, answer, reason FROM verdicts WHERE ref IN ('blocked-paths', 'secrets') ORDER BY id",
        )
        .all() as { ref: string; answer: string; reason: string }[]
      expect(rows.map((r) => [r.ref, r.answer, r.reason])).toEqual([
        ['blocked-paths', 'YES', 'No blocked path was changed.'],
        ['secrets', 'YES', 'No secret was found in the added lines.'],
      ])
    } finally {
      db.close()
    }
  })
})
