import type { ModelConfig } from '../../llm/createModel'
import type { TaskRunner } from '../../loop/taskRunner'
import type { AppMcpServers } from '../../mcp'
import type { ChatRecordsRepo } from '../../store/chatRecordsRepo'
import type { ConversationsRepo } from '../../store/conversationsRepo'
import type { Db } from '../../store/database'
import type { Logger } from '../../workspace/logFile'
import type { EventBus } from '../eventBus'

export interface ChatDeps {
  db: Db
  runner: TaskRunner
  events: EventBus
  modelConfig(): ModelConfig
  /** The folder of a registered project, or null if it was removed. */
  projectPath(projectId: number): string | null
  /** A queue build holds the project's task lock: a task message is refused with a sentence saying so. */
  building(projectId: number): boolean
  logger: Logger
  /** The app-level MCP servers and the vault's secrets, for Ask mode's read-only MCP tools. */
  mcpServers?(): AppMcpServers | null
}

/** What every part of the chat shares: its deps, its two repositories and the `chat.changed` announcement. */
export interface ChatContext {
  deps: ChatDeps
  repo: ConversationsRepo
  records: ChatRecordsRepo
  changed(projectId: number, conversationId: number): void
}

export interface ProjectFolder {
  id: number
  path: string
}

/** An error's own sentence, for a card or an answer that says why it failed. */
export const messageOf = (err: unknown): string => (err as Error).message || String(err)
