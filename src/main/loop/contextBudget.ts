import type { ModelMessage } from 'ai'
import { MIN_CONTEXT_WINDOW } from '../llm'
import { estimateTokens } from './prompts'

/** Share of the window an iteration may fill before the harness ends it with a checkpoint (seed 003's PreCompact). */
export const CHECKPOINT_RATIO = 0.8
/** What a useful next step needs at least; below this the iteration checkpoints instead of asking for more. */
const MIN_WORKING_ROOM = 512
/** Every truncated tool result keeps at least this much, so the model sees what it got and the note. */
const MIN_RESULT_CHARS = 400
/** About the length of the truncation note, which counts against a result's share. */
const NOTE_CHARS = 260

/**
 * One task's context budget. The window can shrink during the task: a provider that refuses a request for its
 * length has told us its real window is smaller than the table says.
 */
export class ContextBudget {
  constructor(
    private windowTokens: number,
    readonly ratio = CHECKPOINT_RATIO,
  ) {}

  get window(): number {
    return this.windowTokens
  }

  get threshold(): number {
    return Math.floor(this.windowTokens * this.ratio)
  }

  /** After a context-length error at `usedTokens` (our estimate), trust the provider over the table. */
  learnOverflow(usedTokens: number): void {
    const learned = Math.max(MIN_CONTEXT_WINDOW, Math.floor(usedTokens * 0.9))
    this.windowTokens = Math.min(this.windowTokens, learned)
  }

  /** Whether an iteration at `usedTokens` must stop and checkpoint. */
  full(usedTokens: number): boolean {
    return usedTokens + MIN_WORKING_ROOM >= this.threshold
  }

  /** Room left for the model's checkpoint answer (prompt + output) within the whole window. */
  roomForCheckpoint(usedTokens: number, needed: number): boolean {
    return usedTokens + needed <= this.windowTokens
  }
}

/** An image part counts as this many characters (~1,600 tokens: Anthropic's cost of a full-size image). */
const IMAGE_PART_CHARS = 6_400

function contentText(content: ModelMessage['content']): string {
  if (typeof content === 'string') return content
  // An image's bytes are not text the model reads: each counts as a fixed size, not its JSON.
  const parts = (content as { type: string }[]).map((p) =>
    p.type === 'image' || p.type === 'file' ? { type: p.type, size: 'x'.repeat(IMAGE_PART_CHARS) } : p,
  )
  return JSON.stringify(parts)
}

/** Our estimate of a conversation's size; the provider's reported usage replaces it where larger. */
export function estimateConversation(system: string, messages: ModelMessage[]): number {
  return estimateTokens(system) + messages.reduce((sum, m) => sum + estimateTokens(contentText(m.content)), 0)
}

export interface FittedResult {
  output: string
  truncated: boolean
}

function truncationNote(omitted: number, windowTokens: number): string {
  return (
    `\n… [truncated by Ralph: ${omitted} more characters did not fit this iteration's context budget ` +
    `(${windowTokens} tokens). Read a smaller part: read_file with offset and limit, or grep for what you need.]`
  )
}

/**
 * Cuts tool results so that together they fit `roomTokens`, before they are sent. Small results stay whole;
 * the room left is shared evenly among the large ones (water-filling), each keeping its head and a note.
 */
export function fitToolResults(outputs: string[], roomTokens: number, windowTokens: number): FittedResult[] {
  const roomChars = Math.max(0, roomTokens) * 4
  const total = outputs.reduce((sum, o) => sum + o.length, 0)
  if (total <= roomChars) return outputs.map((output) => ({ output, truncated: false }))
  const order = outputs.map((o, i) => ({ i, len: o.length })).sort((a, b) => a.len - b.len)
  const limits = new Array<number>(outputs.length)
  let left = roomChars
  order.forEach(({ i, len }, k) => {
    const share = Math.floor(left / (order.length - k))
    limits[i] = Math.max(MIN_RESULT_CHARS, Math.min(len, share))
    left -= Math.min(len, share)
  })
  return outputs.map((output, i) => {
    const limit = limits[i]!
    if (output.length <= limit) return { output, truncated: false }
    const keep = Math.max(0, limit - NOTE_CHARS)
    return {
      output: output.slice(0, keep) + truncationNote(output.length - keep, windowTokens),
      truncated: true,
    }
  })
}
