// The public face of this module: other modules import it from here, never from its files.
export {
  BrainstormRepo,
  type BrainstormSessionRow,
  type StoredIdea,
  type StoredMessage,
} from './brainstormRepo'
export { type JournalKind, type JournalRow } from './chatRecordsRepo'
export { type Db } from './database'
export { EscalationsRepo } from './escalationsRepo'
export { McpApprovalsRepo, type McpApproval } from './mcpApprovalsRepo'
export { McpNotesRepo, type McpServerNote } from './mcpNotesRepo'
export { ProjectsRepo } from './projectsRepo'
export { RepoTrustRepo, type RepoTrustRow } from './repoTrustRepo'
export { type RunRow, RunsRepo, type UsageRecord } from './runsRepo'
export { SecretsRepo } from './secretsRepo'
export { SettingsRepo } from './settingsRepo'
export { TaskDetailRepo, type ToolRow } from './taskDetailRepo'
export { VerdictsRepo } from './verdictsRepo'
