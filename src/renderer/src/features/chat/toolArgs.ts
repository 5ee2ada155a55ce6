import { diffLines } from 'diff'
import { parseJsonOr } from '../../../../shared/json'

/** A tool call's arguments, read from the stored text; `cut`: the text ended early (the core keeps its start). */
export interface ReadArgs {
  args: Record<string, unknown>
  cut: boolean
}

/**
 * The arguments as an object: JSON when whole, else (the core keeps only the start of long arguments) each field
 * that can be read from the start, the last string up to where the text ends. Null when it is not an object.
 */
export function readArgs(text: string): ReadArgs | null {
  const value = parseJsonOr(text, NOT_JSON)
  // Not whole JSON: read what there is, field by field.
  if (value === NOT_JSON) return readLeniently(text)
  return value && typeof value === 'object' && !Array.isArray(value)
    ? { args: value as Record<string, unknown>, cut: false }
    : null
}

const NOT_JSON = Symbol('not JSON')

function readLeniently(text: string): ReadArgs | null {
  let i = text.indexOf('{')
  if (i === -1) return null
  i++
  const args: Record<string, unknown> = {}
  const skip = () => {
    while (i < text.length && /[\s,]/.test(text[i]!)) i++
  }
  for (;;) {
    skip()
    if (i >= text.length || text[i] === '}') break
    if (text[i] !== '"') return Object.keys(args).length ? { args, cut: true } : null
    const key = readString(text, i)
    i = key.end
    skip()
    if (text[i] !== ':') {
      break
    }
    i++
    skip()
    if (text[i] === '"') {
      const value = readString(text, i)
      args[key.value] = value.value
      i = value.end
      if (!value.closed) break
    } else {
      // A number, true, false, null, or an object or list: up to the next field (or the end).
      const m = /^[^\n]*?(?=,\s*\n\s*"|\n?\s*}\s*$|$)/.exec(text.slice(i))
      const raw = m ? m[0] : text.slice(i)
      i += raw.length
      args[key.value] = parseJsonOr(raw, raw)
    }
  }
  return Object.keys(args).length ? { args, cut: true } : null
}

/** A JSON string from its opening quote: its value, where it ends, and whether it was closed. */
function readString(text: string, from: number): { value: string; end: number; closed: boolean } {
  let out = ''
  let i = from + 1
  while (i < text.length) {
    const c = text[i]!
    if (c === '"') return { value: out, end: i + 1, closed: true }
    if (c === '\\') {
      const n = text[i + 1]
      if (n === undefined) break
      if (n === 'n') out += '\n'
      else if (n === 't') out += '\t'
      else if (n === 'r') out += '\r'
      else if (n === 'u') {
        const hex = text.slice(i + 2, i + 6)
        if (hex.length < 4) break
        out += String.fromCharCode(parseInt(hex, 16))
        i += 4
      } else out += n
      i += 2
      continue
    }
    out += c
    i++
  }
  return { value: out, end: i, closed: false }
}

/** What a file tool asked for: the file, the text before (null: the whole file is written) and after. */
export interface FileChange {
  path: string
  before: string | null
  after: string
}

/** write_file and edit_file as a change to a file; null for other tools (or arguments that do not say). */
export function fileChange(
  name: string,
  read: ReadArgs | null,
  /** The call's path as the core read it from the whole arguments (cut ones may have lost theirs). */
  knownPath: string | null = null,
): FileChange | null {
  const a = read?.args
  const path = typeof a?.path === 'string' ? a.path : knownPath
  if (!a || path === null) return null
  if (name === 'write_file' && typeof a.content === 'string') return { path, before: null, after: a.content }
  if (name === 'edit_file' && typeof a.old_string === 'string' && typeof a.new_string === 'string')
    return { path, before: a.old_string, after: a.new_string }
  return null
}

export interface DiffLine {
  kind: 'add' | 'del' | 'same'
  text: string
}

const splitLines = (text: string) => {
  const lines = text.split('\n')
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop()
  return lines
}

/** The change line by line: a written file is all added; an edit is its old text against its new. */
export function diffOf(change: FileChange): DiffLine[] {
  if (change.before === null) return splitLines(change.after).map((text) => ({ kind: 'add', text }))
  const out: DiffLine[] = []
  // An edit's snippets often end mid-line: "c" and "c\n" are the same last line here.
  const eol = (t: string) => (t === '' || t.endsWith('\n') ? t : `${t}\n`)
  for (const part of diffLines(eol(change.before), eol(change.after))) {
    const kind = part.added ? 'add' : part.removed ? 'del' : 'same'
    for (const text of splitLines(part.value)) out.push({ kind, text })
  }
  return out
}

/** "+12 −3": lines added and removed. */
export function countLines(lines: readonly DiffLine[]): { added: number; removed: number } {
  let added = 0
  let removed = 0
  for (const l of lines) {
    if (l.kind === 'add') added++
    else if (l.kind === 'del') removed++
  }
  return { added, removed }
}
