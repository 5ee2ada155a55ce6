import { readFile } from 'node:fs/promises'
import { z } from 'zod'
import { writeFileAtomic } from '../workspace'
import { defineTool, projectPath } from './defineTool'
import { marksComplete } from './ralphFiles'
import { looksBinary } from './text'
import { errorResult, type RunContext, type ToolResult } from './types'
import { resolveWritable, wroteFile } from './writeFile'

const schema = z.strictObject({
  path: projectPath('Existing file to edit.'),
  old_string: z
    .string()
    .describe(
      'Exact text to replace, copied from the file including indentation and line breaks, without the line ' +
        'numbers read_file shows. It must occur exactly once: include enough surrounding lines to make it unique.',
    ),
  new_string: z.string().describe('Text to put in its place (may be empty to delete old_string).'),
})
export type EditFileArgs = z.infer<typeof schema>

function occurrences(haystack: string, needle: string): number[] {
  const at: number[] = []
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + needle.length)) at.push(i)
  return at
}

const lineOf = (text: string, index: number): number => text.slice(0, index).split('\n').length

export async function editFileTool(args: EditFileArgs, ctx: RunContext): Promise<ToolResult> {
  const target = await resolveWritable(ctx, args.path)
  if (!target.ok) return errorResult(target.error)
  if (!target.exists) return errorResult(`No file at ${target.rel}. To create a file, use write_file.`)
  if (args.old_string === '') {
    return errorResult(
      'old_string is empty. Give the exact text to replace, or use write_file to write a whole file.',
    )
  }
  if (args.old_string === args.new_string) {
    return errorResult('old_string and new_string are identical: there is nothing to change.')
  }
  const buf = await readFile(target.abs)
  if (looksBinary(buf))
    return errorResult(`${target.rel} is a binary file; edit_file works on text files only.`)
  const text = buf.toString('utf8')

  let oldStr = args.old_string
  let newStr = args.new_string
  let at = occurrences(text, oldStr)
  // Models quote files with \n line endings; match a CRLF file the way it would be read.
  if (at.length === 0 && text.includes('\r\n') && oldStr.includes('\n') && !oldStr.includes('\r\n')) {
    oldStr = oldStr.replace(/\n/g, '\r\n')
    newStr = newStr.replace(/\r?\n/g, '\r\n')
    at = occurrences(text, oldStr)
  }
  if (at.length === 0) {
    return errorResult(
      `old_string was not found in ${target.rel}. It must match the file exactly, including whitespace, ` +
        'indentation and line breaks (without the line-number prefix read_file shows). Read the file again ' +
        'with read_file and copy the text exactly.',
    )
  }
  if (at.length > 1) {
    const lines = at.slice(0, 10).map((i) => lineOf(text, i))
    return errorResult(
      `old_string matches ${at.length} places in ${target.rel} (lines ${lines.join(', ')}` +
        `${at.length > 10 ? ', …' : ''}). It must match exactly one: add surrounding lines to old_string ` +
        'so it is unique.',
    )
  }
  const index = at[0]!
  const updated = text.slice(0, index) + newStr + text.slice(index + oldStr.length)
  try {
    await writeFileAtomic(target.abs, updated, target.mode)
  } catch (err) {
    return errorResult(`Could not write ${target.rel}: ${(err as Error).message}`)
  }
  const completed = marksComplete(target.rel, updated)
  const removed = oldStr.split('\n').length
  const added = newStr.split('\n').length
  return wroteFile(
    target.rel,
    `Edited ${target.rel}: replaced ${removed} line(s) at line ${lineOf(text, index)} with ${added} line(s).`,
    completed,
  )
}

export const editFile = defineTool({
  name: 'edit_file',
  description:
    'Replace one exact, unique occurrence of old_string with new_string in an existing file. Fails (changing ' +
    'nothing) if old_string is missing or occurs more than once; read the file first and copy the text exactly.',
  schema,
  readOnly: false,
  run: editFileTool,
})
