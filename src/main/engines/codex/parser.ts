// Reads `codex exec --json` (one JSON event a line) into Ralph's engine events. The events, as codex-cli 0.169.0
// prints them: `thread.started {thread_id}`, `turn.started`, `item.started|updated|completed {item}` (items:
// agent_message, reasoning, command_execution, file_change, mcp_tool_call, web_search, todo_list, error — an
// `error` item is a warning, the session goes on), `turn.completed {usage}`, `turn.failed {error: {message}}`, and
// `error {message}` (also sent while it reconnects, "Reconnecting... 2/5 (…)", so only `turn.failed` or the end of
// the stream decides that a session failed).
// Codex's code-mode models (0.169.0's gpt-5.6-*, gpt-6*: tools declared in an `additional_tools` input item, one
// JavaScript `exec` tool whose script calls the others) print the same items for each nested call — a
// `command_execution`, a `file_change`, an `mcp_tool_call` — and none for the script itself; its own error reaches
// only the model (tests/integration/engines/codexCodeMode.test.ts).
import type { EngineEvent, EngineStreamParser } from '../types'
import { classifyError, isVersionMismatch, resetAtOf } from './errors'
import { isObject, toolCallOf } from './items'

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0)

/** An error message as the event that ends the session: a usage limit, a missing login, or a provider failure. */
export function failureOf(message: string, now: number = Date.now()): EngineEvent {
  const kind = classifyError(message)
  if (kind === 'limit') return { type: 'limit', message, resetAt: resetAtOf(message, now) }
  return { type: 'failure', kind, message }
}

/** The last lines of stderr, for a crash report. */
function tail(stderr: string, lines = 20): string {
  return stderr.trimEnd().split('\n').slice(-lines).join('\n')
}

interface State {
  /** Messages shown so far (a later one is set off from the one before by a blank line). */
  messages: number
  lastMessage: string | null
  /** The last `error` event's message (a reconnect notice, or the error a failed turn repeats). */
  lastError: string | null
  /** The session ended with done, a failure or a limit. */
  ended: boolean
}

function onItemCompleted(item: unknown, state: State, projectDir: string): EngineEvent[] {
  if (!isObject(item)) return []
  if (item.type === 'agent_message') {
    const text = typeof item.text === 'string' ? item.text : ''
    if (!text) return []
    state.lastMessage = text
    return [{ type: 'text', text: (state.messages++ > 0 ? '\n\n' : '') + text }]
  }
  const call = toolCallOf(item, projectDir)
  return call ? [{ type: 'tool', call }] : []
}

function onTurnCompleted(event: Record<string, unknown>, state: State): EngineEvent[] {
  const usage = isObject(event.usage) ? event.usage : {}
  state.ended = true
  return [
    {
      type: 'usage',
      // `exec --json` does not say which model answered: the runner knows the one it asked for.
      model: null,
      inputTokens: num(usage.input_tokens),
      outputTokens: num(usage.output_tokens),
      cacheReadTokens: num(usage.cached_input_tokens),
      cacheWriteTokens: num(usage.cache_write_input_tokens),
      reasoningTokens: num(usage.reasoning_output_tokens),
      costUsd: null,
    },
    { type: 'done', text: state.lastMessage },
  ]
}

function onEvent(event: Record<string, unknown>, state: State, projectDir: string): EngineEvent[] {
  switch (event.type) {
    case 'thread.started':
      return [
        {
          type: 'init',
          model: null,
          sessionId: typeof event.thread_id === 'string' ? event.thread_id : null,
          version: null,
        },
      ]
    case 'item.completed':
      return onItemCompleted(event.item, state, projectDir)
    case 'turn.completed':
      return onTurnCompleted(event, state)
    case 'turn.failed': {
      const error = isObject(event.error) ? event.error : {}
      const message = typeof error.message === 'string' && error.message ? error.message : state.lastError
      state.ended = true
      return [failureOf(message ?? 'Codex reported that the turn failed, without saying why.')]
    }
    case 'error':
      if (typeof event.message === 'string') state.lastError = event.message
      return []
    default:
      return []
  }
}

/** A line as JSON, or undefined when it is not (Codex prints one event a line; any other text is not ours). */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch (err) {
    if (err instanceof SyntaxError) return undefined
    throw err
  }
}

export function createCodexParser(ctx: { projectDir: string }): EngineStreamParser {
  const state: State = { messages: 0, lastMessage: null, lastError: null, ended: false }
  return {
    line(line) {
      const trimmed = line.trim()
      if (!trimmed.startsWith('{') || state.ended) return []
      const event = parseJson(trimmed)
      return isObject(event) ? onEvent(event, state, ctx.projectDir) : []
    },
    end(exit) {
      if (state.ended) return []
      state.ended = true
      if (exit.code !== 0 && isVersionMismatch(exit.stderr))
        return [
          {
            type: 'failure',
            kind: 'version',
            message: `This Codex does not accept the options Ralph starts it with: ${tail(exit.stderr, 5)}`,
          },
        ]
      const said = state.lastError && !/^Reconnecting\b/.test(state.lastError) ? state.lastError : null
      if (said) return [failureOf(said)]
      const how = exit.signal ? `was stopped by ${exit.signal}` : `exited with code ${String(exit.code)}`
      const stderr = tail(exit.stderr)
      return [
        {
          type: 'failure',
          kind: classifyError(stderr) === 'not-logged-in' ? 'not-logged-in' : 'crash',
          message: `Codex ${how} before its turn finished.${stderr ? `\n${stderr}` : ''}`,
        },
      ]
    },
  }
}
