import { lstat, realpath, stat } from 'node:fs/promises'
import vm from 'node:vm'
import { z } from 'zod'
import { fileKind, notRegularNote, readRegularFile } from '../workspace/regularFile'
import { defineTool, projectPath } from './defineTool'
import { resolveProjectPath } from './paths'
import { hardLinkRefusal } from './readFile'
import { clipLine, looksBinary, plural } from './text'
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
  const st = await stat(resolved.abs).catch(() => null)
  if (!st) return errorResult(`No file or folder at ${resolved.rel}.`)
  const root = await realpath(ctx.projectDir)
  if (!st.isFile() && !st.isDirectory()) {
    return errorResult(notRegularNote(resolved.rel, fileKind(st)))
  }

  const skippedNotes: WalkNotes = new Set()
  const matches: string[] = []
  let searched = 0
  let skippedLarge = 0
  let skippedLinked = 0
  let capped = false
  const deadline = Date.now() + budgetMs
  let batch: FileText[] = []
  let batchBytes = 0

  const flush = (): string | null => {
    if (batch.length === 0) return null
    const remaining = deadline - Date.now()
    if (remaining <= 0) return 'timeout'
    let found: [string, number, string][]
    try {
      found = searchScript.runInContext(
        vm.createContext({ re, files: batch, cap: GREP_MAX_MATCHES - matches.length }),
        { timeout: remaining },
      ) as [string, number, string][]
    } catch {
      return 'timeout'
    }
    batch = []
    batchBytes = 0
    for (const [rel, line, text] of found) {
      matches.push(`${rel}:${line}: ${clipLine(text.replace(/\r$/, ''), GREP_MAX_LINE_CHARS)}`)
    }
    if (matches.length >= GREP_MAX_MATCHES) capped = true
    return null
  }

  const addFile = async (rel: string, abs: string): Promise<string | null> => {
    const st = await stat(abs).catch(() => null)
    // A hard link may be a file from outside the project that the model linked in (read_file refuses it too).
    if (!st || hardLinkRefusal(rel, st.nlink)) {
      if (st) skippedLinked++
      return null
    }
    if (st.size > GREP_MAX_FILE_BYTES) {
      skippedLarge++
      return null
    }
    // Opened without blocking and checked on the descriptor: a file swapped for a FIFO is skipped, not waited on.
    const read = await readRegularFile(abs, { maxBytes: GREP_MAX_FILE_BYTES }).catch(() => null)
    if (read && !read.ok && read.reason === 'not-regular')
      skippedNotes.add(`[${notRegularNote(rel, read.kind)}]`)
    if (read?.ok !== true) return null
    const buf = read.data
    if (looksBinary(buf)) return null
    searched++
    batch.push({ rel, text: buf.toString('utf8') })
    batchBytes += buf.length
    return batchBytes >= BATCH_BYTES ? flush() : null
  }

  let failure: string | null = null
  if (st.isFile()) failure = (await addFile(resolved.rel, resolved.abs)) ?? flush()
  else {
    const walk = async (
      dirRel: string,
      rules: Awaited<ReturnType<typeof rulesFor>>,
    ): Promise<string | null> => {
      for (const e of await readEntries(root, dirRel, rules)) {
        if (capped || ctx.signal.aborted) return null
        if (e.ignored) continue
        if (e.kind === 'dir') {
          const r = await walk(e.rel, await childRules(root, e.rel, rules, skippedNotes))
          if (r) return r
        } else if (e.kind === 'file') {
          const r = await addFile(e.rel, `${root}/${e.rel}`)
          if (r) return r
        } else if (e.kind === 'other') {
          const kind = await lstat(`${root}/${e.rel}`).then(fileKind, () => 'not a regular file')
          skippedNotes.add(`[${notRegularNote(e.rel, kind)}]`)
        }
      }
      return null
    }
    failure =
      (await walk(resolved.rel, await rulesFor(root, resolved.rel, skippedNotes))) ??
      (capped ? null : flush())
  }
  if (ctx.signal.aborted) return errorResult('grep was stopped: the task was cancelled.')
  if (failure === 'timeout') {
    return errorResult(
      `grep gave up after ${budgetMs / 1000} s: the pattern ${JSON.stringify(args.pattern)} is too slow ` +
        '(nested quantifiers such as (a+)+ backtrack catastrophically). Use a simpler pattern or a narrower path.',
    )
  }

  const where = resolved.rel === '' ? 'the project' : resolved.rel
  const notes: string[] = [...skippedNotes]
  if (capped) {
    notes.push(
      `[Stopped at ${GREP_MAX_MATCHES} matches. Narrow the search with a more specific pattern or a path.]`,
    )
  }
  if (skippedLarge > 0) {
    notes.push(
      `[Skipped ${plural(skippedLarge, 'file')} over 1 MB; read them in slices with read_file offset/limit.]`,
    )
  }
  if (skippedLinked > 0) {
    notes.push(
      `[Skipped ${plural(skippedLinked, 'hard-linked file')}: their other names may be outside the project.]`,
    )
  }
  if (matches.length === 0) {
    return okResult(
      [
        `No matches for ${JSON.stringify(args.pattern)} in ${where} (${plural(searched, 'file')} searched).`,
        ...notes,
      ].join('\n'),
    )
  }
  return okResult([...matches, ...notes].join('\n'))
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
