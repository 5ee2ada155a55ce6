// What the model reads of an MCP tool's answer: its text parts, a note for each part it cannot read as text, and
// structured content as JSON; long answers keep their beginning and end. Its first image (PNG, JPEG, WebP, GIF) goes
// to the model as an image, as read_file's do.
import type { CallToolResult } from '@ai-sdk/mcp'
import { sniffImageType, type ImageMediaType } from '../attachments'

export const MCP_OUTPUT_MAX_CHARS = 20_000

interface Part {
  type: string
  text?: string
  data?: string
  mimeType?: string
  uri?: string
  resource?: { uri: string; text?: string }
}

function partText(part: Part, shown: Part | null): string {
  switch (part.type) {
    case 'text':
      return part.text ?? ''
    case 'image':
      return part === shown
        ? `[image (${part.mimeType}): it follows as an image where this model can see images]`
        : `[image (${part.mimeType}): not shown (only a tool answer’s first PNG, JPEG, WebP or GIF image is)]`
    case 'audio':
      return `[audio (${part.mimeType}): not shown to the model]`
    case 'resource': {
      const r = part.resource
      if (!r) return '[resource]'
      return typeof r.text === 'string' ? `[resource ${r.uri}]\n${r.text}` : `[binary resource ${r.uri}]`
    }
    case 'resource_link':
      return `[resource link ${part.uri ?? ''}]`
    default:
      return `[${part.type} content]`
  }
}

export function clip(text: string, max = MCP_OUTPUT_MAX_CHARS): string {
  if (text.length <= max) return text
  const head = text.slice(0, Math.floor(max * 0.4))
  const tail = text.slice(text.length - Math.floor(max * 0.6))
  return `${head}\n[… ${text.length - head.length - tail.length} characters omitted …]\n${tail}`
}

const partsOf = (result: CallToolResult): Part[] => {
  const content = (result as { content?: unknown }).content
  return Array.isArray(content) ? (content as Part[]) : []
}

/** The answer's first image the model can be shown: its bytes, by what they are (not the declared mimeType). */
function firstImage(
  result: CallToolResult,
): { part: Part; data: Uint8Array; mediaType: ImageMediaType } | null {
  for (const part of partsOf(result)) {
    if (part.type !== 'image' || typeof part.data !== 'string') continue
    const data = new Uint8Array(Buffer.from(part.data, 'base64'))
    const mediaType = sniffImageType(data)
    if (mediaType) return { part, data, mediaType }
  }
  return null
}

/** The answer's image shown to the model, if any (see `resultText`). */
export function resultImage(result: CallToolResult): { data: Uint8Array; mediaType: ImageMediaType } | null {
  const found = firstImage(result)
  return found ? { data: found.data, mediaType: found.mediaType } : null
}

/** The answer as text for the model. */
export function resultText(result: CallToolResult): string {
  const shown = firstImage(result)?.part ?? null
  const parts = partsOf(result).map((p) => partText(p, shown))
  const structured = (result as { structuredContent?: unknown }).structuredContent
  if (parts.length === 0 && structured !== undefined) parts.push(JSON.stringify(structured, null, 2))
  const text = parts.join('\n').trim()
  return clip(text === '' ? '(the tool returned nothing)' : text)
}
