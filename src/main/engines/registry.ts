// Each agent engine's adapter by id.
import { claudeCodeAdapter } from './claudeCode'
import { codexAdapter } from './codex'
import type { AgentEngineId, EngineAdapter } from './types'

const ADAPTERS: Record<AgentEngineId, EngineAdapter> = {
  'claude-code': claudeCodeAdapter,
  codex: codexAdapter,
}

export function engineAdapter(id: AgentEngineId): EngineAdapter {
  return ADAPTERS[id]
}
