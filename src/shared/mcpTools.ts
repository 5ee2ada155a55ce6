// MCP tool names as the model sees them (DESIGN.md §9): `mcp__<server>__<tool>`. Shared so the renderer can mark a
// stored tool call as an MCP call (outside the snapshots) without the core.
export const MCP_TOOL_PREFIX = 'mcp__'

export function isMcpToolName(name: string): boolean {
  return name.startsWith(MCP_TOOL_PREFIX)
}

/** The server and tool parts of an MCP tool name (as sanitised), or null for Ralph's own tools. */
export function splitMcpToolName(name: string): { server: string; tool: string } | null {
  if (!isMcpToolName(name)) return null
  const rest = name.slice(MCP_TOOL_PREFIX.length)
  const at = rest.indexOf('__')
  return at <= 0 ? null : { server: rest.slice(0, at), tool: rest.slice(at + 2) }
}
