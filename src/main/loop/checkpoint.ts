import type { ToolCallRecord } from './iteration'

export type CheckpointReason = 'budget' | 'context-error'

export interface Checkpoint {
  reason: CheckpointReason
  /** Who wrote the words: the model (asked for a checkpoint) or the harness (no room left to ask). */
  by: 'model' | 'harness'
  text: string
  usedTokens: number
  windowTokens: number
}

/** What the model is asked once the iteration's budget is spent (seed 003: PreCompact writes a checkpoint). */
export const CHECKPOINT_REQUEST = [
  "This iteration's context budget is used up: the harness ends the iteration now and starts a fresh one.",
  'Do not call tools. Write a short checkpoint for the next iteration, in Markdown, at most 150 words:',
  '**Done:** what this iteration did (files read, written, commands run and their outcome).',
  '**Next:** the next concrete steps, with file names, and what to avoid (for example a large file to read in parts).',
].join('\n')

export const CHECKPOINT_MAX_OUTPUT_TOKENS = 600
/** The request above, the answer, and some slack for the provider's own overhead. */
export const CHECKPOINT_ROOM_TOKENS = 1_000

function describeCall(call: ToolCallRecord): string {
  const args = (call.args ?? {}) as Record<string, unknown>
  const target = args.path ?? args.command ?? args.pattern ?? args.action ?? ''
  const what = typeof target === 'string' && target ? ` ${target.replace(/\s+/g, ' ').slice(0, 100)}` : ''
  return `- ${call.name}${what}${call.ok ? '' : ' (failed)'}`
}

/** The checkpoint the harness writes itself when the model cannot be asked (no room, or the provider refused). */
export function harnessCheckpoint(calls: ToolCallRecord[], reason: CheckpointReason): string {
  const changed = [...new Set(calls.flatMap((c) => c.changedFiles))]
  const why =
    reason === 'context-error'
      ? "The provider refused the next request: it no longer fit the model's context window."
      : 'The context budget was used up before the model could write a checkpoint.'
  return [
    `**Done:** ${calls.length ? `${calls.length} tool call(s):` : 'no tool calls.'}`,
    ...calls.slice(-30).map(describeCall),
    calls.length > 30 ? `- … and ${calls.length - 30} earlier call(s)` : null,
    `**Files changed:** ${changed.length ? changed.join(', ') : 'none'}`,
    `**Next:** ${why} Continue the task from here; read large files in parts (read_file offset/limit, grep).`,
  ]
    .filter((l): l is string => l !== null)
    .join('\n')
}

/**
 * A checkpoint's words as progress.md keeps them: the model is asked for 150 words, but a provider may ignore the
 * output limit, and the file goes into every later prompt of the task (which keeps only its tail anyway).
 */
export const CHECKPOINT_MAX_CHARS = 4_000

/** One checkpoint's section of `.ralph/progress.md` (appended: the file is the task's running log). */
export function progressSection(iteration: number, checkpoint: Checkpoint): string {
  const percent = Math.round((checkpoint.usedTokens / checkpoint.windowTokens) * 100)
  const cause =
    checkpoint.reason === 'context-error'
      ? "the provider's context-length error"
      : `${percent}% of the ${checkpoint.windowTokens}-token context window`
  const text = checkpoint.text.trim()
  const words =
    text.length <= CHECKPOINT_MAX_CHARS
      ? text
      : `${text.slice(0, CHECKPOINT_MAX_CHARS)}\n… (cut: the checkpoint was ${text.length} characters)`
  return `## Checkpoint after iteration ${iteration} (${cause}; written by the ${checkpoint.by})\n\n${words}\n\n`
}

export const PROGRESS_HEADER = (task: number) =>
  `# Progress of task ${task}\n\nCheckpoints the harness wrote when an iteration filled its context window.\n\n`
