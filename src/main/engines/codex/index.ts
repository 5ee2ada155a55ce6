// The Codex engine (DESIGN.md §9): the user's own `codex` CLI, one `codex exec --json` session per iteration.
import type { EngineAdapter } from '../types'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { codexHomeOf, codexLaunch } from './launch'
import { configuredCodexModel } from './model'
import { createCodexParser } from './parser'

export const codexAdapter: EngineAdapter = {
  id: 'codex',
  homeFiles: ['.codex/config.toml', '.codex/auth.json'],
  refreshedFiles: ['.codex/auth.json'],
  passEnv: ['OPENAI_API_KEY', 'CODEX_API_KEY', 'OPENAI_BASE_URL', 'OPENAI_ORGANIZATION', 'OPENAI_PROJECT'],
  // Codex's events never name the model: the one -m passes, else the one the user's config selects.
  launch: async (spec) => {
    const config = await readFile(join(codexHomeOf(spec.sessionHome), 'config.toml'), 'utf8').catch(
      (err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return ''
        throw err
      },
    )
    return { ...codexLaunch(spec), model: spec.model ?? configuredCodexModel(config) }
  },
  createParser: (ctx) => createCodexParser(ctx),
}

export { failureOf } from './parser'
export { resetAtOf } from './errors'
export { configuredCodexModel } from './model'
