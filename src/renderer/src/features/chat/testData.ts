import type { ChatMessageDto, TaskCardDto } from '../../../../shared/api/chat'

/** Cards and messages as the core returns them, for the chat's component tests. */
export const card = (patch: Partial<TaskCardDto> = {}): TaskCardDto => ({
  task: 1,
  runId: 1,
  title: 'Greeting',
  type: 'bugfix',
  status: 'complete',
  reason: null,
  detail: null,
  outcome: 'The heading now says Hello, world.',
  request: null,
  requirements: [
    { marker: 'FIX', description: 'the heading greets the world', count: null },
    { marker: 'ADD', description: 'two night drinks', count: 2 },
  ],
  preserve: ['the 8 existing drinks'],
  iterations: 2,
  startedAt: 1_000,
  endedAt: 66_000,
  cost: { usd: 0.0123, inputTokens: 1500, outputTokens: 300, calls: 3 },
  toolCalls: [
    { iteration: 1, name: 'edit_file', path: 'index.html', ok: true },
    { iteration: 2, name: 'mark_complete', path: null, ok: true },
  ],
  toolCallCount: 2,
  gates: [{ iteration: 2, attempt: 1, gate: 'changes-made', severity: 'pass', message: '1 file changed' }],
  ...patch,
})

let nextId = 1
export const message = (patch: Partial<ChatMessageDto> = {}): ChatMessageDto => ({
  id: nextId++,
  conversationId: 1,
  kind: 'user',
  mode: 'task',
  text: 'the heading should greet the world',
  error: null,
  createdAt: 0,
  card: null,
  ...patch,
})
