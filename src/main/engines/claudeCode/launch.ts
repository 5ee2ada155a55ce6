import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { EngineLaunch, EngineSessionSpec } from '../types'

// One non-interactive Claude Code session (checked against 2.1.328, `claude --help` and real runs):
// - `-p` with the prompt on stdin (a prompt can exceed one argument's 128 KiB), `--output-format stream-json
//   --verbose` (stream-json needs --verbose in print mode), `--include-partial-messages` for text deltas;
// - Ralph's instructions appended to Claude Code's own system prompt from a file (`--append-system-prompt-file`,
//   which `--help` does not list but the CLI accepts; an argument could be too long);
// - Ralph's tools as the MCP server `ralph` from a config file in the session home, `--strict-mcp-config` so the
//   user's own MCP servers (in ~/.claude.json or the project's .mcp.json) are not started inside the sandbox;
// - `--permission-mode acceptEdits` plus an allowed-tools list: file edits and the listed tools run without asking
//   (print mode cannot ask: anything not allowed is refused, and the model is told so). `bypassPermissions` (and
//   `--dangerously-skip-permissions`) are refused when running as root ("cannot be used with root/sudo
//   privileges"), which the sandbox is here and in CI; the sandbox is the confinement either way;
// - `--no-session-persistence`: nothing is saved for `--resume` (each iteration is a fresh session);
// - `--setting-sources ''`: no settings file is read — not the project's `.claude/settings.json` or
//   `.claude/settings.local.json` (a cloned repository's `env` could point ANTHROPIC_BASE_URL at a stranger, its hooks
//   run commands), nor the session home's (the model can write it). Claude Code 2.1.328 takes a comma-separated list
//   of user, project, local; an empty one loads none. Its login and base URL come from Ralph's proxy (./login.ts).

/** The tools a session uses without asking: Claude Code's file and shell tools, and all of Ralph's. */
export const ALLOWED_TOOLS = [
  'Read',
  'Write',
  'Edit',
  'MultiEdit',
  'NotebookEdit',
  'Bash',
  'Glob',
  'Grep',
  'LS',
  'TodoWrite',
  'mcp__ralph__*',
]

/**
 * The environment every session gets: no telemetry, error reports, surveys or update checks (and no other
 * non-essential traffic), and a bounded number of retries of a failed API call. Claude Code retries even a 401 ten
 * times by default (about three minutes of backoff) and a 429 for longer: Ralph's own loop waits for a usage limit
 * (visibly, cancellably) and recovers a stalled iteration, so a session reports the failure soon instead.
 */
export const SESSION_ENV: Record<string, string> = {
  DISABLE_TELEMETRY: '1',
  DISABLE_ERROR_REPORTING: '1',
  DISABLE_AUTOUPDATER: '1',
  DISABLE_BUG_COMMAND: '1',
  DISABLE_FEEDBACK_COMMAND: '1',
  CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY: '1',
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  CLAUDE_CODE_MAX_RETRIES: '3',
}

/** The prompt as written to stdin: the task's prompt, then where the attached images are. */
export function stdinPrompt(spec: Pick<EngineSessionSpec, 'prompt' | 'images'>): string {
  if (spec.images.length === 0) return spec.prompt
  const list = spec.images.map((path) => `- ${path}`).join('\n')
  return (
    `${spec.prompt}\n\n## Attached images\n` +
    `The task has these images attached. Look at each one with the Read tool (it shows images):\n${list}\n`
  )
}

export async function launchClaudeCode(spec: EngineSessionSpec): Promise<EngineLaunch> {
  const mcpConfig = join(spec.sessionHome, 'ralph-mcp.json')
  const servers = {
    mcpServers: {
      ralph: {
        type: 'stdio',
        command: spec.ralphTools.command,
        args: spec.ralphTools.args,
        env: spec.ralphTools.env,
      },
    },
  }
  await writeFile(mcpConfig, JSON.stringify(servers, null, 2), 'utf8')
  const args = [
    '-p',
    '--output-format',
    'stream-json',
    '--verbose',
    '--include-partial-messages',
    '--no-session-persistence',
    '--permission-mode',
    'acceptEdits',
    // One comma-separated value: the flag takes a variadic list, which must not swallow the flags after it.
    '--allowedTools',
    ALLOWED_TOOLS.join(','),
    '--mcp-config',
    mcpConfig,
    '--strict-mcp-config',
    '--setting-sources',
    '',
  ]
  if (spec.system.trim()) {
    const systemFile = join(spec.sessionHome, 'ralph-system.md')
    await writeFile(systemFile, spec.system, 'utf8')
    args.push('--append-system-prompt-file', systemFile)
  }
  if (spec.model) args.push('--model', spec.model)
  return { args, env: { ...SESSION_ENV }, stdin: stdinPrompt(spec) }
}
