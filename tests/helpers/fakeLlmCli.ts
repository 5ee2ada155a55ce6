import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest'
import { startFakeLlmServer, type FakeLlmServer } from '../fixtures/fakeLlmServer'
import { say } from '../integration/loop/harness'
import { makeTempDir } from './tempDir'

export interface FakeLlmCli {
  /** One fake model server for the whole file; its requests and script are reset before each test. */
  llm: FakeLlmServer
  /** A fresh project folder per test. */
  project: ReturnType<typeof makeTempDir>
  /** A fresh app data folder per test. */
  home: ReturnType<typeof makeTempDir>
  /** The environment that points `ralph` at the fake server and the app data folder. */
  env: NodeJS.ProcessEnv
}

/**
 * The hooks every CLI test against the fake model server needs, registered in the calling `describe`: the fields
 * of the returned object are set before each test runs.
 */
export function useFakeLlmCli(
  options: {
    /** The model id `ralph` asks for (one with a catalog price, e.g. gpt-4o, to have costs). */
    model?: string
  } = {},
): FakeLlmCli {
  const t = {} as FakeLlmCli
  beforeAll(async () => {
    t.llm = await startFakeLlmServer()
  })
  afterAll(() => t.llm.close())
  beforeEach(() => {
    t.llm.requests.length = 0
    t.llm.fallback = say('Nothing more.')
    t.project = makeTempDir('ralph-project-')
    t.home = makeTempDir('ralph-home-')
    t.env = {
      RALPH_HOME: t.home.path,
      RALPH_PROVIDER: 'openai-compatible',
      RALPH_MODEL: options.model ?? 'fake-model',
      RALPH_BASE_URL: t.llm.baseUrl,
      RALPH_API_KEY: '',
    }
  })
  afterEach(() => {
    t.project.cleanup()
    t.home.cleanup()
  })
  return t
}
