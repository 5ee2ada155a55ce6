import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { isAppError } from '../../../src/shared/errors'
import type { StructuredTask } from '../../../src/shared/task'
import type { ModelConfig } from '../../../src/main/llm/createModel'
import type { UsageEntry } from '../../../src/main/llm/usage'
import { parseTask, type ParseContext } from '../../../src/main/tasks/taskParser'
import { renderTaskMarkdown } from '../../../src/main/tasks/taskMarkdown'
import { startFakeLlmServer, type FakeLlmServer } from '../../fixtures/fakeLlmServer'
import { memoryLogger } from '../../../src/main/workspace/logFile'

let server: FakeLlmServer
let model: ModelConfig
const fast = { baseDelayMs: 5, maxDelayMs: 20, jitter: 0 }

beforeAll(async () => {
  server = await startFakeLlmServer()
  model = { provider: 'openai-compatible', model: 'fake-model', baseUrl: server.baseUrl, apiKey: null }
})
afterAll(async () => {
  await server.close()
})
beforeEach(() => {
  server.requests.length = 0
})

const withPlan: ParseContext = {
  planExists: true,
  lastSummary: 'Built the VIBRANT ENERGY landing page with 8 drink flavors and a two-mood theme toggle.',
  fileList: ['src/HeroSection.tsx', 'src/FlavorGrid.tsx', 'src/ThemeToggle.tsx', 'src/index.css'],
  taskNumber: 3,
  previousTag: 'task-2-post',
}
const empty: ParseContext = {
  planExists: false,
  lastSummary: '',
  fileList: [],
  taskNumber: 1,
  previousTag: null,
}

function parse(message: string, context: ParseContext, extra: Partial<Parameters<typeof parseTask>[0]> = {}) {
  return parseTask({
    message,
    context,
    model,
    signal: new AbortController().signal,
    retry: fast,
    logger: memoryLogger(),
    ...extra,
  })
}

const mutation: StructuredTask = {
  type: 'mutation',
  title: 'Refine VIBRANT ENERGY landing page',
  requirements: [
    {
      marker: 'MODIFY',
      description: 'Refine ad copy in hero and CTA: less generic, more adult',
      count: null,
    },
    { marker: 'FIX', description: 'Theme toggle: the two moods do not switch', count: null },
    { marker: 'ADD', description: '2 new nighttime drink flavors (add to existing 8, total 10)', count: 2 },
  ],
  scope: {
    preserve: ['All 8 existing energy drink flavors unchanged'],
    affectedFiles: ['src/HeroSection.tsx', 'src/FlavorGrid.tsx', 'src/ThemeToggle.tsx'],
  },
  clarification: null,
}

describe('parseTask', () => {
  it('round-trips a mutation task and sends the project context asking for JSON', async () => {
    server.enqueue({ kind: 'json', value: mutation })
    const usage: UsageEntry[] = []
    const message =
      'refine ad copy! less generic, more adult.\ntwo moods not working. add 2 more drinks for nighttime.'
    const result = await parse(message, withPlan, { usage: { record: (e) => usage.push(e) } })
    expect(result).toEqual({ task: mutation, fallback: false, reason: null })

    const body = server.requests.at(-1)!.body as {
      messages: { role: string; content: string }[]
      response_format?: { type: string }
      tools?: unknown
    }
    expect(body.response_format?.type).toBe('json_object')
    expect(body.tools).toBeUndefined()
    const system = body.messages.find((m) => m.role === 'system')!.content
    const user = body.messages.find((m) => m.role === 'user')!.content
    expect(system).toMatch(/JSON/)
    expect(system).toMatch(/Never convert/)
    expect(user).toContain(message)
    expect(user).toContain('Existing plan (.ralph/plan.tsx): exists')
    expect(user).toContain('8 drink flavors and a two-mood theme toggle')
    expect(user).toContain('- src/FlavorGrid.tsx')
    expect(user).toContain('Previous snapshot: task-2-post')

    expect(usage).toEqual([
      expect.objectContaining({
        purpose: 'parse',
        provider: 'openai-compatible',
        model: 'fake-model',
        inputTokens: 10,
        outputTokens: 5,
        taskNumber: 3,
        iteration: null,
        costUsd: 0,
        costKnown: false,
      }),
    ])

    const md = renderTaskMarkdown(result.task, {
      taskNumber: 3,
      previousTag: 'task-2-post',
      rawMessage: message,
      fallback: false,
    })
    expect(md).toContain(
      '# Task: Refine VIBRANT ENERGY landing page\nType: mutation\nPrevious: task-2-post\nCounter: 3',
    )
    expect(md).toContain('- [ADD] 2 new nighttime drink flavors (add to existing 8, total 10)')
    expect(md).toContain('- PRESERVE: All 8 existing energy drink flavors unchanged')
    expect(md).toContain('> two moods not working. add 2 more drinks for nighttime.')
  })

  it('classifies fresh, bugfix and needs-clarification', async () => {
    const fresh: StructuredTask = {
      type: 'fresh',
      title: 'Recipe tracker',
      requirements: [{ marker: 'ADD', description: 'A recipe tracker with search', count: null }],
      scope: { preserve: [], affectedFiles: [] },
      clarification: null,
    }
    server.enqueue({ kind: 'json', value: fresh })
    expect(await parse('build me a recipe tracker', empty)).toEqual({
      task: fresh,
      fallback: false,
      reason: null,
    })
    expect(
      (server.requests.at(-1)!.body as { messages: { content: string }[] }).messages[1]!.content,
    ).toContain('(the project is empty)')

    const bugfix: StructuredTask = {
      type: 'bugfix',
      title: 'Theme toggle does not switch',
      requirements: [
        { marker: 'FIX', description: 'Clicking the toggle leaves the voltage mood on', count: null },
      ],
      scope: { preserve: ['Everything else'], affectedFiles: ['src/ThemeToggle.tsx'] },
      clarification: null,
    }
    server.enqueue({ kind: 'json', value: bugfix, fenced: true })
    expect((await parse('the theme toggle is broken', withPlan)).task).toEqual(bugfix)

    const unclear: StructuredTask = {
      type: 'needs-clarification',
      title: 'More drinks',
      requirements: [],
      scope: { preserve: [], affectedFiles: [] },
      clarification:
        'Should the 2 drinks be new, on top of the 8, or should 2 of the 8 become nighttime drinks?',
    }
    server.enqueue({ kind: 'json', value: unclear })
    const asked = await parse('add 2 more drinks for nighttime', withPlan)
    expect(asked).toEqual({ task: unclear, fallback: false, reason: null })

    // The answers a question offers (quick replies, issue 37): kept once each, and only with a question.
    server.enqueue({
      kind: 'json',
      value: { ...unclear, clarificationOptions: ['Two new ones', ' Two new ones ', 'Two of the 8'] },
    })
    expect((await parse('add 2 more drinks for nighttime', withPlan)).task.clarificationOptions).toEqual([
      'Two new ones',
      'Two of the 8',
    ])
    server.enqueue({ kind: 'json', value: { ...bugfix, clarificationOptions: ['Yes'] } })
    expect((await parse('the theme toggle is broken', withPlan)).task).toEqual(bugfix)
  })

  it('asks a sensible question when the model flags ambiguity without one', async () => {
    server.enqueue({
      kind: 'json',
      value: { ...mutation, type: 'needs-clarification', title: 'More drinks', clarification: '  ' },
    })
    const result = await parse('add 2 more drinks', withPlan)
    expect(result.fallback).toBe(false)
    expect(result.task.type).toBe('needs-clarification')
    expect(result.task.clarification).toMatch(/"More drinks".*\?/)
  })

  it('enforces the rules: no mutation without a plan, REMOVE only when asked, clarification only when unclear', async () => {
    server.enqueue({
      kind: 'json',
      value: {
        ...mutation,
        requirements: [{ marker: 'REMOVE', description: 'Old flavors', count: null }],
        clarification: 'why?',
      },
    })
    const result = await parse('make the flavors nicer', { ...withPlan, planExists: false })
    expect(result.task.type).toBe('fresh')
    expect(result.task.requirements[0]!.marker).toBe('MODIFY')
    expect(result.task.clarification).toBeNull()

    server.enqueue({
      kind: 'json',
      value: {
        ...mutation,
        requirements: [{ marker: 'REMOVE', description: 'The store page', count: null }],
      },
    })
    expect((await parse('delete the store page', withPlan)).task.requirements[0]!.marker).toBe('REMOVE')
  })

  it('falls back to the template on a provider failure, with the reason', async () => {
    server.enqueue({
      kind: 'error',
      status: 401,
      body: { error: { message: 'Incorrect API key provided.' } },
    })
    const message = 'add a dark mode'
    const result = await parse(message, withPlan)
    expect(result.fallback).toBe(true)
    expect(result.reason).toMatch(/refused the API key \(401\)/)
    expect(result.task).toEqual({
      type: 'mutation',
      title: 'add a dark mode',
      requirements: [],
      scope: { preserve: [], affectedFiles: [] },
      clarification: null,
    })
    const md = renderTaskMarkdown(result.task, {
      taskNumber: 3,
      previousTag: 'task-2-post',
      rawMessage: message,
      fallback: true,
    })
    expect(md).toBe(
      [
        '# Task',
        'Type: pending',
        'Previous: task-2-post',
        'Counter: 3',
        '',
        '## Raw Message',
        '> add a dark mode',
        '',
        '## Requirements (Ralph: fill these in during planning)',
        '- [ ] ...',
        '',
        "## Scope (Ralph: declare what's preserved)",
        '- PRESERVE: ...',
        '- AFFECTED FILES: ...',
        '',
      ].join('\n'),
    )
  })

  it('falls back on garbage JSON and on a schema mismatch, still recording the usage', async () => {
    server.enqueue({ kind: 'text', text: 'Sure, I will build it!' })
    const usage: UsageEntry[] = []
    const garbage = await parse('build a blog', empty, { usage: { record: (e) => usage.push(e) } })
    expect(garbage.fallback).toBe(true)
    expect(garbage.reason).toMatch(/did not answer with JSON/)
    expect(garbage.task.type).toBe('fresh')
    expect(usage).toHaveLength(1)

    server.enqueue({ kind: 'json', value: { type: 'refactor', title: '', requirements: 'lots' } })
    const mismatch = await parse('build a blog', empty)
    expect(mismatch.fallback).toBe(true)
    expect(mismatch.reason).toMatch(/does not match the expected shape/)
  })

  it('falls back with no model configured, without any request', async () => {
    const result = await parseTask({
      message: 'x',
      context: empty,
      model: null,
      signal: new AbortController().signal,
      logger: memoryLogger(),
    })
    expect(result.fallback).toBe(true)
    expect(result.reason).toMatch(/No LLM provider is configured/)
    expect(server.requests).toHaveLength(0)
  })

  it('falls back on a timeout and when nothing listens', async () => {
    server.enqueue({ kind: 'hang' })
    const slow = await parse('x', empty, { timeoutMs: 150 })
    expect(slow.fallback).toBe(true)
    expect(slow.reason).toMatch(/did not answer within/)

    const nowhere = await parse('x', empty, {
      model: { ...model, baseUrl: 'http://127.0.0.1:9/v1' },
      retry: { maxRetries: 0 },
    })
    expect(nowhere.fallback).toBe(true)
    expect(nowhere.reason).toMatch(/Nothing is listening|refused|failed/)
  })

  it('caps the file list and survives a store that throws', async () => {
    server.enqueue({ kind: 'json', value: mutation })
    const files = Array.from({ length: 450 }, (_, i) => `src/file${i}.ts`)
    const result = await parse(
      'tweak things',
      { ...withPlan, fileList: files },
      {
        usage: {
          record: () => {
            throw new Error('disk full')
          },
        },
      },
    )
    expect(result.fallback).toBe(false)
    const user = (server.requests.at(-1)!.body as { messages: { content: string }[] }).messages[1]!.content
    expect(user).toContain('- src/file199.ts')
    expect(user).not.toContain('- src/file200.ts')
    expect(user).toContain('… and 250 more')
  })

  it('rethrows cancellation instead of falling back', async () => {
    server.enqueue({ kind: 'hang' })
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 50)
    const err = await parse('x', empty, { signal: controller.signal }).catch((e: unknown) => e)
    expect(isAppError(err, 'cancelled')).toBe(true)
  })
})
