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

const semver = /(\d+\.\d+\.\d+)/

export const ENGINE_CLIS: Record<AgentEngineId, EngineCli> = {
  'claude-code': {
    id: 'claude-code',
    label: 'Claude Code',
    binary: 'claude',
    versionArgs: ['--version'],
    // "2.1.328 (Claude Code)"
    parseVersion: (out) => semver.exec(out)?.[1] ?? null,
    // stream-json with partial messages, --mcp-config/--strict-mcp-config and permission modes are all 2.x.
    minVersion: '2.0.0',
    installHint:
      'Install Claude Code: `npm install -g @anthropic-ai/claude-code`, then run `claude` once to log in.',
    loginHint:
      'Claude Code is not logged in: run `claude` in a terminal and log in (or set ANTHROPIC_API_KEY), then retry.',
  },
  codex: {
    id: 'codex',
    label: 'Codex',
    binary: 'codex',
    versionArgs: ['--version'],
    // "codex-cli 0.169.0"
    parseVersion: (out) => semver.exec(out)?.[1] ?? null,
    // `codex exec --json` with item events (command_execution, file_change, mcp_tool_call) is 0.4x and later.
    minVersion: '0.50.0',
    installHint: 'Install Codex: `npm install -g @openai/codex`, then run `codex login`.',
    loginHint: 'Codex is not logged in: run `codex login` in a terminal (or set OPENAI_API_KEY), then retry.',
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
