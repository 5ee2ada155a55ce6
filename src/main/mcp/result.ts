// What the model reads of an MCP tool's answer: its text parts, a note for each part it cannot read as text, and
// structured content as JSON; long answers keep their beginning and end.
import type { CallToolResult } from '@ai-sdk/mcp'

export const MCP_OUTPUT_MAX_CHARS = 20_000

interface Part {
  type: string
  text?: string
  mimeType?: string
  uri?: string
  resource?: { uri: string; text?: string }
}

function partText(part: Part): string {
  switch (part.type) {
    case 'text':
      return part.text ?? ''
    case 'image':
      return `[image (${part.mimeType}): images from MCP tools are not shown to the model yet]`
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

/** The answer as text for the model. */
export function resultText(result: CallToolResult): string {
  const content = (result as { content?: unknown }).content
  const parts = (Array.isArray(content) ? (content as Part[]) : []).map(partText)
  const structured = (result as { structuredContent?: unknown }).structuredContent
  if (parts.length === 0 && structured !== undefined) parts.push(JSON.stringify(structured, null, 2))
  const text = parts.join('\n').trim()
  return clip(text === '' ? '(the tool returned nothing)' : text)
}
