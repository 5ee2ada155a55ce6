import { isAbsolute, relative, resolve, sep } from 'node:path'
import type { EngineToolCall } from '../types'

// Claude Code's tool calls in Ralph's terms (ENGINES.md "Names on the card"): its built-in file and shell tools get
// Ralph's names and argument shapes with project-relative paths; Ralph's own tools arrive over MCP as
// `mcp__ralph__<tool>` and are shown by their own name; the user's other MCP servers keep Claude Code's name and are
// marked as acting outside the snapshots.

type Args = Record<string, unknown>

const RALPH_PREFIX = 'mcp__ralph__'

/** A path as the card shows it: relative to the project when inside it, else as given. */
export function projectRelative(projectDir: string, path: unknown): string | undefined {
  if (typeof path !== 'string' || path === '') return undefined
  const absolute = isAbsolute(path) ? path : resolve(projectDir, path)
  const rel = relative(projectDir, absolute)
  if (rel === '') return '.'
  if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return path
  return rel.split(sep).join('/')
}

/** Keeps only the keys whose value is set. */
function defined(args: Args): Args {
  return Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined))
}

interface Mapped {
  name: string
  args: unknown
  changedFiles: string[]
  ranCommand: boolean
  outsideSnapshot?: boolean
}

/** Claude Code's file-path tools that write. */
const WRITERS = new Set(['Write', 'Edit', 'MultiEdit', 'NotebookEdit'])

function fileTool(name: string, input: Args, rel: (p: unknown) => string | undefined): Mapped | null {
  const path = rel(input.file_path ?? input.notebook_path)
  const changedFiles = WRITERS.has(name) && path ? [path] : []
  switch (name) {
    case 'Write':
      return { name: 'write_file', args: { path, content: input.content }, changedFiles, ranCommand: false }
    case 'Edit':
      return {
        name: 'edit_file',
        args: { path, old_string: input.old_string, new_string: input.new_string },
        changedFiles,
        ranCommand: false,
      }
    case 'Read':
      return {
        name: 'read_file',
        args: defined({ path, offset: input.offset, limit: input.limit }),
        changedFiles,
        ranCommand: false,
      }
    case 'MultiEdit':
    case 'NotebookEdit': {
      // No Ralph tool has these shapes: Claude Code's name and arguments, the path made project-relative.
      const key = name === 'MultiEdit' ? 'file_path' : 'notebook_path'
      return { name, args: { ...input, [key]: path }, changedFiles, ranCommand: false }
    }
    default:
      return null
  }
}

/** The card's name, arguments and effects of one Claude Code tool call. */
export function mapToolCall(projectDir: string, name: string, rawInput: unknown): Mapped {
  const input: Args = rawInput && typeof rawInput === 'object' ? (rawInput as Args) : {}
  const rel = (p: unknown) => projectRelative(projectDir, p)
  const file = fileTool(name, input, rel)
  // A write outside the project (the sandbox may allow one, e.g. under /tmp) is no file of the project's snapshots.
  const outside = file?.changedFiles.filter((f) => isAbsolute(f)) ?? []
  if (file && outside.length > 0)
    return { ...file, changedFiles: file.changedFiles.filter((f) => !isAbsolute(f)), outsideSnapshot: true }
  if (file) return file
  switch (name) {
    case 'Bash':
      return { name: 'run_command', args: { command: input.command }, changedFiles: [], ranCommand: true }
    case 'Grep':
      return {
        name: 'grep',
        args: defined({ pattern: input.pattern, path: rel(input.path) }),
        changedFiles: [],
        ranCommand: false,
      }
    case 'Glob':
      return {
        name: 'list_files',
        args: defined({ path: rel(input.path), pattern: input.pattern }),
        changedFiles: [],
        ranCommand: false,
      }
    case 'LS':
      return {
        name: 'list_files',
        args: defined({ path: rel(input.path) }),
        changedFiles: [],
        ranCommand: false,
      }
  }
  if (name.startsWith(RALPH_PREFIX))
    return { name: name.slice(RALPH_PREFIX.length), args: input, changedFiles: [], ranCommand: false }
  if (name.startsWith('mcp__'))
    return { name, args: input, changedFiles: [], ranCommand: false, outsideSnapshot: true }
  return { name, args: input, changedFiles: [], ranCommand: false }
}

/** A `tool_result` block's content as text (text blocks joined; an image is named, not inlined). */
export function resultText(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return content === undefined || content === null ? '' : JSON.stringify(content)
  return content
    .map((block: unknown) => {
      if (!block || typeof block !== 'object') return ''
      const b = block as Args
      if (b.type === 'text' && typeof b.text === 'string') return b.text
      if (b.type === 'image') return '[image]'
      return JSON.stringify(b)
    })
    .filter((t) => t !== '')
    .join('\n')
}

/** One finished call: the `tool_use` block paired with its `tool_result` block. */
export function toolCall(
  projectDir: string,
  use: { id: string; name: string; input: unknown },
  result: { content: unknown; is_error?: unknown },
): EngineToolCall {
  const mapped = mapToolCall(projectDir, use.name, use.input)
  const ok = result.is_error !== true
  return {
    id: use.id,
    name: mapped.name,
    args: mapped.args,
    ok,
    output: resultText(result.content),
    // A call that failed wrote nothing (Claude Code refuses an edit whole).
    changedFiles: ok ? mapped.changedFiles : [],
    ranCommand: mapped.ranCommand,
    ...(mapped.outsideSnapshot ? { outsideSnapshot: true } : {}),
  }
}
