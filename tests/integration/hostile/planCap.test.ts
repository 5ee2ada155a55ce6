import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startFakeLlmServer, type FakeLlmServer } from '../../fixtures/fakeLlmServer'
import { runCli } from '../../helpers/cli'
import { makeTempDir } from '../../helpers/tempDir'
import { parsed, say, tools } from '../loop/harness'

/** A plan of `n` sections of about 370 characters each (16,000 make 6 MB). */
function largePlan(n: number): string {
  const sections = Array.from(
    { length: n },
    (_, i) =>
      `      <Section gumdrop="s${i}" files={['src/s${i}.ts']}>\n` +
      `        {/* Section ${i}: ${'lorem ipsum '.repeat(20)}*/}\n        <Gumdrop use="card" />\n      </Section>`,
  ).join('\n')
  return `export default (\n  <App name="BIG">\n    <Screen name="landing">\n      <Content>\n${sections}\n      </Content>\n    </Screen>\n  </App>\n)\n`
}

/** The stated bound of one iteration's request (the plan's share is PLAN_PROMPT_CHARS, 28,000 characters). */
const REQUEST_BOUND = 100_000

/**
 * A model that grew .ralph/plan.tsx to several megabytes: every iteration's request stays bounded (it was 1.2 MB
 * per iteration before the cap) and the task still completes. The real CLI against the fake model server.
 */
describe('hostile: a 5.9 MB plan.tsx', { timeout: 120_000 }, () => {
  let llm: FakeLlmServer
  let project: ReturnType<typeof makeTempDir>
  let home: ReturnType<typeof makeTempDir>
  let env: NodeJS.ProcessEnv
  beforeAll(async () => {
    llm = await startFakeLlmServer()
  })
  afterAll(() => llm.close())
  beforeEach(() => {
    llm.requests.length = 0
    llm.fallback = say('Nothing more.')
    project = makeTempDir('ralph-project-')
    home = makeTempDir('ralph-home-')
    env = {
      RALPH_HOME: home.path,
      RALPH_PROVIDER: 'openai-compatible',
      // A model with a large context window (128k tokens): the prompt's caps apply unscaled, as with hosted models.
      RALPH_MODEL: 'gpt-4o',
      RALPH_BASE_URL: llm.baseUrl,
      RALPH_API_KEY: '',
    }
  })
  afterEach(() => {
    project.cleanup()
    home.cleanup()
  })

  it('keeps every iteration request under 100 KB, and the task still completes', async () => {
    mkdirSync(join(project.path, '.ralph'))
    mkdirSync(join(project.path, 'src'))
    const plan = largePlan(16_000)
    expect(plan.length).toBeGreaterThan(5_900_000)
    writeFileSync(join(project.path, '.ralph/plan.tsx'), plan)
    llm.enqueue(
      parsed({
        type: 'bugfix',
        title: 'Fix the s5 card',
        requirements: [{ marker: 'FIX', description: 'the s5 card', count: null }],
        scope: { preserve: [], affectedFiles: ['src/s5.ts'] },
      }),
      tools(['plan', { action: 'show' }], ['read_file', { path: '.ralph/plan.tsx', offset: 21, limit: 4 }]),
      tools(
        ['write_file', { path: 'src/s5.ts', content: 'export const s5 = "fixed"\n' }],
        ['mark_complete', { summary: 'Fixed the s5 card in src/s5.ts.' }],
      ),
    )
    const run = await runCli(['run', 'fix the s5 card', '--project', project.path], { env })
    expect(run.stdout).toContain('✔')
    expect(run.code).toBe(0)
    expect(readFileSync(join(project.path, 'src/s5.ts'), 'utf8')).toContain('fixed')

    const chats = llm.requests.filter((r) => r.path === '/v1/chat/completions')
    expect(chats.length).toBeGreaterThanOrEqual(3) // the parse, then the two iterations' turns
    for (const r of chats) expect(JSON.stringify(r.body).length).toBeLessThan(REQUEST_BOUND)

    const iteration = (chats[1]!.body as { messages: { role: string; content: string }[] }).messages
    const user = iteration.find((m) => m.role === 'user')!.content
    expect(user).toMatch(
      /\.ralph\/plan\.tsx is \d+ characters in \d+ lines, more than the 28000 a prompt holds/,
    )
    expect(user).toContain('Sections this task most likely affects (1, in full):')
    const results = (chats[2]!.body as { messages: { role: string; content: string }[] }).messages
      .filter((m) => m.role === 'tool')
      .map((m) => m.content)
    expect(results[0]).toMatch(/more tree lines left out, from plan line \d+/)
    expect(results[0]!.length).toBeLessThan(29_000)
    expect(results[1]).toContain('<Section gumdrop="s4"')
  })

  it('keeps the PLAN phase of a mutation bounded too (the affected-sections hint was 616 KB of the system prompt)', async () => {
    mkdirSync(join(project.path, '.ralph'))
    writeFileSync(join(project.path, '.ralph/plan.tsx'), largePlan(16_000))
    llm.enqueue(
      parsed({
        type: 'mutation',
        title: 'Change the cards',
        requirements: [{ marker: 'MODIFY', description: 'every card gets a border', count: null }],
        scope: { preserve: [], affectedFiles: [] },
      }),
      say('Reading the plan first.'),
    )
    const run = await runCli(
      ['run', 'give every card a border', '--max-iterations', '1', '--project', project.path],
      {
        env,
      },
    )
    expect(run.stdout).toContain('iteration 1/1 [plan]')
    const chats = llm.requests.filter((r) => r.path === '/v1/chat/completions')
    expect(chats).toHaveLength(2)
    const [system, user] = (chats[1]!.body as { messages: { role: string; content: string }[] }).messages
    expect(system!.content.length).toBeLessThan(20_000)
    expect(system!.content).toContain(
      'more lines left out: the plan outline in the message lists every section',
    )
    expect(user!.content).toMatch(/Outline \(\d+ of 16000 sections, in file order\)/)
    expect(JSON.stringify(chats[1]!.body).length).toBeLessThan(REQUEST_BOUND)
  })
})
