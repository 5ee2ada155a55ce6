import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { runCli } from '../../helpers/cli'
import { makeTempDir } from '../../helpers/tempDir'

// The work queue through the built CLI, as scripts and the loop's model call it (seed 001).
describe('ralph query | task | issue | set-spec | log | plan SPEC', { timeout: 180_000 }, () => {
  let project: ReturnType<typeof makeTempDir>
  let home: ReturnType<typeof makeTempDir>
  let env: NodeJS.ProcessEnv
  beforeEach(() => {
    project = makeTempDir('ralph-queue-cli-')
    home = makeTempDir('ralph-home-')
    env = { RALPH_HOME: home.path }
  })
  afterEach(() => {
    project.cleanup()
    home.cleanup()
  })
  /** Tasks and issues belong to a spec: most tests start from one. */
  const withSpec = async () => {
    writeFileSync(join(project.path, 'spec.md'), '# Config\n')
    expect((await ralph('set-spec', 'spec.md')).code).toBe(0)
  }
  const ralph = (...args: string[]) => runCli([...args, '--project', project.path], { env })
  const json = async (...args: string[]) => {
    const r = await ralph(...args, '--json')
    expect(r.code, r.stderr).toBe(0)
    return JSON.parse(r.stdout)
  }

  it('works a task through add, done, reject, done, accept, and tells the story in log --all', async () => {
    expect((await ralph('query', 'stage')).stdout).toBe('PLAN\n')
    await withSpec()
    const added = await json(
      'task',
      'add',
      'Parse the config file',
      '--accept',
      'DET: npm test passes',
      '--accept',
      'LLM: errors name the line, and the key',
      '--priority',
      'high',
    )
    const id = added.ids[0]
    expect(id).toMatch(/^t-[0-9a-z]{4,}$/)
    expect(
      added.state.tasks[0].accept.map(
        (c: { ref: string; kind: string; text: string }) => `${c.ref} ${c.kind} ${c.text}`,
      ),
    ).toEqual(['AC1 DET npm test passes', 'AC2 LLM errors name the line, and the key'])
    const second = await json('task', 'add', 'Write the docs', '--deps', id)
    expect(second.state.tasks.find((t: { id: string }) => t.id === second.ids[0]).blockedBy).toEqual([id])
    expect((await ralph('query', 'stage')).stdout).toBe('BUILD\n')
    expect(JSON.parse((await ralph('query', 'next')).stdout)).toMatchObject({ action: 'build', task: { id } })

    // A human line for people, the whole state as JSON for scripts.
    const done = await ralph('task', 'done', id)
    expect(done.code).toBe(0)
    expect(done.stdout).toContain(`${id}  done`)
    const rejected = await json('task', 'reject', 'errors do not name the line')
    expect(rejected.state.tasks.find((t: { id: string }) => t.id === id)).toMatchObject({
      status: 'pending',
      reject: 'errors do not name the line',
    })
    await json('task', 'done', id)
    // Pending work comes first: VERIFY only once nothing is pending.
    expect((await ralph('query', 'stage')).stdout).toBe('BUILD\n')
    await json('task', 'done', second.ids[0])
    expect((await ralph('query', 'stage')).stdout).toBe('VERIFY\n')
    await json('task', 'accept')

    const history = JSON.parse((await ralph('log', '--all')).stdout)
    const story = history.tasks.find((t: { id: string }) => t.id === id)
    expect(story.status).toBe('accepted')
    expect(story.rejections.map((r: { reason: string }) => r.reason)).toEqual(['errors do not name the line'])
    const changes = JSON.parse((await ralph('log')).stdout).changes
    expect(changes.length).toBeGreaterThanOrEqual(6)
    // Every change is a commit on the shadow store's queue ref; the user's own git is never touched.
    expect(existsSync(join(project.path, '.git'))).toBe(false)
  })

  it('reports a malformed line with its number and keeps it; bad input is a usage error that changes nothing', async () => {
    await withSpec()
    await json('task', 'add', 'One')
    const file = join(project.path, '.ralph', 'plan.jsonl')
    appendFileSync(file, '{"t":"task", oops\n')
    const before = readFileSync(file, 'utf8')
    const q = await ralph('query')
    expect(q.code).toBe(0)
    // Line 1 is the spec, line 2 the task.
    expect(q.stderr).toMatch(/plan\.jsonl line 3: .*\(kept as it is\)/)
    const bad = await ralph('task', 'add', 'Two', '--priority', 'urgent')
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--priority must be high, medium or low, got "urgent".')
    const missingDep = await ralph('task', 'add', 'Two', '--deps', 't-zzzz')
    expect(missingDep.code).toBe(2)
    expect(readFileSync(file, 'utf8')).toBe(before)
    await json('task', 'add', 'Three')
    expect(readFileSync(file, 'utf8')).toContain('{"t":"task", oops\n')
  })

  it('asks before a new spec drops unfinished tasks: exit 3 without an answer, abort, then cancel', async () => {
    writeFileSync(join(project.path, 'auth.md'), '# Auth\n')
    writeFileSync(join(project.path, 'billing.md'), '# Billing\n')
    expect((await ralph('plan', 'auth.md')).code).toBe(0)
    await json('task', 'add', 'Login form', '--spec', 'auth.md')
    const asked = await ralph('plan', 'billing.md')
    expect(asked.code).toBe(3)
    expect(asked.stdout).toContain('Login form')
    expect(asked.stdout).toContain('--cancel-unfinished')
    const aborted = await ralph('plan', 'billing.md', '--abort')
    expect(aborted.code).toBe(0)
    expect((await json('query', 'tasks')).length).toBe(1)
    const started = await json('plan', 'billing.md', '--cancel-unfinished')
    expect(started.outcome).toBe('started')
    const state = await json('query')
    expect(state).toMatchObject({ spec: 'billing.md', tasks: [] })
    const all = JSON.parse((await ralph('log', '--all')).stdout).tasks
    expect(all.map((t: { status: string }) => t.status)).toEqual(['cancelled'])
  })

  it('issues move the stage to INVESTIGATE and back', async () => {
    await withSpec()
    const added = await json('issue', 'add', 'The build warns about a missing peer dependency')
    expect((await ralph('query', 'stage')).stdout).toBe('INVESTIGATE\n')
    expect(JSON.parse((await ralph('query', 'issues')).stdout)[0].id).toBe(added.ids[0])
    await json('issue', 'done')
    expect((await ralph('query', 'stage')).stdout).not.toBe('INVESTIGATE\n')
  })
})
