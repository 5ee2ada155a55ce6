// The Claude Code adapter (DESIGN.md §9, ENGINES.md): how one Ralph iteration runs as one `claude -p` session and
// how its stream-json output becomes Ralph's engine events.
import type { EngineAdapter } from '../types'
import { launchClaudeCode } from './launch'
import { createClaudeCodeParser } from './parser'

export const claudeCodeAdapter: EngineAdapter = {
  id: 'claude-code',
  // Linux: the login (OAuth tokens) in ~/.claude/.credentials.json; the account, onboarding state and an API key
  // chosen at /login in ~/.claude.json; the user's settings (model, env, apiKeyHelper) in ~/.claude/settings.json.
  homeFiles: ['.claude/.credentials.json', '.claude.json', '.claude/settings.json'],
  refreshedFiles: ['.claude/.credentials.json'],
  // Provider settings only: the Anthropic API (key, token, base URL, model choices, headers), a subscription token,
  // Amazon Bedrock, Google Vertex AI and Microsoft Foundry. CLAUDE_CONFIG_DIR is left out: the session's HOME holds
  // the copied login.
  passEnv: [
    'ANTHROPIC_API_KEY',
    'ANTHROPIC_AUTH_TOKEN',
    'ANTHROPIC_BASE_URL',
    'ANTHROPIC_CUSTOM_HEADERS',
    'ANTHROPIC_MODEL',
    'ANTHROPIC_SMALL_FAST_MODEL',
    'ANTHROPIC_DEFAULT_OPUS_MODEL',
    'ANTHROPIC_DEFAULT_SONNET_MODEL',
    'ANTHROPIC_DEFAULT_HAIKU_MODEL',
    'CLAUDE_CODE_OAUTH_TOKEN',
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
