import { readdir, readlink, realpath, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { z } from 'zod'
import { defineTool, projectPath } from './defineTool'
import { resolveProjectPath } from './paths'
import { childRules, readEntries, rulesFor, type WalkNotes } from './walk'
import { errorResult, okResult, type ReadRunContext, type ToolResult } from './types'
import { unlessExpected, unlessMissing } from '../workspace'

export const LIST_DEFAULT_DEPTH = 3
export const LIST_MAX_DEPTH = 20
export const LIST_MAX_ENTRIES = 500

const schema = z.strictObject({
  path: projectPath('Folder to list (default: the project root).').optional(),
  depth: z
    .number()
    .int()
    .min(1)
    .max(LIST_MAX_DEPTH)
    .optional()
    .describe('How many folder levels to expand (default 3). Deeper folders show their entry count.'),
})
export type ListFilesArgs = z.infer<typeof schema>

export async function listFilesTool(args: ListFilesArgs, ctx: ReadRunContext): Promise<ToolResult> {
  const resolved = await resolveProjectPath(ctx.projectDir, args.path ?? '.', { allowRoot: true })
  if (!resolved.ok) return errorResult(resolved.error)
  const { abs, rel } = resolved
  const st = await stat(abs).catch(
    unlessMissing(ctx.logger, 'list_files: could not examine the folder', null),
  )
  if (!st) return errorResult(`No folder at ${rel}. List the project root with list_files and no path.`)
  if (!st.isDirectory()) return errorResult(`${rel} is a file, not a folder. Read it with read_file.`)
  const maxDepth = Math.min(Math.max(args.depth ?? LIST_DEFAULT_DEPTH, 1), LIST_MAX_DEPTH)
  const root = await realpath(ctx.projectDir)

  const lines: string[] = []
  let truncated = false
  let count = 0
  const skippedNotes: WalkNotes = new Set()
  const walk = async (dirRel: string, depth: number, rules: Awaited<ReturnType<typeof rulesFor>>) => {
    for (const e of await readEntries(root, dirRel, rules, ctx.logger)) {
      if (count >= LIST_MAX_ENTRIES) {
        truncated = true
        return
      }
      count++
      const pad = '  '.repeat(depth - 1)
      if (e.kind === 'dir') {
        if (e.ignored) {
          lines.push(
            `${pad}${e.name}/ (ignored: ${e.ignored === 'builtin' ? 'dependencies or build output' : '.gitignore'})`,
          )
        } else if (depth >= maxDepth) {
          const n = (
            await readdir(join(root, e.rel)).catch(
              unlessExpected(ctx.logger, `list_files: could not count ${e.rel}`, []),
            )
          ).length
          lines.push(`${pad}${e.name}/ (${n} ${n === 1 ? 'entry' : 'entries'}, not expanded)`)
        } else {
          lines.push(`${pad}${e.name}/`)
          await walk(e.rel, depth + 1, await childRules(root, e.rel, rules, skippedNotes))
          if (truncated) return
        }
      } else if (e.kind === 'symlink') {
        const target = await readlink(join(root, e.rel)).catch(
          unlessExpected(ctx.logger, `list_files: could not read the link ${e.rel}`, '?'),
        )
        lines.push(`${pad}${e.name} -> ${target}`)
      } else if (e.kind === 'other' && !e.ignored) {
        lines.push(
          `${pad}${e.name} (not a regular file: a pipe, socket or device; not readable with read_file)`,
        )
      } else if (!e.ignored) lines.push(`${pad}${e.name}`)
      else count--
    }
  }
  await walk(rel, 1, await rulesFor(root, rel, skippedNotes))

  const title = rel === '' ? 'Project root' : `${rel}/`
  if (lines.length === 0) return okResult(`${title} is empty.`)
  const notes: string[] = [...skippedNotes]
  if (truncated) {
    notes.push(
      `[Listing truncated at ${LIST_MAX_ENTRIES} entries. List a subfolder with path="…", or use a smaller depth.]`,
    )
  }
  if (lines.some((l) => l.endsWith('not expanded)'))) {
    notes.push(`[Folders marked "not expanded" are deeper than depth ${maxDepth}: list them with path="…".]`)
  }
  return okResult([`${title} (depth ${maxDepth}):`, ...lines, ...notes].join('\n'))
}

export const listFiles = defineTool({
  name: 'list_files',
  description:
    "Show the project's files and folders as a tree, without .git, dependencies and build output " +
    '(node_modules, dist …) or what .gitignore ignores. Large trees are cut at 500 entries.',
  schema,
  readOnly: true,
  run: listFilesTool,
})
