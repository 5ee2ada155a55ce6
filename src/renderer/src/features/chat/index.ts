// The chat (issue 12): the conversation, task cards and the composer beside the side panel.
export { Chat } from './Chat'
// The task status words (DESIGN.md §15), which the project header's badge speaks too.
export { statusWord } from './format'
// The mark on an MCP tool call: outside the snapshots, which a rollback cannot undo (#27).
export { McpCallMark } from './McpCallMark'
