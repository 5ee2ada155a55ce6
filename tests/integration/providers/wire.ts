// The providers the product offers, each pointed at the wire-format fake that speaks its service's own format, as
// a user's settings point it at the real service. One table, so every scenario runs through every provider.
import { afterEach, beforeEach } from 'vitest'
import type { ProviderId } from '../../../src/shared/settings'
import { startAnthropicServer } from '../../fixtures/wire/anthropicServer'
import { startOllamaServer, type OllamaContext } from '../../fixtures/wire/ollamaServer'
import { startResponsesServer } from '../../fixtures/wire/responsesServer'
import type { WireRequest, WireServer } from '../../fixtures/wire/shared'
import { makeTempDir } from '../../helpers/tempDir'
import { say } from '../loop/harness'

type Json = Record<string, unknown>

export interface ProviderCase {
  provider: ProviderId
  model: string
  start(): Promise<WireServer & { baseUrl: string }>
  /** What the user enters as the base URL (Ollama's native API: the server's origin). */
  baseUrl(server: WireServer & { baseUrl: string }): string
  apiKey: string
  /** The path every model call goes to. */
  modelPath: string
  /** How the parse call asks for structured output, read from its request body (throws when it does not). */
  structuredOutput(body: Json): string
  /** The system prompt text of a request, read where this wire format puts it. */
  systemText(body: Json): string
  /** The names of the tools a request declares, in this wire format. */
  toolNames(body: Json): string[]
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)

const textOf = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((p) => (isObject(p) && typeof p.text === 'string' ? p.text : '')).join('')
      : ''

/** System (or developer) messages of a chat-shaped list: chat completions, Ollama, Responses input items. */
const systemMessages = (items: unknown): string =>
  (Array.isArray(items) ? items.filter(isObject) : [])
    .filter((m) => m.role === 'system' || m.role === 'developer')
    .map((m) => textOf(m.content))
    .join('\n')

const functionNames = (body: Json) =>
  (Array.isArray(body.tools) ? body.tools.filter(isObject) : []).map((t) =>
    String(isObject(t.function) ? t.function.name : t.name),
  )

/**
 * The task schema, in the form both services' structured outputs accept: every object closed
 * (`additionalProperties: false`) with every property required (optional ones are nullable instead), and none of
 * the keywords they refuse.
 */
function expectSchema(schema: unknown, where: string): void {
  if (!isObject(schema) || schema.type !== 'object' || !isObject(schema.properties))
    throw new Error(`${where} is not an object schema: ${JSON.stringify(schema)}`)
  if (!('requirements' in schema.properties)) throw new Error(`${where} is not the task schema`)
  const visit = (node: unknown, path: string): void => {
    if (Array.isArray(node)) return node.forEach((n, i) => visit(n, `${path}[${i}]`))
    if (!isObject(node)) return
    // (A `properties` map's keys are property names, not keywords.)
    if (!path.endsWith('.properties'))
      for (const key of ['minLength', 'maxLength', 'pattern', 'format', 'minimum', 'maximum'])
        if (key in node) throw new Error(`${where}${path} carries '${key}'`)
    if (isObject(node.properties)) {
      if (node.additionalProperties !== false) throw new Error(`${where}${path} is not closed`)
      const required = Array.isArray(node.required) ? node.required : []
      const missing = Object.keys(node.properties).filter((k) => !required.includes(k))
      if (missing.length) throw new Error(`${where}${path} does not require ${missing.join(', ')}`)
    }
    for (const [key, value] of Object.entries(node)) visit(value, `${path}.${key}`)
  }
  visit(schema, '')
}

export const PROVIDERS: ProviderCase[] = [
  {
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    start: () => startAnthropicServer(),
    baseUrl: (s) => s.baseUrl,
    apiKey: 'test-key',
    modelPath: '/v1/messages',
    // Anthropic has no response_format: the SDK uses structured outputs (`output_config.format`) on models that
    // have them.
    structuredOutput: (body) => {
      const format = isObject(body.output_config) ? body.output_config.format : undefined
      if (!isObject(format) || format.type !== 'json_schema')
        throw new Error(`no output_config.format: ${JSON.stringify(body).slice(0, 300)}`)
      expectSchema(format.schema, 'output_config.format.schema')
      return 'output_config.format json_schema'
    },
    systemText: (body) =>
      (typeof body.system === 'string'
        ? [{ text: body.system }]
        : Array.isArray(body.system)
          ? body.system
          : []
      )
        .map((b) => textOf([b]))
        .join('\n'),
    toolNames: functionNames,
  },
  {
    provider: 'openai',
    model: 'gpt-5-mini',
    start: () => startResponsesServer(),
    baseUrl: (s) => s.baseUrl,
    apiKey: 'test-key',
    modelPath: '/v1/responses',
    structuredOutput: (body) => {
      const format = isObject(body.text) ? body.text.format : undefined
      if (!isObject(format) || format.type !== 'json_schema' || format.strict !== true)
        throw new Error(`no strict text.format: ${JSON.stringify(body).slice(0, 300)}`)
      expectSchema(format.schema, 'text.format.schema')
      return 'text.format json_schema (strict)'
    },
    systemText: (body) =>
      [typeof body.instructions === 'string' ? body.instructions : '', systemMessages(body.input)].join('\n'),
    toolNames: functionNames,
  },
  {
    provider: 'ollama',
    model: 'llama3.1',
    start: () => startOllamaServer(),
    baseUrl: (s) => s.url,
    apiKey: '',
    modelPath: '/api/chat',
    structuredOutput: (body) => {
      expectSchema(body.format, 'format')
      return 'format (JSON schema)'
    },
    systemText: (body) => systemMessages(body.messages),
    toolNames: functionNames,
  },
  {
    // An OpenAI-compatible server: Ollama's /v1, with a model whose Modelfile sets num_ctx (the only way that API
    // runs a larger window than the server default).
    provider: 'openai-compatible',
    model: 'qwen3:8b-40k',
    start: () => startOllamaServer(),
    baseUrl: (s) => s.baseUrl,
    apiKey: '',
    modelPath: '/v1/chat/completions',
    structuredOutput: (body) => {
      const format = body.response_format
      if (!isObject(format) || format.type !== 'json_object')
        throw new Error(`no response_format json_object: ${JSON.stringify(body).slice(0, 300)}`)
      return 'response_format json_object'
    },
    systemText: (body) => systemMessages(body.messages),
    toolNames: functionNames,
  },
]

/** The model calls a server answered or refused (Ollama's /api/show and the like left out). */
export const modelCalls = (server: WireServer, c: ProviderCase): (WireRequest & { body: Json })[] =>
  server.requests.filter((r) => r.path === c.modelPath) as (WireRequest & { body: Json })[]

/** What an Ollama request lost to its context (null for the other services). */
export const cutOf = (r: WireRequest): OllamaContext | null =>
  (r.notes.context as OllamaContext | undefined) ?? null

/** The CLI's environment for a provider at its fake. */
export const providerEnv = (
  c: ProviderCase,
  server: WireServer & { baseUrl: string },
  home: string,
): NodeJS.ProcessEnv => ({
  RALPH_HOME: home,
  RALPH_PROVIDER: c.provider,
  RALPH_MODEL: c.model,
  RALPH_BASE_URL: c.baseUrl(server),
  RALPH_API_KEY: c.apiKey,
})

/** One test's provider fake, project folder and app-data home, and the CLI's environment pointing at them. */
export interface WireProject {
  readonly server: WireServer & { baseUrl: string }
  readonly project: ReturnType<typeof makeTempDir>
  readonly home: ReturnType<typeof makeTempDir>
  readonly env: NodeJS.ProcessEnv
}

/**
 * Gives each test of the calling describe a fresh WireProject: the provider's fake (answering "Nothing more." past
 * its script), a project folder named with `prefix`, and an app-data home; `cleanup` runs first after each test
 * (e.g. to remove the project's sandbox home), then everything is closed and removed.
 */
export function useWireProject(
  c: ProviderCase,
  prefix: string,
  cleanup?: (project: string) => Promise<void>,
): WireProject {
  const current: { -readonly [K in keyof WireProject]?: WireProject[K] } = {}
  const get = <K extends keyof WireProject>(key: K): WireProject[K] => {
    const value = current[key]
    if (value === undefined) throw new Error(`useWireProject: ${key} is read outside a test`)
    return value as WireProject[K]
  }
  beforeEach(async () => {
    current.server = await c.start()
    current.server.fallback = say('Nothing more.')
    current.project = makeTempDir(prefix)
    current.home = makeTempDir('ralph-home-')
    current.env = providerEnv(c, current.server, current.home.path)
  })
  afterEach(async () => {
    await get('server').close()
    await cleanup?.(get('project').path)
    get('project').cleanup()
    get('home').cleanup()
  })
  return {
    get server() {
      return get('server')
    },
    get project() {
      return get('project')
    },
    get home() {
      return get('home')
    },
    get env() {
      return get('env')
    },
  }
}
