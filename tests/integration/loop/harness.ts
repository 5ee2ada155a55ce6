import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { LoopEvent } from '../../../src/shared/loopEvents'
import type { StructuredTask } from '../../../src/shared/task'
import { runTask, type RunTaskInput, type RunTaskResult } from '../../../src/main/loop/runTask'
import { openDatabase, type Db } from '../../../src/main/store/database'
import { RunsRepo } from '../../../src/main/store/runsRepo'
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest'
import {
  startFakeLlmServer,
  type FakeLlmServer,
  type ScriptedReply,
  type ScriptedUsage,
} from '../../fixtures/fakeLlmServer'
import { makeTempDir } from '../../helpers/tempDir'
import { memoryLogger } from '../../../src/main/workspace/logFile'

/** A temp project plus a temp app database, for running real tasks against the fake LLM server. */
export class LoopHarness {
  readonly project = makeTempDir('ralph-project-')
  readonly home = makeTempDir('ralph-home-')
  readonly db: Db = openDatabase(join(this.home.path, 'ralph.db'))
  readonly runs = new RunsRepo(this.db)
  events: LoopEvent[] = []

  constructor(readonly llm: FakeLlmServer) {}

  get dir(): string {
    return this.project.path
  }

  write(files: Record<string, string>): void {
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(dirname(join(this.dir, path)), { recursive: true })
      writeFileSync(join(this.dir, path), content)
    }
  }

  async run(
    message: string,
    opts: { maxIterations?: number; signal?: AbortSignal; extra?: Partial<RunTaskInput> } = {},
  ): Promise<RunTaskResult> {
    this.events = []
    return runTask({
      logger: memoryLogger(),
      ...opts.extra,
      projectDir: this.dir,
      message,
      model: { provider: 'openai-compatible', model: 'fake-model', baseUrl: this.llm.baseUrl, apiKey: null },
      maxIterations: opts.maxIterations,
      signal: opts.signal ?? new AbortController().signal,
      runs: this.runs,
      emit: (e) => this.events.push(e),
    })
  }

  types(): string[] {
    return this.events.map((e) => e.type)
  }

  /** The chat requests the loop made (the parse call is the first of each task). */
  chatRequests(): { messages: { role: string; content: unknown }[] }[] {
    return this.llm.requests
      .filter((r) => r.path === '/v1/chat/completions')
      .map((r) => r.body as { messages: { role: string; content: unknown }[] })
  }

  cleanup(): void {
    this.db.close()
    this.project.cleanup()
    this.home.cleanup()
  }
}

export const parsed = (task: Partial<StructuredTask> & Pick<StructuredTask, 'type'>): ScriptedReply => ({
  kind: 'text',
  text: JSON.stringify({
    title: 'A task',
    requirements: [],
    scope: { preserve: [], affectedFiles: [] },
    clarification: null,
    ...task,
  }),
})

export const tools = (...calls: [string, Record<string, unknown>][]): ScriptedReply => ({
  kind: 'tools',
  calls: calls.map(([name, args]) => ({ name, arguments: args })),
})

export const say = (text: string): ScriptedReply => ({ kind: 'text', text })

/** The same reply, with the token usage the server reports for it. */
export function withUsage(reply: ScriptedReply, usage: ScriptedUsage): ScriptedReply {
  if (reply.kind !== 'text' && reply.kind !== 'tools')
    throw new Error('Only text and tool replies report usage.')
  return { ...reply, usage }
}

export const done = (summary = 'Implemented the change and checked it.'): ScriptedReply =>
  tools(['mark_complete', { summary }])

/** One fake model server per test file, its requests and fallback reset before each test (read `llm` in a test). */
export function useFakeLlmServer(): { readonly llm: FakeLlmServer } {
  let server: FakeLlmServer | undefined
  const t = {
    get llm(): FakeLlmServer {
      if (!server)
        throw new Error('useFakeLlmServer: the server runs only inside the test file’s hooks and tests')
      return server
    },
  }
  beforeAll(async () => {
    server = await startFakeLlmServer()
  })
  afterAll(() => t.llm.close())
  beforeEach(() => {
    t.llm.requests.length = 0
    t.llm.fallback = say('Nothing more.')
  })
  return t
}

/** Registers the hooks every loop test file needs: one fake server per file, a fresh project per test. */
export function loopFixture(): { readonly llm: FakeLlmServer; h: LoopHarness } {
  const server = useFakeLlmServer()
  const t = {
    get llm(): FakeLlmServer {
      return server.llm
    },
    h: undefined as unknown as LoopHarness,
  }
  beforeEach(() => {
    t.h = new LoopHarness(server.llm)
  })
  afterEach(() => t.h.cleanup())
  return t
}
