// The Codex engine (DESIGN.md §9): the user's own `codex` CLI, one `codex exec --json` session per iteration.
import type { EngineAdapter } from '../types'
import { codexLaunch } from './launch'
import { createCodexParser } from './parser'

export const codexAdapter: EngineAdapter = {
  id: 'codex',
  homeFiles: ['.codex/config.toml', '.codex/auth.json'],
  refreshedFiles: ['.codex/auth.json'],
  passEnv: ['OPENAI_API_KEY', 'CODEX_API_KEY', 'OPENAI_BASE_URL', 'OPENAI_ORGANIZATION', 'OPENAI_PROJECT'],
  launch: (spec) => Promise.resolve(codexLaunch(spec)),
  createParser: (ctx) => createCodexParser(ctx),
}

export { failureOf } from './parser'
export { resetAtOf } from './errors'
export { configuredCodexModel } from './model'
