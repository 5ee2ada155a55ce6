import { isMcpToolName } from '../../../../shared/mcpTools'
import { Badge, Tooltip } from '../../ui'

export const MCP_MARK_TEXT = 'outside the snapshot'
export const MCP_MARK_HINT = 'A rollback cannot undo what an MCP server did'

/**
 * Marks a tool call made to an MCP server (`mcp__<server>__<tool>`): what the server did happened outside Ralph's
 * snapshots. Nothing for Ralph's own tools. The hint is on hover and focus, and read out with the mark. Inside
 * another control (a disclosure's button) pass `focusable={false}`: the hint is then read with the mark only.
 */
export function McpCallMark({ toolName, focusable = true }: { toolName: string; focusable?: boolean }) {
  if (!isMcpToolName(toolName)) return null
  const badge = (
    <Badge tone="warn" className="mcp-call-mark" tabIndex={focusable ? 0 : undefined}>
      {MCP_MARK_TEXT}
      <span className="visually-hidden">{`: ${MCP_MARK_HINT}`}</span>
    </Badge>
  )
  return focusable ? <Tooltip content={MCP_MARK_HINT}>{badge}</Tooltip> : badge
}
