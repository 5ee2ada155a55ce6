// How one Ralph iteration becomes one `codex exec` session (codex-cli 0.169.0, checked against the real CLI).
//
// - `exec --json`: one non-interactive turn, its events as JSON lines on stdout; the prompt is read from stdin
//   (`-`), since a prompt can exceed one argument's 128 KiB.
// - `--dangerously-bypass-approvals-and-sandbox`: approvals never asked and Codex's own sandbox off — Ralph's
//   bubblewrap sandbox wraps the whole session, and Codex's own (bubblewrap) sandbox cannot start inside it: every
//   command fails ("bwrap: execvp codex-linux-sandbox", "error building bubblewrap command: Read-only file system").
//   `--skip-git-repo-check` (the session may start in any folder), `--ephemeral` (no session files), `-C` the project.
// - The allowlisted part of the user's `config.toml` (./sessionConfig.ts: their model, profile, selected provider) is
//   written by the runner into `<sessionHome>/.codex`, which becomes CODEX_HOME (and always exists). Their login
//   and secrets are not copied: the session reaches the model through Ralph's credential proxy with a placeholder
//   key (./login.ts), pointed there by the `-c` overrides in `spec.providerArgs`. Ralph's session settings are
//   layered on top with `-c` overrides, which never touch the file.
// - `projects={}`: no folder is trusted in a session, so Codex reads no project config (`.codex/config.toml` in a
//   cloned repository, its hooks), whatever trust the user's own config gives the project.
// - `developer_instructions`: Ralph's instructions as a developer message after Codex's own base instructions (the
//   role Codex gives harness instructions; `model_instructions_file` would replace Codex's base prompt instead).
// - `mcp_servers.ralph`: Ralph's tools as a stdio MCP server, `required` so `codex exec` waits for it to start
//   (without it the first model request can go out before the server has listed its tools) and fails the session
//   if it cannot start.
// - analytics, feedback, update checks and the prompt history file off; plugins off (their start-up sync fetches
//   the curated plugin repository from GitHub on every session); connection retries bounded (with unbounded retries
//   Codex waits for the network forever when the service cannot be reached).
import type { EngineLaunch, EngineSessionSpec } from '../types'
import { tomlString, tomlStringArray, tomlStringTable } from './toml'

/** The server name Ralph's tools are offered under (Codex reports their calls with `server: "ralph"`). */
export const RALPH_SERVER = 'ralph'

/**
 * Instructions longer than this go at the head of the prompt (stdin) instead of into one `-c` argument, which
 * Linux limits to 128 KiB.
 */
const MAX_INSTRUCTIONS_ARG = 96 * 1024

/** Settings that keep a session to its work: no telemetry, no update checks, no history, no plugin sync. */
export const QUIET_SETTINGS: [string, string][] = [
  ['analytics.enabled', 'false'],
  ['feedback.enabled', 'false'],
  ['check_for_update_on_startup', 'false'],
  ['history.persistence', '"none"'],
  ['features.plugins', 'false'],
  ['features.unbounded_connection_retries', 'false'],
]

function override(key: string, value: string): string[] {
  return ['-c', `${key}=${value}`]
}

export function codexHomeOf(sessionHome: string): string {
  return `${sessionHome.replace(/\/+$/, '')}/.codex`
}

export function codexLaunch(spec: EngineSessionSpec): EngineLaunch {
  const server = `mcp_servers.${RALPH_SERVER}`
  const instructionsFit = Buffer.byteLength(spec.system, 'utf8') <= MAX_INSTRUCTIONS_ARG
  const args = [
    'exec',
    // `--image` takes several values: each one is followed by an option, so it never swallows the prompt's `-`.
    ...spec.images.flatMap((image) => ['--image', image]),
    '--json',
    '--dangerously-bypass-approvals-and-sandbox',
    '--skip-git-repo-check',
    '--ephemeral',
    '-C',
    spec.projectDir,
    ...(spec.model ? ['-m', spec.model] : []),
    ...QUIET_SETTINGS.flatMap(([k, v]) => override(k, v)),
    ...override('projects', '{}'),
    ...(spec.providerArgs ?? []),
    ...(instructionsFit && spec.system ? override('developer_instructions', tomlString(spec.system)) : []),
    ...override(`${server}.command`, tomlString(spec.ralphTools.command)),
    ...override(`${server}.args`, tomlStringArray(spec.ralphTools.args)),
    ...override(`${server}.env`, tomlStringTable(spec.ralphTools.env)),
    ...override(`${server}.required`, 'true'),
    ...override(`${server}.startup_timeout_sec`, '30'),
    ...override(`${server}.tool_timeout_sec`, '600'),
    // The end of the options: the prompt comes from stdin.
    '-',
  ]
  const stdin =
    instructionsFit || !spec.system
      ? spec.prompt
      : `<instructions>\n${spec.system}\n</instructions>\n\n${spec.prompt}`
  return { args, env: { CODEX_HOME: codexHomeOf(spec.sessionHome) }, stdin }
}
