import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest'
import { createCore, type Core } from '../../src/main/api/core'
import type { EventEnvelope } from '../../src/shared/api/contract'
import { startFakeLlmServer, type FakeLlmServer, type ScriptedReply } from '../fixtures/fakeLlmServer'
import { makeTempDir } from './tempDir'

export interface ChatCoreOptions {
  /** The project folder's name under the work folder ('app'); null opens no project. */
  folder?: string | null
  /** Files written into the project folder before it is opened (relative path → content). */
  files?: Record<string, string>
  /** The provider's model on the fake server ('fake-model'); null leaves the provider unset. */
  model?: string | null
  /** The fake server's reply beyond its script, set before each test; null leaves the server's own. */
  fallback?: ScriptedReply | null
  /** The temp work folder's name prefix (makeTempDir's default). */
  workPrefix?: string
  /** Runs after the core is closed and before the temp folders are removed. */
  afterClose?(chat: ChatCore): Promise<void> | void
}

type ContractFailure = { kind: string; message: string }

/** A live handle: its getters read the current test's core, project and folders. */
export interface ChatCore {
  /** The fake LLM server, started once for the file; its requests are cleared before each test. */
  readonly llm: FakeLlmServer
  readonly core: Core
  /** The app data folder. */
  readonly home: string
  /** The temp folder that holds the project folder. */
  readonly work: string
  /** The opened project folder. */
  readonly dir: string
  readonly projectId: number
  /** Every event the core sent since the test started (across reopens). */
  readonly seen: EventEnvelope[]
  /** A contract call; a failure throws its message with its `kind`. */
  call<T = unknown>(name: string, input: unknown): Promise<T>
  /** A contract call that must fail: its error. */
  failure(name: string, input: unknown): Promise<ContractFailure>
  /** Opens a folder as a project; its id. */
  openProject(path: string): Promise<number>
  /** Closes the core (once; the test's end does not close it again). */
  close(): Promise<void>
  /** Closes the core and opens a new one on the same app data (or on a new, empty one with `freshHome`). */
  reopen(options?: { freshHome?: boolean }): Promise<Core>
}

const FALLBACK: ScriptedReply = { kind: 'text', text: 'Nothing more.' }

/**
 * A real core through the contract against the fake LLM server: a temp app data home and work folder, a project
 * folder opened with projects.open and the provider set to the fake (each optional), the core's events kept in
 * `seen`. Registers its own hooks; everything is closed and removed after each test.
 */
export function useChatCore(options: ChatCoreOptions = {}): ChatCore {
  const folder = options.folder === undefined ? 'app' : options.folder
  const model = options.model === undefined ? 'fake-model' : options.model
  const fallback = options.fallback === undefined ? FALLBACK : options.fallback
  let llm: FakeLlmServer | undefined
  let core: Core | null = null
  let home: ReturnType<typeof makeTempDir> | undefined
  let work: ReturnType<typeof makeTempDir> | undefined
  let dir: string | undefined
  let projectId: number | undefined
  let seen: EventEnvelope[] = []

  const live = <T>(value: T | undefined | null, what: string): T => {
    if (value === undefined || value === null) throw new Error(`useChatCore: no ${what} (outside a test?)`)
    return value
  }
  const open = (): Core => {
    const opened = createCore({
      appDataDir: live(home, 'home').path,
      env: {},
      host: { kind: 'web', openedFrom: 'test' },
    })
    opened.events.subscribe((e) => seen.push(e))
    core = opened
    return opened
  }

  const chat: ChatCore = {
    get llm() {
      return live(llm, 'fake LLM server')
    },
    get core() {
      return live(core, 'open core')
    },
    get home() {
      return live(home, 'home').path
    },
    get work() {
      return live(work, 'work folder').path
    },
    get dir() {
      return live(dir, 'project folder')
    },
    get projectId() {
      return live(projectId, 'project')
    },
    get seen() {
      return seen
    },
    async call<T = unknown>(name: string, input: unknown): Promise<T> {
      const result = await chat.core.dispatch(name, input)
      if (!result.ok) throw Object.assign(new Error(result.error.message), { kind: result.error.kind })
      return result.value as T
    },
    async failure(name: string, input: unknown) {
      const result = await chat.core.dispatch(name, input)
      if (result.ok) throw new Error(`${name} succeeded`)
      return result.error
    },
    async openProject(path: string) {
      return (await chat.call<{ id: number }>('projects.open', { path })).id
    },
    async close() {
      const closing = core
      core = null
      await closing?.close()
    },
    async reopen(reopenOptions = {}) {
      await chat.close()
      if (reopenOptions.freshHome) {
        home?.cleanup()
        home = makeTempDir('ralph-home-')
      }
      return open()
    },
  }

  beforeAll(async () => {
    llm = await startFakeLlmServer()
  })
  afterAll(() => llm?.close())
  beforeEach(async () => {
    const server = chat.llm
    server.requests.length = 0
    if (fallback) server.fallback = fallback
    home = makeTempDir('ralph-home-')
    work = makeTempDir(options.workPrefix)
    seen = []
    dir = undefined
    projectId = undefined
    open()
    if (folder !== null) {
      dir = join(work.path, folder)
      mkdirSync(dir)
      for (const [path, content] of Object.entries(options.files ?? {})) {
        mkdirSync(dirname(join(dir, path)), { recursive: true })
        writeFileSync(join(dir, path), content)
      }
      projectId = await chat.openProject(dir)
    }
    if (model !== null) {
      await chat.call('settings.setProvider', {
        settings: { provider: 'openai-compatible', model, baseUrl: server.baseUrl },
      })
    }
  })
  afterEach(async () => {
    await chat.close()
    await options.afterClose?.(chat)
    home?.cleanup()
    work?.cleanup()
  })
  return chat
}
