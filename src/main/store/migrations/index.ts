import type { Migration } from './types'
import { foundation } from './001_foundation'
import { snapshots } from './002_snapshots'
import { loop } from './003_loop'
import { brainstorm } from './004_brainstorm'
import { conversations } from './005_conversations'
import { chatQueue } from './006_chat_queue'
import { receipts } from './007_receipts'
import { cardRequirements } from './008_card_requirements'
import { verdicts } from './009_verdicts'
import { snapshotMirror } from './010_snapshot_mirror'
import { chatRecords } from './011_chat_records'
import { userCommits } from './012_user_commits'
import { escalations } from './013_escalations'
import { repoTrust } from './014_repo_trust'
import { usageCache } from './015_usage_cache'
import { snapshotOwnFiles } from './016_snapshot_own_files'
import { mcpServerNotes } from './017_mcp_server_notes'
import { usageCache1h } from './018_usage_cache_1h'
import { mcpTrust } from './019_mcp_trust'
import { runCaps } from './020_run_caps'
import { runLane } from './021_run_lane'

// Later issues append here: conversations, messages, runs, iterations, tool calls, usage, brainstorm sessions.
export const migrations: readonly Migration[] = [
  foundation,
  snapshots,
  loop,
  brainstorm,
  conversations,
  chatQueue,
  receipts,
  cardRequirements,
  verdicts,
  snapshotMirror,
  chatRecords,
  userCommits,
  escalations,
  repoTrust,
  usageCache,
  snapshotOwnFiles,
  mcpServerNotes,
  usageCache1h,
  mcpTrust,
  runCaps,
  runLane,
]
