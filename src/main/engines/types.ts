// What an agent engine is to Ralph (DESIGN.md §9): the user's own installed agent CLI, run as one fresh session per
// iteration inside the sandbox. An adapter knows only its CLI — how to start a session and how to read its stream;
// the session runner (session.ts) does everything around it the same way for every engine.

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
   * A folder private to this session, writable inside the sandbox, deleted after it: HOME for the engine. The
   * user's login files (`EngineAdapter.homeFiles`) are copied here first; an adapter may write its session
   * configuration here too.
   */
  sessionHome: string
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
  /**
   * The user's own configuration and login, relative to their home (`.claude/.credentials.json`, `.codex/auth.json`
   * …): copied into the session's home when present, so the engine is logged in while the originals stay out of
   * the sandbox. Never written back.
   */
  homeFiles: string[]
  /**
   * Of `homeFiles`, the login the engine rewrites when it refreshes its token (`.claude/.credentials.json`,
   * `.codex/auth.json`): written back to the user's home after a session that changed it, when the original is
   * still what was copied, so a refresh inside the session does not leave the user's own login spent.
   */
  refreshedFiles?: string[]
  /**
   * Variables passed from Ralph's environment to the engine when set: its own provider settings (a base URL, an
   * API key, a config folder). Every other variable is left out (the sandbox builds the environment).
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
}
