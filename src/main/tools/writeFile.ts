import { readFile, stat } from 'node:fs/promises'
import { z } from 'zod'
import { writeFileAtomic, unlessMissing } from '../workspace'
import { defineTool, projectPath } from './defineTool'
import { resolveProjectPath } from './paths'
import { marksComplete, writeRefusal } from './ralphFiles'
import { plural } from './text'
import { errorResult, okResult, type RunContext, type ToolResult } from './types'

const schema = z.strictObject({
  path: projectPath('File to create or overwrite. Missing folders are created.'),
  content: z.string().describe('The complete new content of the file (not a diff, no line numbers).'),
})
export type WriteFileArgs = z.infer<typeof schema>

/** Resolves a path for writing: confined, not harness-owned, not a folder. */
export async function resolveWritable(
  ctx: RunContext,
  path: string,
): Promise<
  | { ok: true; abs: string; rel: string; mode: number | undefined; exists: boolean }
  | { ok: false; error: string }
> {
  const resolved = await resolveProjectPath(ctx.projectDir, path)
  if (!resolved.ok) return resolved
  const refusal = writeRefusal(resolved.rel)
  if (refusal) return { ok: false, error: refusal }
  const st = await stat(resolved.abs).catch(
    unlessMissing(ctx.logger, 'write_file: could not examine the target', null),
  )
  if (st?.isDirectory())
    return { ok: false, error: `${resolved.rel} is a folder; give a file path inside it.` }
  if (st && !st.isFile()) return { ok: false, error: `${resolved.rel} is not a regular file.` }
  // Keep an existing file's permissions (an executable script stays executable after the atomic rename).
  return {
    ok: true,
    abs: resolved.abs,
    rel: resolved.rel,
    mode: st ? st.mode & 0o7777 : undefined,
    exists: !!st,
  }
}

export async function writeFileTool(args: WriteFileArgs, ctx: RunContext): Promise<ToolResult> {
  const target = await resolveWritable(ctx, args.path)
  if (!target.ok) return errorResult(target.error)
  const bytes = Buffer.byteLength(args.content, 'utf8')
  const completed = marksComplete(target.rel, args.content)
  if (target.exists) {
    const before = await readFile(target.abs).catch(
      unlessMissing(ctx.logger, 'write_file: could not read the current content', null),
    )
    if (before?.equals(Buffer.from(args.content, 'utf8'))) {
      return okResult(`${target.rel} already has exactly this content (${bytes} bytes); nothing changed.`, {
        completed,
      })
    }
  }
  try {
    await writeFileAtomic(target.abs, args.content, target.mode)
  } catch (err) {
    return errorResult(`Could not write ${target.rel}: ${(err as Error).message}`)
  }
  const lines =
    args.content === '' ? 0 : args.content.split('\n').length - (args.content.endsWith('\n') ? 1 : 0)
  return wroteFile(
    target.rel,
    `${target.exists ? 'Overwrote' : 'Created'} ${target.rel}: wrote ${bytes} bytes (${plural(lines, 'line')}).`,
    completed,
  )
}

/** A project file was written: the sentence saying how, and whether that write marked the task complete. */
export function wroteFile(rel: string, sentence: string, completed: boolean): ToolResult {
  return okResult(
    sentence + (completed ? ' Status set to complete: the harness will now check the work.' : ''),
    {
      changedFiles: [rel],
      completed,
    },
  )
}

export const writeFile = defineTool({
  name: 'write_file',
  description:
    'Create a file or replace its whole content, creating folders as needed. For small changes to an existing ' +
    'file prefer edit_file. Harness files (.ralph/task.md, feedback.md, config.json, phase.txt …) are read-only.',
  schema,
  readOnly: false,
  run: writeFileTool,
})
