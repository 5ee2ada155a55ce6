// The Codex engine (DESIGN.md §9): the user's own `codex` CLI, one `codex exec --json` session per iteration.
import type { EngineAdapter } from '../types'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { codexHomeOf, codexLaunch } from './launch'
import { codexLogin, userCodexHome } from './login'
import { configuredCodexModel } from './model'
import { createCodexParser } from './parser'
import { sessionCodexConfig } from './sessionConfig'

const readConfig = (path: string) =>
  readFile(path, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return ''
    throw err
  })

export const codexAdapter: EngineAdapter = {
  id: 'codex',
  // CODEX_HOME: made in every session, so a user with no ~/.codex (only an API key) still gets a session.
  homeDirs: ['.codex'],
  // The user's configuration, only the settings a session needs (./sessionConfig.ts: no credentials, headers, MCP
  // servers or commands); never auth.json: the login is the proxy's (./login.ts).
  homeFiles: ['.codex/config.toml'],
  homeFilters: { '.codex/config.toml': sessionCodexConfig },
  login: async (ctx) => codexLogin(ctx, await readConfig(join(userCodexHome(ctx), 'config.toml'))),
  passEnv: ['OPENAI_ORGANIZATION', 'OPENAI_PROJECT'],
  // Codex's events never name the model: the one -m passes, else the one the user's config selects.
  launch: async (spec) => {
    const config = await readConfig(join(codexHomeOf(spec.sessionHome), 'config.toml'))
    return { ...codexLaunch(spec), model: spec.model ?? configuredCodexModel(config) }
  },
  createParser: (ctx) => createCodexParser(ctx),
}

export { failureOf } from './parser'
export { resetAtOf } from './errors'
export { configuredCodexModel } from './model'
