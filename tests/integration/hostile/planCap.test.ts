import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCli } from '../../helpers/cli'
import { useFakeLlmCli } from '../../helpers/fakeLlmCli'
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
  const t = useFakeLlmCli({ model: 'gpt-4o' })

  it('keeps every iteration request under 100 KB, and the task still completes', async () => {
    mkdirSync(join(t.project.path, '.ralph'))
    mkdirSync(join(t.project.path, 'src'))
    const plan = largePlan(16_000)
    expect(plan.length).toBeGreaterThan(5_900_000)
    writeFileSync(join(t.project.path, '.ralph/plan.tsx'), plan)
    t.llm.enqueue(
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
    const run = await runCli(['run', 'fix the s5 card', '--project', t.project.path], { env: t.env })
    expect(run.stdout).toContain('✔')
    expect(run.code).toBe(0)
    expect(readFileSync(join(t.project.path, 'src/s5.ts'), 'utf8')).toContain('fixed')

    const chats = t.llm.requests.filter((r) => r.path === '/v1/chat/completions')
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
    mkdirSync(join(t.project.path, '.ralph'))
    writeFileSync(join(t.project.path, '.ralph/plan.tsx'), largePlan(16_000))
    t.llm.enqueue(
      parsed({
        type: 'mutation',
        title: 'Change the cards',
        requirements: [{ marker: 'MODIFY', description: 'every card gets a border', count: null }],
        scope: { preserve: [], affectedFiles: [] },
      }),
      say('Reading the plan first.'),
    )
    const run = await runCli(
      ['run', 'give every card a border', '--max-iterations', '1', '--project', t.project.path],
      {
        env: t.env,
      },
    )
    expect(run.stdout).toContain('iteration 1/1 [plan]')
    const chats = t.llm.requests.filter((r) => r.path === '/v1/chat/completions')
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
