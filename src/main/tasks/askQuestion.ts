import type { Logger } from '../workspace'
import { isFsError } from '../../shared/errors'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import type { ModelMessage } from 'ai'
import { type ModelConfig, runModelTurn, toolResultMessage, type TurnTool, type TurnUsage } from '../llm'
import type { McpSession } from '../mcp'
import { BUILTIN_EXCLUDED_DIRS } from '../snapshots'
import {
  executeReadTool,
  readOnlyModelTools,
  readOnlyToolNames,
  toolListText,
  type ToolResult,
} from '../tools'
import { resolveSeesImages, toolImagesMessage } from '../attachments'

/** Tool rounds before the model must answer with what it has read. */
const MAX_TOOL_ROUNDS = 6
const CONTEXT_FILES = ['README.md', '.ralph/task.md', '.ralph/summary.md']
const MAX_FILE_CHARS = 8_000
const MAX_LISTED = 300

export interface AskInput {
  projectDir: string
  question: string
  model: ModelConfig
  signal: AbortSignal
  /** Where survived failures (a read tool's, the model stream's) are recorded. */
  logger: Logger
  onTextDelta(text: string): void
  /** Called after every model call with the usage so far, so an answer stopped halfway still counts its cost. */
  onUsage?(usage: AskUsage): void
  /** The project's MCP servers: only their tools that declare themselves read-only (`readOnlyHint`) are offered. */
  mcp?: McpSession
}

/** What an answer cost: its model calls' tokens summed, how many calls, and the time they took. */
export interface AskUsage extends TurnUsage {
  calls: number
  durationMs: number
  /**
   * Each call's own usage: a price is per call (a long-context tier applies to one prompt's size, never to the
   * answer's calls added up), so the answer's cost is the sum of its calls' costs.
   */
  perCall: TurnUsage[]
}

export interface AskResult {
  text: string
  toolCalls: number
  usage: AskUsage
}

const askTools: Record<string, TurnTool> = readOnlyModelTools

/**
 * Ask mode: the model answers a question about the project, reading it through the read-only tools
 * (read_file, list_files, grep) under the same path rules as the loop. It has no way to write, run or snapshot,
 * so asking never changes the project or `.ralph/`.
 */
export async function askQuestion(input: AskInput): Promise<AskResult> {
  const messages: ModelMessage[] = [{ role: 'user', content: input.question }]
  const usage: AskUsage = {
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
    calls: 0,
    durationMs: 0,
    perCall: [],
  }
  let toolCalls = 0
  let text = ''
  for (let round = 0; ; round++) {
    const lastRound = round === MAX_TOOL_ROUNDS
    if (lastRound)
      messages.push({ role: 'user', content: 'You have read enough: answer now from what you read.' })
    const started = performance.now()
    const turn = await runModelTurn({
      model: input.model,
      system: askSystemPrompt(input.projectDir),
      messages,
      tools: input.mcp ? { ...askTools, ...input.mcp.modelTools(true) } : askTools,
      signal: input.signal,
      logger: input.logger,
      onTextDelta: input.onTextDelta,
    })
    usage.inputTokens += turn.usage.inputTokens
    usage.outputTokens += turn.usage.outputTokens
    usage.cacheReadTokens += turn.usage.cacheReadTokens
    usage.cacheWriteTokens += turn.usage.cacheWriteTokens
    usage.reasoningTokens += turn.usage.reasoningTokens
    if (turn.usage.cacheWrite1hTokens)
      usage.cacheWrite1hTokens = (usage.cacheWrite1hTokens ?? 0) + turn.usage.cacheWrite1hTokens
    usage.calls++
    usage.durationMs += performance.now() - started
    usage.perCall = [...usage.perCall, turn.usage]
    input.onUsage?.({ ...usage })
    text += turn.text
    if (!turn.toolCalls.length) return { text, toolCalls, usage }
    if (lastRound) {
      const note = `${text ? '\n\n' : ''}*(Ralph stopped reading after ${MAX_TOOL_ROUNDS} rounds of tool calls.)*`
      input.onTextDelta(note)
      return { text: text + note, toolCalls, usage }
    }
    messages.push(...turn.responseMessages)
    const results = []
    const images: NonNullable<ToolResult['image']>[] = []
    for (const call of turn.toolCalls) {
      toolCalls++
      const result = call.invalidReason
        ? { ok: false, output: call.invalidReason }
        : await readTool(input, call.toolName, call.input)
      if ('image' in result && result.image) images.push(result.image)
      results.push({
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        output: result.output,
        isError: !result.ok,
      })
    }
    messages.push(toolResultMessage(results))
    const shown = images.length
      ? toolImagesMessage(images, await resolveSeesImages(input.model, input.logger))
      : null
    if (shown) messages.push(shown)
    // Text written before a tool call stays, in its own paragraph, in the stored answer as in the live one.
    if (text && !text.endsWith('\n')) {
      text += '\n\n'
      input.onTextDelta('\n\n')
    }
  }
}

/** One of the read-only tools: Ralph's, or an MCP server's that declares itself read-only. */
function readTool(
  input: AskInput,
  name: string,
  args: unknown,
): Promise<{ ok: boolean; output: string; image?: ToolResult['image'] }> {
  if (input.mcp?.has(name)) return input.mcp.call(name, args, { signal: input.signal, readOnlyOnly: true })
  return executeReadTool(name, args, {
    projectDir: input.projectDir,
    signal: input.signal,
    logger: input.logger,
  })
}

/** What the model knows before it reads anything: the project's files by name, its README and Ralph's notes. */
function askSystemPrompt(projectDir: string): string {
  const files = listFiles(projectDir)
  const notes = CONTEXT_FILES.map((rel) => {
    try {
      const content = readFileSync(join(projectDir, rel), 'utf8').slice(0, MAX_FILE_CHARS)
      return `--- ${rel} ---\n${content}`
    } catch (err) {
      // A notes file the project does not have (or cannot be read) is left out.
      if (isFsError(err)) return null
      throw err
    }
  }).filter(Boolean)
  return [
    'You answer questions about the software project below. You cannot change anything: you can only read it',
    `with ${toolListText(readOnlyToolNames)}. Read what you need, then answer from what you read; say plainly when`,
    'the project does not hold the answer. Keep it short and use markdown.',
    '',
    `Files (${files.length >= MAX_LISTED ? `first ${MAX_LISTED}` : files.length}):`,
    ...files,
    '',
    ...notes,
  ].join('\n')
}

function listFiles(root: string): string[] {
  const skip = new Set<string>([...BUILTIN_EXCLUDED_DIRS, '.git', '.ralph'])
  const out: string[] = []
  const queue = ['']
  while (queue.length && out.length < MAX_LISTED) {
    const rel = queue.shift()!
    let entries
    try {
      entries = readdirSync(join(root, rel), { withFileTypes: true })
    } catch (err) {
      // A folder that vanished or cannot be listed is skipped.
      if (isFsError(err)) continue
      throw err
    }
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const path = rel ? `${rel}/${entry.name}` : entry.name
      if (entry.isDirectory()) {
        if (!skip.has(entry.name)) queue.push(path)
      } else if (out.length < MAX_LISTED) out.push(path)
    }
  }
  return out
}
