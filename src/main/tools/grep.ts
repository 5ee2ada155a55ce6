import { lstat, realpath, stat } from 'node:fs/promises'
import vm from 'node:vm'
import { z } from 'zod'
import {
  noteFailure,
  unlessExpected,
  unlessMissing,
  type Logger,
  fileKind,
  notRegularNote,
  readRegularFile,
} from '../workspace'
import { defineTool, projectPath } from './defineTool'
import { resolveProjectPath } from './paths'
import { hardLinkRefusal } from './readFile'
import { clipLine, looksBinary, plural } from './text'
import type { IgnoreRule } from './gitignore'
import { childRules, readEntries, rulesFor, type WalkNotes } from './walk'
import { errorResult, okResult, type ReadRunContext, type ToolResult } from './types'

export const GREP_MAX_MATCHES = 200
export const GREP_MAX_FILE_BYTES = 1024 * 1024
export const GREP_MAX_LINE_CHARS = 300
/** Wall-clock budget for all regex work: a catastrophic pattern must not freeze the app's main process. */
export const GREP_TIME_BUDGET_MS = 10_000
const BATCH_BYTES = 512 * 1024

const schema = z.strictObject({
  pattern: z
    .string()
    .describe(
      'JavaScript regular expression matched against each line (e.g. "function \\\\w+Handler"). Escape ' +
        'special characters to match them literally. Start with "(?i)" for a case-insensitive search.',
    ),
  path: projectPath('File or folder to search (default: the whole project).').optional(),
})
export type GrepArgs = z.infer<typeof schema>

interface FileText {
  rel: string
  text: string
}

// The regex runs inside a vm context with a timeout, which V8 can interrupt even mid-backtracking.
const searchScript = new vm.Script(`(() => {
  const out = []
  for (const f of files) {
    const lines = f.text.split('\\n')
    for (let i = 0; i < lines.length; i++) {
      if (re.test(lines[i])) {
        out.push([f.rel, i + 1, lines[i]])
        if (out.length >= cap) return out
      }
    }
  }
  return out
})()`)

export function compilePattern(pattern: string): RegExp | string {
  let source = pattern
  let flags = ''
  if (source.startsWith('(?i)')) {
    source = source.slice(4)
    flags = 'i'
  }
  try {
    return new RegExp(source, flags)
  } catch (err) {
    return (
      `Invalid regular expression ${JSON.stringify(pattern)}: ${(err as Error).message.replace(/^Invalid regular expression: /, '')}. ` +
      'Patterns are JavaScript regular expressions: escape special characters ( ) [ ] { } . * + ? ^ $ | \\ ' +
      'with a backslash to match them literally, e.g. "foo\\\\(" for "foo(".'
    )
  }
}

/** One search in progress: what was found, what was skipped and why, and the files waiting for the regex. */
interface Search {
  re: RegExp
  deadline: number
  log: Logger
  matches: string[]
  notes: WalkNotes
  searched: number
  skippedLarge: number
  skippedLinked: number
  capped: boolean
  batch: FileText[]
  batchBytes: number
}

const isScriptTimeout = (err: unknown) =>
  (err as NodeJS.ErrnoException | null)?.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT'

/** Runs the regex over the batched files in the vm; 'timeout' once the time budget is spent. */
function flush(s: Search): 'timeout' | null {
  if (s.batch.length === 0) return null
  const remaining = s.deadline - Date.now()
  if (remaining <= 0) return 'timeout'
  let found: [string, number, string][]
  try {
    found = searchScript.runInContext(
      vm.createContext({ re: s.re, files: s.batch, cap: GREP_MAX_MATCHES - s.matches.length }),
      { timeout: remaining },
    ) as [string, number, string][]
  } catch (err) {
    if (!isScriptTimeout(err)) noteFailure(s.log, 'grep: the search script failed; reported as too slow', err)
    return 'timeout'
  }
  s.batch = []
  s.batchBytes = 0
  for (const [rel, line, text] of found) {
    s.matches.push(`${rel}:${line}: ${clipLine(text.replace(/\r$/, ''), GREP_MAX_LINE_CHARS)}`)
  }
  if (s.matches.length >= GREP_MAX_MATCHES) s.capped = true
  return null
}

/** Reads one file into the batch (or counts why it is skipped); a full batch is searched at once. */
async function addFile(s: Search, rel: string, abs: string): Promise<'timeout' | null> {
  const st = await stat(abs).catch(unlessExpected(s.log, `grep: could not examine ${rel}`, null))
  // A hard link may be a file from outside the project that the model linked in (read_file refuses it too).
  if (!st || hardLinkRefusal(rel, st.nlink)) {
    if (st) s.skippedLinked++
    return null
  }
  if (st.size > GREP_MAX_FILE_BYTES) {
    s.skippedLarge++
    return null
  }
  // Opened without blocking and checked on the descriptor: a file swapped for a FIFO is skipped, not waited on.
  const read = await readRegularFile(abs, { maxBytes: GREP_MAX_FILE_BYTES }).catch(
    unlessExpected(s.log, `grep: could not read ${rel}`, null),
  )
  if (read && !read.ok && read.reason === 'not-regular') s.notes.add(`[${notRegularNote(rel, read.kind)}]`)
  if (read?.ok !== true || looksBinary(read.data)) return null
  s.searched++
  s.batch.push({ rel, text: read.data.toString('utf8') })
  s.batchBytes += read.data.length
  return s.batchBytes >= BATCH_BYTES ? flush(s) : null
}

/** Adds every searchable file under `dirRel` (what list_files would show), until capped, stopped or out of time. */
async function addFolder(
  s: Search,
  root: string,
  dirRel: string,
  rules: IgnoreRule[],
  signal: AbortSignal,
): Promise<'timeout' | null> {
  for (const e of await readEntries(root, dirRel, rules, s.log)) {
    if (s.capped || signal.aborted) return null
    if (e.ignored) continue
    let r: 'timeout' | null = null
    if (e.kind === 'dir')
      r = await addFolder(s, root, e.rel, await childRules(root, e.rel, rules, s.notes), signal)
    else if (e.kind === 'file') r = await addFile(s, e.rel, `${root}/${e.rel}`)
    else if (e.kind === 'other') {
      const kind = await lstat(`${root}/${e.rel}`).then(
        fileKind,
        unlessExpected(s.log, `grep: could not examine ${e.rel}`, 'not a regular file'),
      )
      s.notes.add(`[${notRegularNote(e.rel, kind)}]`)
    }
    if (r) return r
  }
  return null
}

/** What the model reads: the matches or why there are none, then notes on what was skipped. */
function grepReport(s: Search, pattern: string, where: string): string {
  const notes: string[] = [...s.notes]
  if (s.capped) {
    notes.push(
      `[Stopped at ${GREP_MAX_MATCHES} matches. Narrow the search with a more specific pattern or a path.]`,
    )
  }
  if (s.skippedLarge > 0) {
    notes.push(
      `[Skipped ${plural(s.skippedLarge, 'file')} over 1 MB; read them in slices with read_file offset/limit.]`,
    )
  }
  if (s.skippedLinked > 0) {
    notes.push(
      `[Skipped ${plural(s.skippedLinked, 'hard-linked file')}: their other names may be outside the project.]`,
    )
  }
  if (s.matches.length > 0) return [...s.matches, ...notes].join('\n')
  return [
    `No matches for ${JSON.stringify(pattern)} in ${where} (${plural(s.searched, 'file')} searched).`,
    ...notes,
  ].join('\n')
}

export async function grepTool(
  args: GrepArgs,
  ctx: ReadRunContext,
  budgetMs = GREP_TIME_BUDGET_MS,
): Promise<ToolResult> {
  if (args.pattern === '') return errorResult('pattern is empty. Give a regular expression to search for.')
  const re = compilePattern(args.pattern)
  if (typeof re === 'string') return errorResult(re)
  const resolved = await resolveProjectPath(ctx.projectDir, args.path ?? '.', { allowRoot: true })
  if (!resolved.ok) return errorResult(resolved.error)
  const st = await stat(resolved.abs).catch(
    unlessMissing(ctx.logger, 'grep: could not examine the path', null),
  )
  if (!st) return errorResult(`No file or folder at ${resolved.rel}.`)
  const root = await realpath(ctx.projectDir)
  if (!st.isFile() && !st.isDirectory()) return errorResult(notRegularNote(resolved.rel, fileKind(st)))

  const s: Search = {
    re,
    deadline: Date.now() + budgetMs,
    log: ctx.logger,
    matches: [],
    notes: new Set<string>(),
    searched: 0,
    skippedLarge: 0,
    skippedLinked: 0,
    capped: false,
    batch: [],
    batchBytes: 0,
  }
  const failure = st.isFile()
    ? ((await addFile(s, resolved.rel, resolved.abs)) ?? flush(s))
    : ((await addFolder(s, root, resolved.rel, await rulesFor(root, resolved.rel, s.notes), ctx.signal)) ??
      (s.capped ? null : flush(s)))
  if (ctx.signal.aborted) return errorResult('grep was stopped: the task was cancelled.')
  if (failure === 'timeout') {
    return errorResult(
      `grep gave up after ${budgetMs / 1000} s: the pattern ${JSON.stringify(args.pattern)} is too slow ` +
        '(nested quantifiers such as (a+)+ backtrack catastrophically). Use a simpler pattern or a narrower path.',
    )
  }
  return okResult(grepReport(s, args.pattern, resolved.rel === '' ? 'the project' : resolved.rel))
}

export const grep = defineTool({
  name: 'grep',
  description:
    'Search file contents with a regular expression. Returns "path:line: text" for each matching line (at most ' +
    '200), skipping binary files, dependencies and ignored files.',
  schema,
  readOnly: true,
  run: (args, ctx) => grepTool(args, ctx),
})
