// Ralph's own tools (snapshot list/diff/status, plan, queue, mark_complete) served over MCP to an engine session.
export {
  startRalphToolsServer,
  RALPH_TOOLS_SERVER_NAME,
  type RalphToolCall,
  type RalphToolsOptions,
  type RalphToolsServer,
} from './server'
export { ENGINE_SNAPSHOT_ACTIONS, RALPH_TOOL_NAMES, type RalphToolName } from './tools'
export { socketPathLimit } from './relay'
