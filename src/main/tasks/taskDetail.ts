import { parseJsonOr } from '../../shared/json'
import type { IterationDetailDto, IterationEntryDto, ToolCallDetailDto } from '../../shared/api/chat'
import { type JournalRow, type Db, TaskDetailRepo, type ToolRow } from '../store'

/** A tool call's arguments are shown up to this many characters; the card says how many more there were. */
export const MAX_ARGS_CHARS = 2_000
export const MAX_ITERATIONS = 100

/** Whether a run belongs to the project in that folder (a card may only read its own project's runs). */
export function runInProject(db: Db, runId: number, projectPath: string): boolean {
  return new TaskDetailRepo(db).projectPathOf(runId) === projectPath
}

/**
 * A run's iterations as the card's expanded view shows them: the loop's rows (iterations, tool calls, gate
 * results) with the journal's text, tool answers and notices put back in the order they happened.
 */
export function taskDetail(
  db: Db,
  runId: number,
  journal: JournalRow[],
): { iterations: IterationDetailDto[]; earlier: number } {
  const repo = new TaskDetailRepo(db)
  const all = repo.iterations(runId)
  // A very long task answers with its latest iterations: what a reader opens a card for, in a bounded reply.
  const iterations = all.slice(-MAX_ITERATIONS)
  const from = iterations[0]?.number ?? 0
  const tools = repo.toolCalls(runId, from)
  const gates = repo.gateResults(runId)

  const byIteration = <T extends { iteration: number }>(rows: T[]) => {
    const map = new Map<number, T[]>()
    for (const row of rows) {
      const list = map.get(row.iteration)
      if (list) list.push(row)
      else map.set(row.iteration, [row])
    }
    return map
  }
  const toolsOf = byIteration(tools)
  const notesOf = byIteration(journal)
  const gatesOf = byIteration(gates)
  const last = iterations[iterations.length - 1]?.number
  const shown = iterations.map((it) => ({
    number: it.number,
    phase: it.phase,
    outcome: it.outcome,
    startedAt: it.started_at,
    endedAt: it.ended_at,
    entries: interleave(toolsOf.get(it.number) ?? [], notesOf.get(it.number) ?? []),
    // Gates checked after the last iteration (or before the first) belong with the nearest one shown.
    gates: [
      ...(it.number === all[0]?.number ? gates.filter((g) => g.iteration < it.number) : []),
      ...(gatesOf.get(it.number) ?? []),
      ...(it.number === last ? gates.filter((g) => g.iteration > it.number) : []),
    ],
  }))
  return { iterations: shown, earlier: all.length - iterations.length }
}

/** The iteration's tool calls in their order, with the journal's entries where they happened between them. */
function interleave(tools: ToolRow[], notes: JournalRow[]): IterationEntryDto[] {
  const out: IterationEntryDto[] = []
  const answers = new Map(notes.filter((n) => n.kind === 'tool').map((n) => [n.pos, n.text]))
  let next = 0
  const callsUpTo = (seq: number) => {
    while (next < tools.length && tools[next]!.seq <= seq) {
      const row = tools[next++]!
      out.push({ kind: 'tool', call: toolCall(row, answers.get(row.seq) ?? null) })
    }
  }
  for (const note of notes) {
    if (note.kind === 'tool') continue
    // A note at pos p came after p tool calls.
    callsUpTo(note.pos)
    out.push(note.kind === 'text' ? { kind: 'text', text: note.text } : { kind: note.kind, text: note.text })
  }
  callsUpTo(Number.POSITIVE_INFINITY)
  return out
}

const NOT_JSON = Symbol('not JSON')

function toolCall(row: ToolRow, answer: string | null): ToolCallDetailDto {
  let args = row.args_json
  let path: string | null = null
  // Arguments that are not JSON are stored as the model sent them: shown as they are.
  const parsed = parseJsonOr(row.args_json, NOT_JSON) as Record<string, unknown> | typeof NOT_JSON
  if (parsed !== NOT_JSON) {
    if (typeof parsed.path === 'string') path = parsed.path
    args = JSON.stringify(parsed, null, 2)
  }
  return {
    seq: row.seq,
    name: row.name,
    path,
    ok: row.ok === 1,
    durationMs: row.duration_ms,
    args: args.slice(0, MAX_ARGS_CHARS),
    argsOmitted: Math.max(0, args.length - MAX_ARGS_CHARS),
    result: row.ok === 1 ? answer : (row.error ?? answer),
    resultBytes: row.result_bytes,
  }
}
