// The whole lifecycle through each provider's own wire format: the built CLI (`ralph run`, `ralph build`) in a
// child process, the product's real provider code (the AI SDK's Anthropic, OpenAI Responses, Ollama and
// OpenAI-compatible clients) over real HTTP to a fake that speaks that service's format and refuses what it refuses
// (a tool_use without its tool_result, an unanswered function_call, a schema the service rejects …).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { addTask, setSpec } from '../../../src/main/queue'
import type { ScriptedReply } from '../../fixtures/fakeLlmServer'
import { runCli } from '../../helpers/cli'
import { ndjson, writeAttempt } from '../build/buildCliFixture'
import { eightFlavors, flavorPlan, flavors, flavorsFile, planThenBuildEvents } from '../loop/fixtures'
import { parsed, say, tools } from '../loop/harness'
import { cutOf, modelCalls, PROVIDERS, useWireProject } from './wire'
import { memoryLogger } from '../../../src/main/workspace/logFile'

/** The queue's changes in these tests: failures they survive are kept in memory. */
const options = { logger: memoryLogger() }

type Event = { type: string; outcome?: string; status?: string; gate?: string; severity?: string }

const CRITERION = 'hello.txt greets the world by name'

describe.each(PROVIDERS)('the whole lifecycle through $provider', { timeout: 180_000 }, (c) => {
  // A request beyond the script gets a reply no step accepts, and the counts below catch it.
  const w = useWireProject(c, 'ralph-provider-')

  /**
   * No request lost any of its prompt to a context smaller than it (Ollama cuts silently); the native API ran with
   * the num_ctx the product sent, /v1 with the model's own (it takes none from the request).
   */
  const expectNothingCut = () => {
    for (const r of modelCalls(w.server, c)) {
      const cut = cutOf(r)
      if (c.provider === 'ollama') expect(cut?.source).toBe('options')
      if (c.provider === 'openai-compatible') expect(cut?.source).toBe('modelfile')
      if (cut)
        expect(cut, `${c.provider}: a request was cut`).toMatchObject({
          droppedMessages: [],
          systemKept: true,
          frontTokensDropped: 0,
        })
    }
  }

  it('ralph run: parse (structured output), a PLAN and a BUILD iteration with tool calls, gates, task-1-post', async () => {
    mkdirSync(join(w.project.path, 'src'))
    mkdirSync(join(w.project.path, '.ralph'))
    writeFileSync(join(w.project.path, 'src/flavors.ts'), eightFlavors)
    writeFileSync(join(w.project.path, '.ralph/plan.tsx'), flavorPlan(''))
    w.server.enqueue(
      parsed({
        type: 'mutation',
        title: 'Two night flavors',
        requirements: [{ marker: 'ADD', description: '2 nighttime flavors', count: 2 }],
        scope: { preserve: ['the 8 existing flavors'], affectedFiles: ['src/flavors.ts'] },
      }),
      tools([
        'write_file',
        {
          path: '.ralph/plan.tsx',
          content: flavorPlan(
            '{/* TASK-1 [ADD]: 2 nighttime flavors (Moonlit Calm, Deep Rest) */}\n          {/* EXISTING 8 flavors PRESERVED */}',
          ),
        },
      ]),
      say('Plan updated.'),
      tools(
        ['write_file', { path: 'src/flavors.ts', content: flavorsFile(flavors.added) }],
        ['mark_complete', { summary: 'Added Moonlit Calm and Deep Rest after the 8 flavors.' }],
      ),
    )
    const result = await runCli(
      ['run', 'add 2 more drinks for nighttime', '--json', '--project', w.project.path],
      {
        env: w.env,
      },
    )
    expect(result.stderr).toBe('')
    expect(result.code, result.stdout.slice(-2000)).toBe(0)
    const events = ndjson<Event>(result.stdout)
    expect(events.map((e) => e.type)).toEqual(planThenBuildEvents)
    // The parse was a real parse (not the template fallback): the plan's scope gates check its ADD count.
    expect(events.find((e) => e.type === 'task.parsed')).toMatchObject({ fallback: false })
    expect(events.filter((e) => e.type === 'gate.result').every((e) => e.severity !== 'failure')).toBe(true)
    expect(readFileSync(join(w.project.path, 'src/flavors.ts'), 'utf8')).toContain('Moonlit Calm')
    const list = await runCli(['snapshot', 'list', '--json', '--project', w.project.path], { env: w.env })
    const tags = (JSON.parse(list.stdout) as { items: { tag: string }[] }).items.map((s) => s.tag)
    expect(tags).toEqual(expect.arrayContaining(['task-1-pre', 'task-1-post']))

    // Every model call went through this provider's own API: the parse, then the four iteration steps.
    const calls = modelCalls(w.server, c)
    expect(calls.map((r) => r.status)).toEqual([200, 200, 200, 200])
    // The parse asked for structured output the way this service takes it, with the task's schema.
    expect(c.structuredOutput(calls[0]!.body)).toBeTruthy()
    // The iterations declared the tools in this format, and the answered calls came back as its tool results
    // (the fakes refuse a conversation whose calls are not answered).
    for (const r of calls.slice(1))
      expect(c.toolNames(r.body)).toEqual(expect.arrayContaining(['write_file', 'mark_complete']))
    expect(JSON.stringify(calls[2]!.body)).toContain('.ralph/plan.tsx')
    expectNothingCut()
  })

  it('ralph build: the LLM criterion is judged through this provider, the nonce read from its system prompt', async () => {
    writeFileSync(join(w.project.path, 'spec.md'), '# Hello\n')
    await setSpec({ projectDir: w.project.path, spec: 'spec.md', options })
    const id = (
      await addTask({
        projectDir: w.project.path,
        name: 'Write hello.txt',
        notes: 'Greet the world in hello.txt.',
        accept: [`LLM: ${CRITERION}`],
        options,
      })
    ).ids[0]!
    const verdict: ScriptedReply = { kind: 'verdict', answer: 'YES', reason: "hello.txt reads 'hello world'" }
    w.server.enqueue(...writeAttempt('hello.txt', 'hello world'), verdict)
    const result = await runCli(['build', '--json', '--project', w.project.path], { env: w.env })
    expect(result.code, result.stderr + result.stdout.slice(-2000)).toBe(0)
    const events = ndjson<Event & { verdict?: { ref: string; kind: string; answer: string } }>(result.stdout)
    expect(
      events.filter((e) => e.type === 'verify.criterion' && e.verdict?.kind === 'LLM').map((e) => e.verdict),
    ).toEqual([expect.objectContaining({ ref: 'AC1', answer: 'YES' })])
    expect(events.find((e) => e.type === 'verify.completed')).toMatchObject({ outcome: 'PASS' })
    expect(events.at(-1)).toMatchObject({ type: 'build.finished', status: 'complete', accepted: [id] })

    // The judge's request carried the verdict opener in this format's system prompt; the builder's did not.
    const calls = modelCalls(w.server, c)
    expect(calls.map((r) => r.status)).toEqual([200, 200, 200])
    const opener = /<<<VERDICT:V1:AC1:NONCE=[0-9A-F]{6}>>>/
    expect(c.systemText(calls[2]!.body)).toMatch(opener)
    expect(c.systemText(calls[1]!.body)).not.toMatch(opener)
    expect(JSON.stringify(calls[2]!.body)).toContain(CRITERION)
    expectNothingCut()
  })
})
