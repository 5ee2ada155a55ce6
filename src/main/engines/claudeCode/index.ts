// The Claude Code adapter (DESIGN.md §9, ENGINES.md): how one Ralph iteration runs as one `claude -p` session and
// how its stream-json output becomes Ralph's engine events.
import type { EngineAdapter } from '../types'
import { launchClaudeCode } from './launch'
import { createClaudeCodeParser } from './parser'

/** "2.1.328 (Claude Code)" → "2.1.328". */
export function parseClaudeVersion(stdout: string): string | null {
  return /(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)/.exec(stdout)?.[1] ?? null
}

export const claudeCodeAdapter: EngineAdapter = {
  id: 'claude-code',
  label: 'Claude Code',
  binary: 'claude',
  versionArgs: ['--version'],
  parseVersion: parseClaudeVersion,
  // The flags used (-p, stream-json with --verbose, --include-partial-messages, --append-system-prompt-file,
  // --mcp-config/--strict-mcp-config, --permission-mode acceptEdits, --allowedTools, --no-session-persistence) and
  // the stream's shapes are those of the 2.x line; the adapter was run against 2.1.328. A CLI that refuses one of
  // the flags ends as a `version` failure (its "unknown option" message), so a wrong guess here is still explained.
  minVersion: '2.0.0',
  installHint: 'Install Claude Code with `npm install -g @anthropic-ai/claude-code`.',
  loginHint:
    'Log in to Claude Code in a terminal: run `claude`, then `/login` (or set ANTHROPIC_API_KEY), then try again.',
  // Linux: the login (OAuth tokens) in ~/.claude/.credentials.json; the account, onboarding state and an API key
  // chosen at /login in ~/.claude.json; the user's settings (model, env, apiKeyHelper) in ~/.claude/settings.json.
  homeFiles: ['.claude/.credentials.json', '.claude.json', '.claude/settings.json'],
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
