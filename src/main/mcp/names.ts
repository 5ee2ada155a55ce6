// Tool names as the model sees them: `mcp__<server>__<tool>` (DESIGN.md §9), in the character set every provider
// accepts for a tool name (letters, digits, _ and -, at most 64 characters).
export const MCP_PREFIX = 'mcp__'
const MAX_NAME = 64

/** A server or tool name reduced to [A-Za-z0-9_-]: anything else becomes "_". */
export function sanitiseNamePart(name: string): string {
  const clean = name.replace(/[^A-Za-z0-9_-]/g, '_')
  return clean === '' ? '_' : clean
}

/** The model's name for a server's tool; long names are cut to the limit. */
export function mcpToolName(server: string, tool: string): string {
  return `${MCP_PREFIX}${sanitiseNamePart(server)}__${sanitiseNamePart(tool)}`.slice(0, MAX_NAME)
}

export function isMcpToolName(name: string): boolean {
  return name.startsWith(MCP_PREFIX)
}
