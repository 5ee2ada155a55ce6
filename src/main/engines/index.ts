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
export { codexAdapter } from './codex'
