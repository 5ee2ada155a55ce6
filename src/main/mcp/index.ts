// The public face of this module: MCP servers (DESIGN.md §9) — their declarations (`.mcp.json` and the app-level
// list), the per-project switches, and the session that starts them for a task and runs their tools.
export {
  MCP_FILE,
  parseMcpJson,
  parseServerEntry,
  readProjectServers,
  serverLocation,
  type ConfigProblem,
  type DeclaredServer,
  type ParsedServers,
  type ServerConfig,
  type ServerOrigin,
} from './config'
export { MCP_SETUP_TIMEOUT_MS, connectServer, type Connection, type ServerTool } from './connect'
export { isMcpToolName, mcpToolName, sanitiseNamePart } from './names'
export { placeholderNames, resolvePlaceholders, type SecretLookup } from './placeholders'
export {
  McpSession,
  type McpCallResult,
  type McpModelTool,
  type McpReport,
  type ServerStart,
} from './session'
export { mcpCardReport } from './cardReport'
export { AppMcpServers } from './appServers'
export {
  canonicalConfig,
  serverFingerprint,
  waitingMessage,
  ProjectApprovals,
  type ApprovalState,
} from './approval'
export { approveServer, revokeServer } from './approve'
export { listServers, serversToStart, type ListedServer, type ServerList } from './sources'
export { disabledServers, setServerEnabled } from './switches'
