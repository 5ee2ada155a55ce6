// Tool names as the model sees them: `mcp__<server>__<tool>` (DESIGN.md §9), in the character set every provider
// accepts for a tool name (letters, digits, _ and -, at most 64 characters).
import { isMcpToolName, MCP_TOOL_PREFIX } from '../../shared/mcpTools'

export { isMcpToolName }
const MCP_PREFIX = MCP_TOOL_PREFIX
const MAX_NAME = 64

/** A server or tool name reduced to [A-Za-z0-9_-]: anything else becomes "_". */
export function sanitiseNamePart(name: string): string {
  const clean = name.replace(/[^A-Za-z0-9_-]/g, '_')
  return clean === '' ? '_' : clean
}

/**
 * The model's name for a server's tool; long names are cut to the limit. A "__" inside the server's name becomes "_",
 * so the first "__" after the prefix always ends the server part.
 */
export function mcpToolName(server: string, tool: string): string {
  const serverPart = sanitiseNamePart(server).replace(/_{2,}/g, '_')
  return `${MCP_PREFIX}${serverPart}__${sanitiseNamePart(tool)}`.slice(0, MAX_NAME)
}
