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
  // Model choices, and the cloud providers (Amazon Bedrock, Google Vertex AI, Microsoft Foundry), which Claude Code
  // calls with their own credentials: those the proxy does not cover, so a session on them holds them (README).
  // Keys, tokens, the base URL and custom headers are the proxy's (./login.ts).
  passEnv: [
    'ANTHROPIC_MODEL',
    'ANTHROPIC_SMALL_FAST_MODEL',
    'ANTHROPIC_DEFAULT_OPUS_MODEL',
    'ANTHROPIC_DEFAULT_SONNET_MODEL',
    'ANTHROPIC_DEFAULT_HAIKU_MODEL',
    'CLAUDE_CODE_USE_BEDROCK',
    'ANTHROPIC_BEDROCK_BASE_URL',
    'AWS_REGION',
    'AWS_ACCESS_KEY_ID',
    'AWS_SECRET_ACCESS_KEY',
    'AWS_SESSION_TOKEN',
    'AWS_BEARER_TOKEN_BEDROCK',
    'CLAUDE_CODE_USE_VERTEX',
    'CLOUD_ML_REGION',
    'ANTHROPIC_VERTEX_PROJECT_ID',
    'ANTHROPIC_VERTEX_BASE_URL',
    'GOOGLE_APPLICATION_CREDENTIALS',
    'CLAUDE_CODE_USE_FOUNDRY',
    'ANTHROPIC_FOUNDRY_API_KEY',
    'ANTHROPIC_FOUNDRY_RESOURCE',
    'ANTHROPIC_FOUNDRY_BASE_URL',
  ],
  launch: launchClaudeCode,
  createParser: createClaudeCodeParser,
}
