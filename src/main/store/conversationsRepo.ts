import { parseJsonOr } from '../../shared/json'
import {
  taskCardStatusSchema,
  type ChatMessageDto,
  type ChatMode,
  type ConversationDto,
  type TaskCardDto,
} from '../../shared/api/chat'
import type { Db } from './database'

export type MessageKind = ChatMessageDto['kind']

interface MessageRow {
  id: number
  conversation_id: number
  kind: MessageKind
  mode: ChatMode | null
  text: string
  task: number | null
  run_id: number | null
  outcome: string | null
  error: string | null
  created_at: number
  queued: number
  requirements_json: string | null
}

interface RunRow {
  id: number
  task: number
  title: string | null
  type: string | null
  status: string
  reason: string | null
  detail: string | null
  iterations: number
  started_at: number
  ended_at: number | null
  /** Migration 020: the engine session's login, the task's caps. */
  engine_login: string | null
  cost_cap_usd: number | null
  token_cap: number | null
}

const MAX_TOOL_CALLS = 50
const DEFAULT_PAGE = 50

/**
 * Conversations and their messages (migration 005). A task card stores only its link to the run; what it shows
 * (status, iterations, tool calls, gates, cost) is read from the loop's tables, so a reload shows what the loop
 * recorded, never a copy that could drift.
 */
export class ConversationsRepo {
  constructor(private readonly db: Db) {}

  /** The project's current conversation: its newest, created on first use. */
  current(projectId: number, now = Date.now()): ConversationDto {
    const row = this.db
      .prepare<
        [number],
        { id: number }
      >('SELECT id FROM conversations WHERE project_id = ? ORDER BY id DESC LIMIT 1')
      .get(projectId)
    return this.get(row ? row.id : this.create(projectId, now))!
  }

  /** A new current conversation, unless the current one is still empty (two blank chats help nobody). */
  startNew(projectId: number, now = Date.now()): ConversationDto {
    const current = this.current(projectId, now)
    if (current.messageCount === 0) return current
    return this.get(this.create(projectId, now))!
  }

  list(projectId: number): ConversationDto[] {
    return this.db
      .prepare<[number], { id: number }>('SELECT id FROM conversations WHERE project_id = ? ORDER BY id DESC')
      .all(projectId)
      .map((r) => this.get(r.id)!)
  }

  get(conversationId: number): ConversationDto | null {
    const row = this.db
      .prepare<
        [number],
        {
          id: number
          project_id: number
          title: string | null
          created_at: number
          updated_at: number
          n: number
        }
      >(
        `SELECT c.*, (SELECT COUNT(*) FROM messages m WHERE m.conversation_id = c.id) AS n
         FROM conversations c WHERE c.id = ?`,
      )
      .get(conversationId)
    if (!row) return null
    const newest = this.db
      .prepare<[number], { id: number }>('SELECT MAX(id) AS id FROM conversations WHERE project_id = ?')
      .get(row.project_id)
    return {
      id: row.id,
      projectId: row.project_id,
      title: row.title ?? 'New conversation',
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      messageCount: row.n,
      current: newest?.id === row.id,
    }
  }

  private create(projectId: number, now: number): number {
    return Number(
      this.db
        .prepare('INSERT INTO conversations (project_id, created_at, updated_at) VALUES (?, ?, ?)')
        .run(projectId, now, now).lastInsertRowid,
    )
  }

  add(
    conversationId: number,
    message: {
      kind: MessageKind
      mode?: ChatMode | null
      text?: string
      error?: string | null
      queued?: boolean
    },
    now = Date.now(),
  ): number {
    return this.db.transaction(() => {
      const id = Number(
        this.db
          .prepare(
            'INSERT INTO messages (conversation_id, kind, mode, text, error, created_at, queued) VALUES (?, ?, ?, ?, ?, ?, ?)',
          )
          .run(
            conversationId,
            message.kind,
            message.mode ?? null,
            message.text ?? '',
            message.error ?? null,
            now,
            message.queued ? 1 : 0,
          ).lastInsertRowid,
      )
      // The first user message names the conversation in the list of past ones.
      this.db
        .prepare(
          `UPDATE conversations SET updated_at = ?,
             title = COALESCE(title, CASE WHEN ? = 'user' THEN substr(?, 1, 80) END) WHERE id = ?`,
        )
        .run(now, message.kind, message.text ?? '', conversationId)
      return id
    })()
  }

  update(
    messageId: number,
    patch: Partial<{
      text: string
      task: number
      runId: number
      outcome: string
      error: string | null
      queued: 0
      requirements: string
    }>,
  ): void {
    const columns = {
      text: 'text',
      task: 'task',
      runId: 'run_id',
      outcome: 'outcome',
      error: 'error',
      queued: 'queued',
      requirements: 'requirements_json',
    } as const
    const entries = Object.entries(patch).filter(([, v]) => v !== undefined) as [
      keyof typeof columns,
      unknown,
    ][]
    if (!entries.length) return
    this.db
      .prepare(`UPDATE messages SET ${entries.map(([k]) => `${columns[k]} = ?`).join(', ')} WHERE id = ?`)
      .run(...entries.map(([, v]) => v as string | number | null), messageId)
  }

  /** Task cards that never reached their run (their host died while starting them) say so. */
  cutShortStarts(error: string): number {
    return this.db
      .prepare(
        `UPDATE messages SET error = ? WHERE kind = 'task' AND run_id IS NULL AND queued = 0 AND error IS NULL`,
      )
      .run(error).changes
  }

  /** Ask answers still empty (their host died while writing them) say so instead of waiting for ever. */
  cutShortAnswers(error: string): number {
    return this.db
      .prepare(`UPDATE messages SET error = ? WHERE kind = 'answer' AND text = '' AND error IS NULL`)
      .run(error).changes
  }

  remove(messageIds: number[]): void {
    const del = this.db.prepare('DELETE FROM messages WHERE id = ?')
    this.db.transaction(() => messageIds.forEach((id) => del.run(id)))()
  }

  /** The project's queued task cards, oldest first, with the request each will start with. */
  queued(projectId: number): { id: number; conversationId: number; request: string }[] {
    return this.db
      .prepare<[number], { id: number; conversation_id: number; text: string }>(
        `SELECT m.id, m.conversation_id, m.text FROM messages m JOIN conversations c ON c.id = m.conversation_id
         WHERE c.project_id = ? AND m.queued = 1 ORDER BY m.id`,
      )
      .all(projectId)
      .map((r) => ({ id: r.id, conversationId: r.conversation_id, request: r.text }))
  }

  /** Removes a queued card and the user message that asked for it; false if it is not queued (any more). */
  removeQueued(projectId: number, cardId: number): boolean {
    const card = this.queued(projectId).find((q) => q.id === cardId)
    if (!card) return false
    const asked = this.db
      .prepare<
        [number, number],
        { id: number }
      >(`SELECT id FROM messages WHERE conversation_id = ? AND id < ? AND kind = 'user' ORDER BY id DESC LIMIT 1`)
      .get(card.conversationId, cardId)
    this.remove(asked ? [asked.id, cardId] : [cardId])
    return true
  }

  conversationOf(messageId: number): number | null {
    return (
      this.db
        .prepare<[number], { conversation_id: number }>('SELECT conversation_id FROM messages WHERE id = ?')
        .get(messageId)?.conversation_id ?? null
    )
  }

  /** A card's stored parse (requirements, scope, questions) as `update`'s `requirements` wrote it. */
  requirementsOf(messageId: number): string | null {
    const row = this.db
      .prepare<
        [number],
        { requirements_json: string | null }
      >('SELECT requirements_json FROM messages WHERE id = ?')
      .get(messageId)
    return row?.requirements_json ?? null
  }

  /** The card already showing a run in the conversation (a clarification answer continues that card). */
  cardForRun(conversationId: number, runId: number): number | null {
    return (
      this.db
        .prepare<
          [number, number],
          { id: number }
        >(`SELECT id FROM messages WHERE conversation_id = ? AND kind = 'task' AND run_id = ? ORDER BY id LIMIT 1`)
        .get(conversationId, runId)?.id ?? null
    )
  }

  /** The newest run of a task in a project folder: the one a card that just got its number belongs to. */
  latestRunId(projectPath: string, task: number): number | null {
    return (
      this.db
        .prepare<
          [string, number],
          { id: number }
        >('SELECT id FROM runs WHERE project_path = ? AND task = ? ORDER BY id DESC LIMIT 1')
        .get(projectPath, task)?.id ?? null
    )
  }

  /** One page of a conversation, newest first; `nextBefore` is the cursor for the older page (null: no more). */
  history(
    conversationId: number,
    options: { before?: number; limit?: number } = {},
  ): { messages: ChatMessageDto[]; nextBefore: number | null } {
    const limit = options.limit ?? DEFAULT_PAGE
    const rows = this.db
      .prepare<
        [number, number, number],
        MessageRow
      >('SELECT * FROM messages WHERE conversation_id = ? AND id < ? ORDER BY id DESC LIMIT ?')
      .all(conversationId, options.before ?? Number.MAX_SAFE_INTEGER, limit + 1)
    const page = rows.slice(0, limit)
    return {
      messages: page.map((row) => this.toMessage(row)),
      nextBefore: rows.length > limit ? page[page.length - 1]!.id : null,
    }
  }

  private toMessage(row: MessageRow): ChatMessageDto {
    return {
      id: row.id,
      conversationId: row.conversation_id,
      kind: row.kind,
      mode: row.mode,
      text: row.text,
      error: row.error,
      createdAt: row.created_at,
      card: row.kind === 'task' ? this.card(row) : null,
    }
  }

  private card(row: MessageRow): TaskCardDto {
    const run = row.run_id
      ? this.db.prepare<[number], RunRow>('SELECT * FROM runs WHERE id = ?').get(row.run_id)
      : undefined
    const empty: TaskCardDto = {
      task: row.task,
      runId: null,
      title: null,
      type: null,
      // Before its run row exists a card is queued, starting (the loop is reading the request), or failed to start.
      status: row.queued ? 'queued' : row.error === null ? 'starting' : 'failed',
      reason: null,
      detail: row.error,
      outcome: row.outcome,
      request: row.queued ? row.text : null,
      ...parsedRequest(row.requirements_json),
      iterations: 0,
      startedAt: null,
      endedAt: null,
      cost: { usd: 0, inputTokens: 0, outputTokens: 0, calls: 0 },
      toolCalls: [],
      toolCallCount: 0,
      gates: [],
    }
    if (!run) return empty
    const cost = this.db
      .prepare<
        [number],
        { usd: number | null; i: number | null; o: number | null; r: number | null; n: number }
      >(
        `SELECT SUM(cost_usd) AS usd, SUM(input_tokens) AS i, SUM(output_tokens) AS o, SUM(cache_read_tokens) AS r,
           COUNT(*) AS n FROM llm_usage WHERE run_id = ?`,
      )
      .get(run.id)!
    const toolCalls = this.db
      .prepare<[number, number], { iteration: number; name: string; args_json: string; ok: number }>(
        `SELECT * FROM (
           SELECT i.number AS iteration, t.name, t.args_json, t.ok, i.number * 100000 + t.seq AS k
           FROM tool_calls t JOIN iterations i ON i.id = t.iteration_id WHERE i.run_id = ?
           ORDER BY k DESC LIMIT ?
         ) ORDER BY k`,
      )
      .all(run.id, MAX_TOOL_CALLS)
    const toolCallCount = this.db
      .prepare<
        [number],
        { n: number }
      >('SELECT COUNT(*) AS n FROM tool_calls t JOIN iterations i ON i.id = t.iteration_id WHERE i.run_id = ?')
      .get(run.id)!.n
    const gates = this.db
      .prepare<
        [number],
        TaskCardDto['gates'][number]
      >('SELECT iteration, attempt, gate, severity, message FROM gate_results WHERE run_id = ? ORDER BY id')
      .all(run.id)
    const models = this.db
      .prepare<[number], { provider: string; model: string; usd: number | null; calls: number }>(
        `SELECT provider, model, SUM(cost_usd) AS usd, COUNT(*) AS calls FROM llm_usage WHERE run_id = ?
           GROUP BY provider, model ORDER BY MIN(id)`,
      )
      .all(run.id)
      .map((m) => ({ ...m, usd: m.usd ?? 0 }))
    const lastIteration =
      this.db
        .prepare<
          [number],
          { number: number; phase: string }
        >('SELECT number, phase FROM iterations WHERE run_id = ? ORDER BY number DESC LIMIT 1')
        .get(run.id) ?? null
    return {
      ...empty,
      lastIteration,
      task: run.task,
      runId: run.id,
      title: run.title,
      type: run.type,
      status: cardStatus(run.status),
      reason: run.reason,
      detail: run.detail,
      iterations: run.iterations,
      startedAt: run.started_at,
      endedAt: run.ended_at,
      cost: {
        usd: cost.usd ?? 0,
        inputTokens: cost.i ?? 0,
        outputTokens: cost.o ?? 0,
        cacheReadTokens: cost.r ?? 0,
        calls: cost.n,
        models,
      },
      toolCalls: toolCalls.map((t) => ({
        iteration: t.iteration,
        name: t.name,
        path: pathOf(t.args_json),
        ok: t.ok === 1,
      })),
      toolCallCount,
      gates,
      engineLogin: run.engine_login,
      ...(run.cost_cap_usd !== null || run.token_cap !== null
        ? {
            caps: {
              ...(run.cost_cap_usd !== null ? { usd: run.cost_cap_usd } : {}),
              ...(run.token_cap !== null ? { tokens: run.token_cap } : {}),
            },
          }
        : {}),
    }
  }
}

// The statuses a run row can carry; `queued` and `starting` are the card's own states before the run exists.
const statuses = new Set<TaskCardDto['status']>(
  taskCardStatusSchema.options.filter((s) => s !== 'starting' && s !== 'queued'),
)
const cardStatus = (status: string): TaskCardDto['status'] =>
  statuses.has(status as TaskCardDto['status']) ? (status as TaskCardDto['status']) : 'failed'

type ParsedRequest = Pick<TaskCardDto, 'requirements' | 'preserve' | 'questions'>

/**
 * A card's stored requirements, PRESERVE scope and the questions its task asked; none before the parser ran (or
 * from an older version).
 */
export function parsedRequest(json: string | null): ParsedRequest {
  const value = (json ? parseJsonOr(json, {}) : {}) as Partial<ParsedRequest>
  return {
    requirements: value.requirements ?? [],
    preserve: value.preserve ?? [],
    ...(value.questions?.length ? { questions: value.questions } : {}),
  }
}

/** The file a tool call was about, for the card's compact line. */
export function pathOf(argsJson: string): string | null {
  const args = parseJsonOr(argsJson, null) as { path?: unknown; changes?: unknown } | null
  if (typeof args?.path === 'string') return args.path
  // An engine's patch (Codex's apply_patch) names its files in `changes`: the first, and how many more.
  const paths = (Array.isArray(args?.changes) ? (args.changes as { path?: unknown }[]) : [])
    .map((c) => c?.path)
    .filter((p): p is string => typeof p === 'string')
  if (paths.length === 0) return null
  return paths.length === 1 ? paths[0]! : `${paths[0]} (+${paths.length - 1} more)`
}
