// How many MCP tools, and how much of their descriptions and schemas, a prompt carries. Every tool goes into every
// request: a server that lists 3,000 tools made an 8 MB first prompt, and providers refuse more than 128 tools in a
// request (OpenAI) anyway. Each server gets a share, the task a total; what does not fit is left out and said.
export interface ToolCaps {
  perServer: number
  perServerBytes: number
  total: number
  totalBytes: number
  /** One tool larger than this is left out on its own (its neighbours may still fit). */
  perToolBytes: number
}

/** Room for Ralph's own tools under the 128 a request may carry. */
export const TOOL_CAPS: ToolCaps = {
  perServer: 64,
  perServerBytes: 64 * 1024,
  total: 100,
  totalBytes: 256 * 1024,
  perToolBytes: 16 * 1024,
}

interface SizedTool {
  name: string
  description: string
  inputSchema: unknown
}

export interface CappedServer<T> {
  kept: T[]
  /** How many were left out, and why in words; '' when none was. */
  note: string
}

const kb = (bytes: number) => `${Math.round(bytes / 1024)} KB`

const toolBytes = (t: SizedTool) =>
  Buffer.byteLength(JSON.stringify({ name: t.name, description: t.description, inputSchema: t.inputSchema }))

/** Each server's tools that fit, in the servers' and their tools' own order (the first ones listed are kept). */
export function capTools<T extends SizedTool>(
  servers: readonly { tools: readonly T[] }[],
  caps: ToolCaps = TOOL_CAPS,
): CappedServer<T>[] {
  let count = 0
  let bytes = 0
  return servers.map(({ tools }) => {
    const kept: T[] = []
    let own = 0
    const why = new Set<string>()
    for (const tool of tools) {
      const size = toolBytes(tool)
      if (size > caps.perToolBytes) why.add(`a tool may take ${kb(caps.perToolBytes)}`)
      else if (kept.length >= caps.perServer || own + size > caps.perServerBytes)
        why.add(`a server may offer ${caps.perServer} tools and ${kb(caps.perServerBytes)}`)
      else if (count >= caps.total || bytes + size > caps.totalBytes)
        why.add(`a task may offer ${caps.total} MCP tools and ${kb(caps.totalBytes)} in all`)
      else {
        kept.push(tool)
        own += size
        count += 1
        bytes += size
      }
    }
    const dropped = tools.length - kept.length
    const note =
      dropped === 0
        ? ''
        : `${dropped} of its ${tools.length} tools left out of the model's prompt (${[...why].join('; ')}); ` +
          'the first ones it listed are offered'
    return { kept, note }
  })
}
