// Codex's finished items (`item.completed` in `exec --json`) as Ralph's tool calls, so a task card looks the same
// whatever the engine: `command_execution` → `run_command`, `file_change` → `apply_patch` with the files it wrote,
// an MCP call to Ralph's server → the tool's own name, to another server → `mcp__<server>__<tool>`.
import { isAbsolute, relative } from 'node:path'
import type { EngineToolCall } from '../types'
import { RALPH_SERVER } from './launch'

type Json = Record<string, unknown>
export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)
const str = (v: unknown): string => (typeof v === 'string' ? v : '')

/**
 * The command as the model wrote it: Codex reports it wrapped in the shell it ran it with
 * (`/bin/bash -lc 'echo hi > a.txt'`); a wrapper whose script is one quoted word is unwrapped.
 */
export function unwrapShell(command: string): string {
  const m = /^(?:\S*\/)?(?:bash|zsh|sh) -l?c (.*)$/s.exec(command)
  if (!m) return command
  const script = m[1] ?? ''
  const quoted = /^'((?:[^']|'\\''|'"'"')*)'$/s.exec(script)
  if (quoted) return (quoted[1] ?? '').replace(/'\\''|'"'"'/g, "'")
  return /^[^'"\\\s]+$/.test(script) ? script : command
}

function commandCall(item: Json): EngineToolCall {
  const exitCode = typeof item.exit_code === 'number' ? item.exit_code : null
  const output = str(item.aggregated_output)
  const exitLine = exitCode === null ? `Status: ${str(item.status) || 'unknown'}` : `Exit code: ${exitCode}`
  return {
    id: str(item.id),
    name: 'run_command',
    args: { command: unwrapShell(str(item.command)) },
    ok: exitCode === 0 && item.status !== 'failed',
    output: output ? `${output}${output.endsWith('\n') ? '' : '\n'}${exitLine}` : exitLine,
    changedFiles: [],
    ranCommand: true,
  }
}

/** A path Codex reports (absolute) relative to the project; null when it is outside the project. */
function projectPath(projectDir: string, path: string): string | null {
  const rel = isAbsolute(path) ? relative(projectDir, path) : path
  if (!rel || rel.startsWith('..') || isAbsolute(rel)) return null
  return rel.split('\\').join('/')
}

const KIND_LETTER: Record<string, string> = { add: 'A', update: 'M', delete: 'D' }

function fileChangeCall(item: Json, projectDir: string): EngineToolCall {
  const changes = (Array.isArray(item.changes) ? item.changes : []).filter(isObject).map((c) => {
    const path = str(c.path)
    const kind = typeof c.kind === 'string' ? c.kind : isObject(c.kind) ? str(c.kind.type) : ''
    return {
      path: projectPath(projectDir, path) ?? path,
      kind,
      inProject: projectPath(projectDir, path) !== null,
    }
  })
  const ok = item.status === 'completed'
  const lines = changes.map((c) => `${KIND_LETTER[c.kind] ?? '?'} ${c.path}`)
  return {
    id: str(item.id),
    name: 'apply_patch',
    args: { changes: changes.map(({ path, kind }) => ({ path, kind })) },
    ok,
    output: ok ? lines.join('\n') : ['The patch was not applied.', ...lines].join('\n'),
    changedFiles: ok ? [...new Set(changes.filter((c) => c.inProject).map((c) => c.path))] : [],
    ranCommand: false,
  }
}

/** An MCP result's text: its text parts, other parts named by their type. */
function mcpOutput(item: Json): string {
  if (isObject(item.error)) return str(item.error.message) || 'The tool call failed.'
  const result = isObject(item.result) ? item.result : {}
  const content = Array.isArray(result.content) ? result.content : []
  const parts = content
    .filter(isObject)
    .map((p) => (p.type === 'text' ? str(p.text) : `[${str(p.type) || 'content'}]`))
  if (parts.length === 0 && result.structured_content != null)
    return JSON.stringify(result.structured_content)
  return parts.join('\n')
}

function mcpCall(item: Json): EngineToolCall {
  const server = str(item.server)
  const tool = str(item.tool)
  const ours = server === RALPH_SERVER
  return {
    id: str(item.id),
    name: ours ? tool : `mcp__${server}__${tool}`,
    args: item.arguments ?? {},
    ok: item.status === 'completed' && !isObject(item.error),
    output: mcpOutput(item),
    changedFiles: [],
    ranCommand: false,
    ...(ours ? {} : { outsideSnapshot: true }),
  }
}

function webSearchCall(item: Json): EngineToolCall {
  return {
    id: str(item.id),
    name: 'web_search',
    args: { query: str(item.query) },
    ok: item.status !== 'failed',
    output: '',
    changedFiles: [],
    ranCommand: false,
  }
}

/** A finished item as a tool call, or null for the items that are not one (messages, reasoning, plans, notices). */
export function toolCallOf(item: Json, projectDir: string): EngineToolCall | null {
  switch (item.type) {
    case 'command_execution':
      return commandCall(item)
    case 'file_change':
      return fileChangeCall(item, projectDir)
    case 'mcp_tool_call':
      return mcpCall(item)
    case 'web_search':
      return webSearchCall(item)
    default:
      return null
  }
}
