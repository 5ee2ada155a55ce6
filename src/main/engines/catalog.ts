// The agent CLIs Ralph can drive, as facts about each program: how it is found, how its version reads, and what to
// tell a user who lacks it. One source for detection (detect.ts), the adapters and the UI's hints.
import type { AgentEngineId } from './types'

export interface EngineCli {
  id: AgentEngineId
  /** "Claude Code", "Codex". */
  label: string
  /** The program looked up on PATH. */
  binary: string
  /** Arguments that print the version. */
  versionArgs: string[]
  /** The version in the program's `--version` output, or null when it reads otherwise. */
  parseVersion(stdout: string): string | null
  /** The lowest version whose flags and stream format the adapter was written against. */
  minVersion: string
  /** How to install it, for a user who has not. */
  installHint: string
  /** How to log in, for a session that failed as not logged in. */
  loginHint: string
}

export const ENGINE_CLIS: Record<AgentEngineId, EngineCli> = {
  'claude-code': {
    id: 'claude-code',
    label: 'Claude Code',
    binary: 'claude',
    versionArgs: ['--version'],
    // "2.1.328 (Claude Code)"
    parseVersion: (out) => /(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)/.exec(out)?.[1] ?? null,
    // The flags used (-p, stream-json with --verbose, --include-partial-messages, --append-system-prompt-file,
    // --mcp-config/--strict-mcp-config, --permission-mode acceptEdits, --allowedTools, --no-session-persistence)
    // and the stream's shapes are the 2.x line's; run against 2.1.328. A CLI that refuses a flag ends as a
    // `version` failure (its "unknown option" message), so a wrong guess here is still explained.
    minVersion: '2.0.0',
    installHint: 'Install Claude Code with `npm install -g @anthropic-ai/claude-code`.',
    loginHint:
      'Log in to Claude Code in a terminal: run `claude`, then `/login` (or set ANTHROPIC_API_KEY), then try again.',
  },
  codex: {
    id: 'codex',
    label: 'Codex',
    binary: 'codex',
    versionArgs: ['--version'],
    // "codex-cli 0.169.0"
    parseVersion: (out) => /codex-cli\s+v?(\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?)/.exec(out)?.[1] ?? null,
    // Ralph's tools reach Codex through its tool search and MCP approval mode (default_tools_approval_mode),
    // checked only with this line: an older CLI is refused with the update hint rather than run on flags it may lack.
    minVersion: '0.169.0',
    installHint: 'Install Codex with `npm install -g @openai/codex`.',
    loginHint: 'Log in to Codex with `codex login` (or set OPENAI_API_KEY).',
  },
}

/** a < b for dotted numeric versions ("2.1.9" < "2.1.10"). */
export function versionBelow(a: string, b: string): boolean {
  const pa = a.split('.').map(Number)
  const pb = b.split('.').map(Number)
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0)
    if (d !== 0) return d < 0
  }
  return false
}
