import { stat } from 'node:fs/promises'
import { z } from 'zod'
import { fitToolImage, sniffImageType } from '../attachments'
import {
  fileKind,
  noteFailure,
  notRegularNote,
  readRegularFile,
  unlessMissing,
  type Logger,
} from '../workspace'
import { defineTool, projectPath } from './defineTool'
import { resolveProjectPath } from './paths'
import { clipLine, formatBytes, looksBinary } from './text'
import { errorResult, okResult, type ReadRunContext, type ToolResult } from './types'

export const READ_MAX_LINES = 2000
export const READ_MAX_CHARS = 100_000
export const READ_MAX_LINE_CHARS = 2000
/** Files above this are not loaded at all: the model should grep or read slices with run_command. */
export const READ_MAX_FILE_BYTES = 20 * 1024 * 1024

const schema = z.strictObject({
  path: projectPath('File to read.'),
  offset: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe('1-based line number to start from (default 1). Use it to continue a truncated read.'),
  limit: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe('Maximum number of lines to return (default and maximum 2000).'),
})
export type ReadFileArgs = z.infer<typeof schema>

/**
 * A hard link is a second name for a file that may live outside the project (a secret, say): the path checks
 * cannot see where the other names are, so the file tools do not read such files (issue 11). run_command can:
 * in the sandbox the secrets are hidden and no link to an outside file can be made.
 */
export function hardLinkRefusal(rel: string, nlink: number): string | null {
  if (nlink <= 1) return null
  return (
    `Refused: ${rel} is a hard link (the file has ${nlink} names), and its other names may be outside the ` +
    `project. If you need its content, read it with run_command (e.g. cat ${JSON.stringify(rel)}), which runs ` +
    'in the sandbox.'
  )
}

export async function readFileTool(args: ReadFileArgs, ctx: ReadRunContext): Promise<ToolResult> {
  const resolved = await resolveProjectPath(ctx.projectDir, args.path)
  if (!resolved.ok) return errorResult(resolved.error)
  const { abs, rel } = resolved
  const st = await stat(abs).catch(unlessMissing(ctx.logger, 'read_file: could not examine the file', null))
  if (!st) return errorResult(`No file at ${rel}. Use list_files to see what exists.`)
  if (st.isDirectory())
    return errorResult(`${rel} is a folder, not a file. Use list_files with path "${rel}".`)
  if (!st.isFile()) return errorResult(notRegularNote(rel, fileKind(st)))
  const linked = hardLinkRefusal(rel, st.nlink)
  if (linked) return errorResult(linked)
  if (st.size > READ_MAX_FILE_BYTES) {
    return errorResult(
      `${rel} is too large to read (${formatBytes(st.size)}). Search it with grep, or read a slice with ` +
        `run_command (e.g. sed -n '100,200p' ${JSON.stringify(rel)}).`,
    )
  }
  // Opened without blocking and checked again on the descriptor: a file swapped for a FIFO since the stat above
  // is refused, not waited on.
  const read = await readRegularFile(abs)
  if (!read.ok) {
    if (read.reason === 'missing') return errorResult(`No file at ${rel}. Use list_files to see what exists.`)
    if (read.reason === 'not-regular') return errorResult(notRegularNote(rel, read.kind))
    return errorResult(`${rel} is too large to read (${formatBytes(read.size)}).`)
  }
  const buf = read.data
  const mediaType = sniffImageType(buf)
  if (mediaType) return readImage(rel, buf, mediaType, ctx.logger)
  if (looksBinary(buf)) {
    return okResult(`${rel} is a binary file (${formatBytes(buf.length)}); its content is not shown.`)
  }
  if (buf.length === 0) return okResult(`${rel} is empty (0 bytes).`)

  const lines = buf.toString('utf8').split('\n')
  if (lines[lines.length - 1] === '') lines.pop()
  const total = lines.length
  const offset = args.offset ?? 1
  if (offset > total) {
    return errorResult(
      `${rel} has ${total} lines; offset ${offset} is past the end. Use an offset from 1 to ${total}.`,
    )
  }
  const limit = Math.min(args.limit ?? READ_MAX_LINES, READ_MAX_LINES)
  const out: string[] = []
  let chars = 0
  let last = offset - 1
  for (let n = offset; n <= total && n < offset + limit; n++) {
    const text = clipLine(lines[n - 1]!.replace(/\r$/, ''), READ_MAX_LINE_CHARS)
    const line = `${String(n).padStart(6)}\t${text}`
    if (chars + line.length > READ_MAX_CHARS && out.length > 0) break
    out.push(line)
    chars += line.length + 1
    last = n
  }
  if (offset > 1 || last < total) {
    const more = last < total ? ` To read further, call read_file with offset=${last + 1}.` : ''
    out.push(`[Showing lines ${offset}-${last} of ${total} in ${rel}.${more}]`)
  }
  return okResult(out.join('\n'))
}

/** An image file: sent as an image, scaled to every provider's limits (the file itself is left as it is). */
async function readImage(
  rel: string,
  buf: Buffer,
  mediaType: NonNullable<ReturnType<typeof sniffImageType>>,
  logger: Logger,
): Promise<ToolResult> {
  try {
    const image = await fitToolImage({ name: rel, data: new Uint8Array(buf), mediaType })
    const scaled =
      image.data.length === buf.length && image.mediaType === mediaType
        ? ''
        : ` (sent scaled down to ${formatBytes(image.data.length)} ${image.mediaType}; the file is unchanged)`
    return okResult(
      `${rel} is an image (${mediaType}, ${formatBytes(buf.length)})${scaled}; it follows as an image where this ` +
        'model can see images.',
      { image },
    )
  } catch (err) {
    noteFailure(logger, `read_file: ${rel} could not be decoded as an image`, err)
    return okResult(
      `${rel} starts as an ${mediaType} image but could not be decoded (the file is damaged or cut short); its ` +
        'content is not shown.',
    )
  }
}

export const readFile = defineTool({
  name: 'read_file',
  description:
    'Read a text file of the project. Lines come numbered ("    12\\tcode"); long files are cut at 2000 lines ' +
    'with a note giving the offset to continue from. An image (PNG, JPEG, WebP, GIF) is shown as an image; other ' +
    'binary files are not shown.',
  schema,
  readOnly: true,
  run: readFileTool,
})
