// The Claude Code adapter (DESIGN.md §9, ENGINES.md): how one Ralph iteration runs as one `claude -p` session and
// how its stream-json output becomes Ralph's engine events.
import type { EngineAdapter } from '../types'
import { launchClaudeCode } from './launch'
import { claudeCodeLogin } from './login'
import { createClaudeCodeParser } from './parser'

export const claudeCodeAdapter: EngineAdapter = {
  id: 'claude-code',
  homeDirs: ['.claude'],
  // Nothing of the user's: their login reaches the session only through Ralph's proxy (./login.ts), and their
  // settings are not read (`--setting-sources ''`, ./launch.ts).
  homeFiles: [],
  login: claudeCodeLogin,
  // Model choices only. Keys, tokens, base URLs, custom headers and the cloud providers' settings are the
  // proxy's (./login.ts, ./cloudLogin.ts): the session gets what it needs from the login, never a credential.
  passEnv: [
    'ANTHROPIC_MODEL',
    'ANTHROPIC_SMALL_FAST_MODEL',
    'ANTHROPIC_DEFAULT_OPUS_MODEL',
    'ANTHROPIC_DEFAULT_SONNET_MODEL',
    'ANTHROPIC_DEFAULT_HAIKU_MODEL',
  ],
  launch: launchClaudeCode,
  createParser: createClaudeCodeParser,
}
