import {
  generateText,
  jsonSchema,
  NoObjectGeneratedError,
  Output,
  stepCountIs,
  streamText,
  APICallError,
  type LanguageModelUsage,
  type ModelMessage,
  type Schema,
  type Tool,
} from 'ai'
import { z } from 'zod'
import { AppError } from '../../shared/errors'
import { describeIssues } from '../../shared/describeIssues'
import { deadline, type Logger } from '../workspace'
import { createModel, type ModelConfig } from './createModel'
import { reportedCost } from './openrouter'
import { cachedPrompt, type PromptCacheHints } from './promptCache'
import { oneHourCacheWrites } from './usage'
import { ContextOverflowError, describeProviderError, isContextLengthError } from './providerErrors'
import { cancelledError, ProviderTimeoutError, resolvePolicy, withRetry, type RetryPolicy } from './retry'
import { parseJsonOr } from '../../shared/json'

export type { RetryPolicy } from './retry'

export interface TurnTool {
  description: string
  /** A zod schema (Ralph's tools) or a JSON schema wrapped by `jsonSchema()` (an MCP server's tools). */
  inputSchema: z.ZodType | Schema<unknown>
}

/**
 * Keeps one call inside what a cost cap has left (loop/costCap.ts decides): the largest answer, in tokens, the
 * remaining budget buys for a prompt of about `promptTokens` tokens (null: no bound). It throws to refuse the call.
 */
export interface CallBudget {
  maxOutputTokens(model: ModelConfig, promptTokens: number): number | null
}

export interface TurnRequest {
  model: ModelConfig
  /** A cost cap's bound on this call (see CallBudget). */
  callBudget?: CallBudget
  system: string
  /** The whole conversation so far (the loop builds it fresh per iteration). */
  messages: ModelMessage[]
  /** Tools WITHOUT execute: the model only asks; the loop runs them and answers with `toolResultMessage`. */
  tools: Record<string, TurnTool>
  signal: AbortSignal
  onTextDelta?: (text: string) => void
  onRetry?: (info: { attempt: number; delayMs: number; reason: string }) => void
  /** Default: up to 4 retries, exponential backoff from 500 ms with ±20 % jitter, capped at 20 s. */
  retry?: Partial<RetryPolicy>
  /** An attempt that receives nothing (no byte, no chunk) for this long is aborted and retried. Default 180 s. */
  idleTimeoutMs?: number
  maxOutputTokens?: number
  temperature?: number
  /** 'none' keeps the tools declared (a conversation with tool calls needs them) but asks for text only. */
  toolChoice?: 'auto' | 'none'
  /** Where the prompt's stable parts end, for prompt caching (src/main/llm/promptCache.ts). */
  cache?: PromptCacheHints
  /** Where a survived failure (a stream that would not cancel) is recorded: the core's log; tests: memoryLogger(). */
  logger: Logger
}

export interface TurnToolCall {
  toolCallId: string
  toolName: string
  input: unknown
  /**
   * Set when the model called a tool that does not exist or with input that failed the tool's schema. The loop
   * should not run it, but must still answer it (toolResultMessage with isError) so the conversation stays valid.
   */
  invalidReason?: string
}

/**
 * A call's tokens, one meaning for every provider (the AI SDK 6 one): `inputTokens` is ALL prompt tokens, the cache
 * reads and writes among them included — OpenAI reports it so (`input_tokens` counts `cached_tokens`), Anthropic's
 * `input_tokens` is only the uncached part and the SDK adds `cache_read_input_tokens` and
 * `cache_creation_input_tokens`. The uncached part is `inputTokens − cacheReadTokens − cacheWriteTokens`.
 */
export interface TurnUsage {
  inputTokens: number
  outputTokens: number
  /** Prompt tokens served from the provider's cache (Anthropic cache_read_input_tokens, OpenAI cached_tokens). */
  cacheReadTokens: number
  /** Prompt tokens written to the cache (Anthropic cache_creation_input_tokens; OpenAI reports none). */
  cacheWriteTokens: number
  /** Of `cacheWriteTokens`: written for one hour (Anthropic's ephemeral_1h_input_tokens), billed at 2× input. */
  cacheWrite1hTokens?: number
  /** Reasoning tokens, already counted in `outputTokens`; 0 when the provider does not say. */
  reasoningTokens: number
  /** What the provider billed for the call in USD, when it says (OpenRouter's `usage.cost`); see callCost. */
  reportedCostUsd?: number
}

export interface TurnResult {
  text: string
  toolCalls: TurnToolCall[]
  /** The assistant message(s) to append before the tool results (never a tool message: the loop adds those). */
  responseMessages: ModelMessage[]
  usage: TurnUsage
  /** Wall-clock time of the whole turn, retries and backoff included. */
  durationMs: number
  /** 'stop' | 'tool-calls' | 'length' | 'content-filter' | 'error' | 'other' (the AI SDK's FinishReason). */
  finishReason: string
  /** How many requests were retried before this one succeeded. */
  retries: number
}

const DEFAULT_IDLE_TIMEOUT_MS = 180_000

const NO_USAGE: TurnUsage = {
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
}

export function toUsage(usage: LanguageModelUsage | undefined): TurnUsage {
  if (!usage) return { ...NO_USAGE }
  const cacheReadTokens = usage.inputTokenDetails?.cacheReadTokens ?? usage.cachedInputTokens ?? 0
  const cacheWriteTokens = usage.inputTokenDetails?.cacheWriteTokens ?? 0
  const noCache = usage.inputTokenDetails?.noCacheTokens
  const oneHour = Math.min(cacheWriteTokens, oneHourCacheWrites(usage.raw))
  return {
    // A server that reports only the parts still gets its total.
    inputTokens:
      usage.inputTokens ?? (noCache === undefined ? 0 : noCache + cacheReadTokens + cacheWriteTokens),
    outputTokens: usage.outputTokens ?? 0,
    cacheReadTokens,
    cacheWriteTokens,
    ...(oneHour > 0 ? { cacheWrite1hTokens: oneHour } : {}),
    reasoningTokens: usage.outputTokenDetails?.reasoningTokens ?? usage.reasoningTokens ?? 0,
  }
}

function errorText(err: unknown): string {
  if (err instanceof Error) return err.message
  return String(err)
}

function finalProviderError(err: unknown, model: ModelConfig): AppError {
  const status = APICallError.isInstance(err) ? err.statusCode : undefined
  if (isContextLengthError(err)) return new ContextOverflowError(describeProviderError(err, model), status)
  return new AppError(
    'provider',
    describeProviderError(err, model),
    status === undefined ? undefined : { status },
  )
}

/**
 * Links the caller's signal to a per-attempt controller that also fires on an idle timeout. `timedOut()` tells
 * the two apart afterwards.
 */
function attemptController(signal: AbortSignal, idleTimeoutMs: number, onAbort: () => void) {
  const controller = new AbortController()
  let timedOut = false
  let timer: ReturnType<typeof setTimeout> | undefined
  const abort = () => {
    controller.abort()
    onAbort()
  }
  const onCallerAbort = () => abort()
  signal.addEventListener('abort', onCallerAbort, { once: true })
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    touch() {
      clearTimeout(timer)
      timer = setTimeout(() => {
        timedOut = true
        abort()
      }, idleTimeoutMs)
    },
    dispose() {
      clearTimeout(timer)
      signal.removeEventListener('abort', onCallerAbort)
    },
  }
}

function toolSet(tools: Record<string, TurnTool>): Record<string, Tool> {
  return Object.fromEntries(
    Object.entries(tools).map(([name, t]) => [
      name,
      { description: t.description, inputSchema: t.inputSchema } as Tool,
    ]),
  )
}

/** Cancels a provider's stream; the turn ends either way, so a cancel that fails is only recorded. */
function cancelReader(reader: ReadableStreamDefaultReader<unknown>, logger: Logger): void {
  reader.cancel().catch((err: unknown) => logger.warn('a model stream could not be cancelled', err))
}

async function attemptTurn(req: TurnRequest): Promise<Omit<TurnResult, 'durationMs' | 'retries'>> {
  let reader: ReadableStreamDefaultReader<unknown> | undefined
  const ctl = attemptController(req.signal, req.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS, () => {
    // Ends a pending read at once, even if the provider's stream is slow to notice the abort.
    if (reader) cancelReader(reader, req.logger)
  })
  let emitted = false
  try {
    ctl.touch()
    const result = streamText({
      model: createModel(req.model),
      ...cachedPrompt(req.model, req.system, req.messages, req.cache),
      tools: toolSet(req.tools),
      toolChoice: req.toolChoice,
      stopWhen: stepCountIs(1),
      maxRetries: 0,
      abortSignal: ctl.signal,
      maxOutputTokens: req.maxOutputTokens,
      temperature: req.temperature,
      onError: () => {}, // errors arrive as 'error' parts below
    })
    const stream = result.fullStream
    const typedReader = stream.getReader()
    reader = typedReader as ReadableStreamDefaultReader<unknown>
    if (ctl.signal.aborted) cancelReader(reader, req.logger)

    let text = ''
    const toolCalls: TurnToolCall[] = []
    let usage: TurnUsage = { ...NO_USAGE }
    let billed: number | undefined
    let finishReason = 'unknown'
    let streamError: unknown = undefined
    for (;;) {
      const { done, value: part } = await typedReader.read()
      if (done) break
      ctl.touch()
      switch (part.type) {
        case 'text-delta':
          if (part.text) {
            text += part.text
            emitted = true
            req.onTextDelta?.(part.text)
          }
          break
        case 'tool-call':
          toolCalls.push({
            toolCallId: part.toolCallId,
            toolName: part.toolName,
            input: part.input,
            ...(part.invalid ? { invalidReason: errorText(part.error) } : {}),
          })
          break
        case 'finish-step':
          usage = toUsage(part.usage)
          billed = reportedCost(part.providerMetadata) ?? billed
          finishReason = part.finishReason
          break
        case 'finish':
          usage = toUsage(part.totalUsage)
          finishReason = part.finishReason
          break
        case 'error':
          streamError ??= part.error
          break
        default:
          break
      }
    }
    if (req.signal.aborted) throw cancelledError()
    const cause = ctl.timedOut()
      ? new ProviderTimeoutError(req.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS)
      : streamError
    if (cause !== undefined) {
      // Once text reached the caller a retry would repeat it: fail instead.
      if (emitted) throw finalProviderError(cause, req.model)
      throw cause
    }
    const response = await result.response
    const responseMessages = response.messages.filter((m) => m.role === 'assistant')
    if (billed !== undefined) usage = { ...usage, reportedCostUsd: billed }
    return { text, toolCalls, responseMessages, usage, finishReason }
  } catch (err) {
    if (req.signal.aborted) throw cancelledError()
    if (ctl.timedOut() && !(err instanceof AppError)) {
      if (emitted) throw finalProviderError(new ProviderTimeoutError(req.idleTimeoutMs ?? 0), req.model)
      throw new ProviderTimeoutError(req.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS)
    }
    throw err
  } finally {
    ctl.dispose()
  }
}

/**
 * One streaming model request with tools (one step: the loop decides what happens next). Retries 429, 5xx,
 * network errors and timeouts with backoff (honouring Retry-After) as long as nothing was streamed yet; 4xx
 * client errors fail at once. Rejects with AppError('provider') on failure (a UsageLimitError for a 429 whose
 * reset is beyond the retry cap, a ContextOverflowError when the request no longer fits the model's window), and
 * AppError('cancelled') on abort.
 */
export async function runModelTurn(request: TurnRequest): Promise<TurnResult> {
  const bound = request.callBudget?.maxOutputTokens(request.model, estimatePromptTokens(request))
  const req =
    bound === undefined || bound === null
      ? request
      : { ...request, maxOutputTokens: Math.min(bound, request.maxOutputTokens ?? bound) }
  const started = performance.now()
  let retries = 0
  const result = await withRetry(() => attemptTurn(req), {
    policy: resolvePolicy(req.retry),
    signal: req.signal,
    onRetry: (info) => {
      retries = info.attempt
      req.onRetry?.(info)
    },
    toFinalError: (err) => finalProviderError(err, req.model),
  })
  return { ...result, durationMs: Math.round(performance.now() - started), retries }
}

/** The tool message answering one batch of tool calls; every call of the turn needs exactly one result. */
export function toolResultMessage(
  results: { toolCallId: string; toolName: string; output: string; isError?: boolean }[],
): ModelMessage {
  return {
    role: 'tool',
    content: results.map((r) => ({
      type: 'tool-result' as const,
      toolCallId: r.toolCallId,
      toolName: r.toolName,
      output: r.isError
        ? { type: 'error-text' as const, value: r.output }
        : { type: 'text' as const, value: r.output },
    })),
  }
}

// ---------------------------------------------------------------------------------------------------------------
// JSON-only calls (the task parser)

const NOT_JSON = Symbol('not JSON')

/** Strips a ```json fence or prose around the first JSON object/array, then parses. Null when it is not JSON. */
export function extractJson(text: string): unknown {
  const trimmed = text.trim()
  const candidates: string[] = [trimmed]
  const fence = /```(?:json|JSON)?\s*\n?([\s\S]*?)```/.exec(trimmed)
  if (fence?.[1]) candidates.push(fence[1].trim())
  const start = trimmed.search(/[[{]/)
  if (start >= 0) {
    const close = trimmed[start] === '{' ? '}' : ']'
    const end = trimmed.lastIndexOf(close)
    if (end > start) candidates.push(trimmed.slice(start, end + 1))
  }
  // Each shape in turn: the first that parses wins.
  for (const candidate of candidates) {
    const parsed = parseJsonOr(candidate, NOT_JSON)
    if (parsed !== NOT_JSON) return parsed
  }
  return undefined
}

const UNSUPPORTED_SCHEMA_KEYS = new Set([
  '$schema',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
])

/** A JSON schema for `response_format` that strict providers accept (we validate the details ourselves). */
function wireSchema(schema: z.ZodType): Record<string, unknown> {
  const strip = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(strip)
    if (node && typeof node === 'object') {
      return Object.fromEntries(
        Object.entries(node)
          .filter(([key]) => !UNSUPPORTED_SCHEMA_KEYS.has(key))
          .map(([key, value]) => [key, key === 'properties' ? mapValues(value, strip) : strip(value)]),
      )
    }
    return node
  }
  const mapValues = (obj: unknown, fn: (v: unknown) => unknown) =>
    Object.fromEntries(Object.entries(obj as Record<string, unknown>).map(([k, v]) => [k, fn(v)]))
  return strip(z.toJSONSchema(schema, { io: 'output' })) as Record<string, unknown>
}

export interface JsonCallOptions<T> {
  model: ModelConfig
  system: string
  prompt: string
  schema: z.ZodType<T>
  signal: AbortSignal
  retry?: Partial<RetryPolicy>
  /** Aborts the call (as a provider error, not a cancellation) after this long. Default 60 s. */
  timeoutMs?: number
  maxOutputTokens?: number
}

export interface JsonCallResult<T> {
  value: T
  usage: TurnUsage
  durationMs: number
  /** The raw text the model produced (for logs). */
  text: string
}

/** 400s that mean "this server does not do response_format", so the call is worth repeating in plain text. */
function rejectsResponseFormat(err: unknown): boolean {
  if (!APICallError.isInstance(err) || err.statusCode === undefined) return false
  if (![400, 422, 501].includes(err.statusCode)) return false
  return /response_format|json_schema|json_object|json mode|structured/i.test(err.responseBody ?? err.message)
}

/** An image or file part counts as this many tokens (what providers bill a typical screenshot). */
const ATTACHMENT_TOKENS = 1600

/**
 * The prompt's size in tokens, estimated (4 characters a token) from its text, tool calls and results and the
 * tools' descriptions; an image counts as ATTACHMENT_TOKENS, not as its base64 bytes.
 */
export function estimatePromptTokens(req: Pick<TurnRequest, 'system' | 'messages' | 'tools'>): number {
  let chars = req.system.length
  let attachments = 0
  for (const m of req.messages) {
    if (typeof m.content === 'string') {
      chars += m.content.length
      continue
    }
    for (const part of m.content) {
      if (part.type === 'text' || part.type === 'reasoning') chars += part.text.length
      else if (part.type === 'image' || part.type === 'file') attachments++
      else
        chars += JSON.stringify(part, (key, value: unknown) => {
          // A tool result's image travels as base64 `data`: counted as an attachment, not as text.
          if (key === 'data' && typeof value === 'string' && value.length > 1000) {
            attachments++
            return ''
          }
          return value
        }).length
    }
  }
  for (const [name, tool] of Object.entries(req.tools)) chars += name.length + (tool.description?.length ?? 0)
  return Math.ceil(chars / 4) + attachments * ATTACHMENT_TOKENS
}

/**
 * A JSON-only call without tools. Asks for structured output (`response_format`: JSON schema where the provider
 * supports it, JSON mode otherwise); if the server refuses response_format, repeats once asking in plain words.
 * The reply is parsed tolerantly (```json fences, prose around it) and validated with `schema`. Invalid JSON or a
 * schema mismatch rejects with a clear AppError('provider'); abort rejects with AppError('cancelled').
 */
export async function callJson<T>(opts: JsonCallOptions<T>): Promise<JsonCallResult<T>> {
  const started = performance.now()
  const limit = deadline(opts.timeoutMs ?? 60_000, opts.signal)
  const signal = limit.signal
  // openai-compatible servers get JSON mode (`json_object`): a schema there needs structuredOutputs, which few
  // local servers support. OpenAI and Anthropic get the JSON schema.
  const structuredOutput =
    opts.model.provider === 'openai-compatible'
      ? Output.json()
      : Output.object({ schema: jsonSchema(wireSchema(opts.schema)), name: 'result' })
  let native = true

  const attempt = async (): Promise<{ text: string; usage: TurnUsage }> => {
    try {
      const result = await generateText({
        model: createModel(opts.model),
        system: opts.system,
        prompt: opts.prompt,
        maxRetries: 0,
        abortSignal: signal,
        maxOutputTokens: opts.maxOutputTokens,
        ...(native ? { output: structuredOutput } : {}),
      })
      const billed = reportedCost(result.providerMetadata)
      const usage = toUsage(result.usage)
      return {
        text: result.text,
        usage: billed === undefined ? usage : { ...usage, reportedCostUsd: billed },
      }
    } catch (err) {
      if (opts.signal.aborted) throw cancelledError()
      if (NoObjectGeneratedError.isInstance(err)) return { text: err.text ?? '', usage: toUsage(err.usage) }
      if (native && rejectsResponseFormat(err)) {
        native = false
        return attempt()
      }
      if (limit.timedOut()) {
        throw new AppError(
          'provider',
          `${opts.model.baseUrl ?? `The ${opts.model.provider} API`} did not answer within ${Math.round((opts.timeoutMs ?? 60_000) / 1000)} s.`,
        )
      }
      throw err
    }
  }

  const { text, usage } = await withRetry(attempt, {
    policy: resolvePolicy(opts.retry),
    signal: opts.signal,
    toFinalError: (err) => finalProviderError(err, opts.model),
  }).finally(limit.done)
  const durationMs = Math.round(performance.now() - started)
  const raw = extractJson(text)
  if (raw === undefined) {
    const preview = text.trim().slice(0, 120) || '(empty)'
    throw new AppError('provider', `The model did not answer with JSON. It said: ${preview}`, {
      usage,
      durationMs,
    })
  }
  const parsed = opts.schema.safeParse(raw)
  if (!parsed.success) {
    throw new AppError(
      'provider',
      `The model's JSON does not match the expected shape: ${describeIssues(parsed.error.issues)}`,
      { usage, durationMs },
    )
  }
  return { value: parsed.data, usage, durationMs, text }
}
