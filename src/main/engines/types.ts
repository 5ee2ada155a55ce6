// What an agent engine is to Ralph (DESIGN.md §9): the user's own installed agent CLI, run as one fresh session per
// iteration inside the sandbox. An adapter knows only its CLI — how to start a session and how to read its stream;
// the session runner (session.ts) does everything around it the same way for every engine.
import type { CredentialProxyOptions } from './credentialProxy'

export const ENGINE_IDS = ['built-in', 'claude-code', 'codex'] as const
export type EngineId = (typeof ENGINE_IDS)[number]
/** The engines that are an installed agent CLI (everything but the AI SDK loop). */
export type AgentEngineId = Exclude<EngineId, 'built-in'>

/** What one session is asked to do, as the adapter turns it into its CLI's arguments and files. */
export interface EngineSessionSpec {
  /** The project root (a real path); the session's working folder. */
  projectDir: string
  /** Ralph's iteration prompt: the instructions (appended to the engine's own system prompt where it can be) … */
  system: string
  /** … and the task's part (task, plan, feedback, progress, history). */
  prompt: string
  /** The model the user picked for this engine (`engineModel`); null: the engine's own default. */
  model: string | null
  /**
   * Ralph's tools as a stdio MCP server the engine starts for this session only, under the server name `ralph`
   * (its tools reach Claude Code as `mcp__ralph__<tool>`, Codex as server `ralph`, tool `<tool>`).
   */
  ralphTools: { command: string; args: string[]; env: Record<string, string> }
  /** The task's attached images: absolute paths the engine can read (inside the project's `.ralph/attachments`). */
  images: string[]
  /**
   * A folder private to this session, writable inside the sandbox, deleted after it: HOME for the engine. It holds
   * the engine's folders (`EngineAdapter.homeDirs`), the user's configuration (`homeFiles`, never a login) and the
   * login's session files; an adapter may write its session configuration here too.
   */
  sessionHome: string
  /** Arguments that point the engine at Ralph's credential proxy (`EngineLogin.session`), before the prompt. */
  providerArgs?: string[]
}

/** Where a session's login is looked for, outside the sandbox. */
export interface LoginContext {
  /** Ralph's environment (the user's ANTHROPIC_API_KEY, OPENAI_BASE_URL …). */
  env: NodeJS.ProcessEnv
  /** The user's home (their `~/.claude`, `~/.codex`). */
  userHome: string
  /** Ralph's own provider settings (Settings or RALPH_*): their base URL is the engine's when they name its provider. */
  provider: { id: string; baseUrl: string | null } | null
}

/** What the session gets in place of the login: the proxy's URL and placeholder, as the engine reads them. */
export interface LoginSession {
  env: Record<string, string>
  args: string[]
  /** Files written into the session home (relative to it), e.g. a stand-in login file holding only placeholders. */
  files: Record<string, string>
}

/**
 * The user's login for an engine, found outside the sandbox. Its secret never enters the session: Ralph's
 * credential proxy (credentialProxy.ts) adds it to each model call.
 */
export interface EngineLogin {
  /** What the user is told: which login, and where the model calls go (`ANTHROPIC_API_KEY → https://…`). */
  description: string
  /** The provider's base URL the proxy forwards to. */
  upstream: string
  /** The real credential as request headers, read at each model call; throws LoginUnusable (expired). */
  authHeaders(): Promise<Record<string, string>>
  /** The user's extra headers for every model call (ANTHROPIC_CUSTOM_HEADERS), kept out of the session too. */
  extraHeaders?: Record<string, string>
  /** False where the upstream refuses an answer-length bound (the ChatGPT backend): a cost cap then only refuses. */
  boundsOutput?: boolean
  /** Signs each model call, where the credential is a signature (AWS SigV4): see CredentialProxyOptions. */
  signRequest?: CredentialProxyOptions['signRequest']
  session(proxy: { url: string; placeholder: string }): LoginSession
}

/** How to start one session: the CLI's arguments (after its binary), extra environment, and its standard input. */
export interface EngineLaunch {
  args: string[]
  env: Record<string, string>
  /** Written to the process's stdin, which is then closed (prompts can be longer than one argument may be). */
  stdin: string | null
  /**
   * The model the session will use as far as the launch can tell (the user's pick, or their config's), for
   * pricing when the stream does not name it; null when only the engine knows.
   */
  model?: string | null
}

/** A tool call the engine finished, in Ralph's terms so a task card looks the same whatever the engine. */
export interface EngineToolCall {
  /** The engine's id of the call (pairs the call with its result). */
  id: string
  /**
   * Ralph's name where one fits (`write_file`, `edit_file`, `read_file`, `run_command`, `grep`, `list_files`, and
   * Ralph's own tools without the `mcp__ralph__` prefix); otherwise the engine's own name (`WebFetch`, `TodoWrite`,
   * `apply_patch`, `mcp__<server>__<tool>` for the user's MCP servers).
   */
  name: string
  /** In Ralph's argument shape where the name is Ralph's (`{ path, content }` …; paths project-relative). */
  args: unknown
  ok: boolean
  output: string
  /** Project-relative files the call wrote (empty when unknown, e.g. a shell command). */
  changedFiles: string[]
  /** The call ran a shell command. */
  ranCommand: boolean
  /** The user's MCP servers' calls: what they did is outside the snapshots. */
  outsideSnapshot?: boolean
}

/** The normalised stream of one session. */
export type EngineEvent =
  | { type: 'init'; model: string | null; sessionId: string | null; version: string | null }
  /** Streamed answer text (a delta). */
  | { type: 'text'; text: string }
  | { type: 'tool'; call: EngineToolCall }
  /**
   * One model call's (or one turn's) usage; `costUsd` when the engine reports its cost, else null (priced here).
   * `inputTokens` counts ALL prompt tokens, cache reads and writes included (the AI SDK's meaning).
   */
  | {
      type: 'usage'
      model: string | null
      inputTokens: number
      outputTokens: number
      cacheReadTokens: number
      cacheWriteTokens: number
      /** Of `cacheWriteTokens`: written for one hour (priced at its own rate). Absent: none. */
      cacheWrite1hTokens?: number
      reasoningTokens: number
      costUsd: number | null
    }
  /** A subscription's or the API's usage limit: the session ended; `resetAt` (epoch ms) when the engine said. */
  | { type: 'limit'; message: string; resetAt: number | null }
  /**
   * The session cannot do its work, and why: `not-logged-in` (no login or key), `version` (a CLI too old or too
   * new for these flags), `provider` (the model's API failed), `crash` (the CLI ended unexpectedly).
   */
  | { type: 'failure'; kind: 'not-logged-in' | 'version' | 'provider' | 'crash'; message: string }
  /** The session finished its work normally; its final answer where it gave one. */
  | { type: 'done'; text: string | null }
  /**
   * The task's cost cap held at Ralph's proxy (session.ts, proxyMeter.ts): a model call was refused (`why`), or the
   * calls so far reached the cap. The session is over: the task ends at its cap. `calls`: the session's calls as
   * the proxy read them (`inputTokens` counts all prompt tokens), for an engine that never reported them.
   */
  | {
      type: 'cost-cap'
      capUsd: number
      spentUsd: number
      why: string | null
      calls: {
        model: string | null
        inputTokens: number
        outputTokens: number
        cacheReadTokens: number
        cacheWriteTokens: number
        cacheWrite1hTokens: number
      }[]
    }

/** Reads one session's output line by line. Stateful (a call is paired with its result); one per session. */
export interface EngineStreamParser {
  line(line: string): EngineEvent[]
  /** The process ended: what the stream left unsaid (a crash, a login error only on stderr) as events. */
  end(exit: { code: number | null; signal: string | null; stderr: string }): EngineEvent[]
}

/**
 * How Ralph drives one agent CLI (the facts about the program itself — its name, version, hints — are its
 * `ENGINE_CLIS` entry). Pure where it can be: launch() may write session files under `spec.sessionHome` only.
 */
export interface EngineAdapter {
  id: AgentEngineId
  /** Folders the engine needs in its home (`.codex`, its CODEX_HOME): made in every session home. */
  homeDirs: string[]
  /**
   * The user's own configuration (never a login), relative to their home (`.codex/config.toml`): copied into the
   * session's home when present. Nothing is ever written back.
   */
  homeFiles: string[]
  /** Of `homeFiles`, those copied only in part: the filter gives what the session may have (Codex's config.toml). */
  homeFilters?: Record<string, (text: string) => string>
  /** The user's login, found outside the sandbox; null when there is none Ralph can proxy. */
  login(ctx: LoginContext): Promise<EngineLogin | null>
  /**
   * Variables passed from Ralph's environment to the engine when set: its non-secret settings (model choices). Every
   * other variable is left out (the sandbox builds the environment); keys and tokens reach the session only as the
   * proxy's placeholder, and a cloud provider's settings through the login (claudeCode/cloudLogin.ts).
   */
  passEnv: string[]
  launch(spec: EngineSessionSpec): Promise<EngineLaunch>
  createParser(ctx: { projectDir: string }): EngineStreamParser
}

/** What the machine has of one engine (`engines.list`, `ralph engines`). */
export interface EngineInstall {
  id: AgentEngineId
  label: string
  installed: boolean
  /** Absolute path of the binary found on PATH. */
  path: string | null
  version: string | null
  /** False when the version is below `minVersion`. */
  supported: boolean
  /** What to do when it is missing or unsupported; null when it is ready. */
  hint: string | null
  /** When it was not found: the folders looked in, in order. */
  searched?: string[]
  /** The program the user located for it (Settings → Engine → Locate…), or null. */
  located?: string | null
}
