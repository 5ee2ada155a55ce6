import { afterEach, beforeEach } from 'vitest'
import type { FakeLlmServer } from '../fixtures/fakeLlmServer'
import { useFakeLlmServer } from '../integration/loop/harness'
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
  const server = useFakeLlmServer()
  const t = {
    get llm() {
      return server.llm
    },
  } as FakeLlmCli
  beforeEach(() => {
    t.project = makeTempDir('ralph-project-')
    t.home = makeTempDir('ralph-home-')
    t.env = {
      RALPH_HOME: t.home.path,
      RALPH_PROVIDER: 'openai-compatible',
      RALPH_MODEL: options.model ?? 'fake-model',
      RALPH_BASE_URL: server.llm.baseUrl,
      RALPH_API_KEY: '',
    }
  })
  afterEach(() => {
    t.project.cleanup()
    t.home.cleanup()
  })
  return t
}
