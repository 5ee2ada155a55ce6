// The public face of this module: agent engines (DESIGN.md §9) — the user's own Claude Code or Codex run as the
// loop's iteration engine inside the sandbox, with Ralph's tools offered over MCP.
export {
  ENGINE_IDS,
  type AgentEngineId,
  type EngineAdapter,
  type EngineEvent,
  type EngineInstall,
  type EngineLaunch,
  type EngineSessionSpec,
  type EngineStreamParser,
  type EngineToolCall,
  type EngineId,
} from './types'
export { ENGINE_CLIS, versionBelow, type EngineCli } from './catalog'
export { detectEngine, detectEngines, engineBinary, findOnPath, locateEngine, searchDirs } from './detect'
export {
  engineSettingShape,
  parseEngineId,
  readProjectEngine,
  setProjectEngine,
  type ProjectEngine,
} from './projectEngine'
export { engineAdapter } from './registry'
export { runEngineSession, type EngineSessionInput, type EngineSessionResult } from './session'
export {
  startRalphToolsServer,
  ENGINE_SNAPSHOT_ACTIONS,
  RALPH_TOOL_NAMES,
  RALPH_TOOLS_SERVER_NAME,
  socketPathLimit,
  type RalphToolCall,
  type RalphToolName,
  type RalphToolsOptions,
  type RalphToolsServer,
} from './ralphTools'
export { claudeCodeAdapter } from './claudeCode'
export { codexAdapter } from './codex'
