import { AppError } from '../../../shared/errors'
import type { ProviderField, ProviderSettingsService } from '../../llm/providerSettings'
import {
  CONTEXT_SETTING_KEY,
  contextWindowFor,
  DEFAULT_CONTEXT_WINDOW,
  defaultContextWindows,
  loadContextWindowOverrides,
  parseContextTokens,
} from '../../llm/contextWindows'
import {
  builtInPrices,
  loadPriceOverrides,
  parsePriceArgs,
  PRICE_ARGS_USAGE,
  PRICES_SETTING_KEY,
  setPriceOverride,
} from '../../llm/pricing'
import type { SettingsRepo } from '../../store/settingsRepo'
import { openCliServices } from '../openCore'
import { writeJson } from '../output'
import type { CliCommand, CliContext } from '../types'

const FIELDS: Record<string, ProviderField | 'apiKey'> = {
  provider: 'provider',
  model: 'model',
  baseUrl: 'baseUrl',
  'base-url': 'baseUrl',
  apiKey: 'apiKey',
  'api-key': 'apiKey',
}

const usage = `Usage:
  ralph config get [KEY]          show settings (all, or one key)
  ralph config set KEY VALUE      change one setting
  ralph config set apiKey         read the API key from standard input (keeps it out of shell history)
  ralph config unset KEY          remove a setting (baseUrl or apiKey)
  ralph config test               make a real minimal call with the current settings (exit 5 on failure)
  ralph config get prices         the price table used for cost estimates (USD per 1M tokens)
  ralph config set price MODEL INPUT OUTPUT [CACHE_READ [CACHE_WRITE [CACHE_WRITE_1H]]]
                                  set a model's (or a model-id prefix's) price per 1M tokens (CACHE_WRITE:
                                  a 5-minute cache write, CACHE_WRITE_1H: a 1-hour one)
  ralph config unset price MODEL  back to the built-in price
  ralph config get context [MODEL]           the context windows (tokens) the loop budgets against
  ralph config set context MODEL TOKENS      set a model's (or a model-id prefix's) window, e.g. 128000 or 128k
  ralph config unset context MODEL           back to the built-in window
  ralph config set localContextMax TOKENS    the most context a local model gets (Ollama's num_ctx; default:
                                             the model's own, up to 32768), e.g. 65536 or 64k
  ralph config set fastModel MODEL           a cheaper model for task parsing, checkpoints and verification
                                             verdicts: MODEL on the main provider, or PROVIDER:MODEL
                                             (e.g. gpt-5-mini, openrouter:anthropic/claude-haiku-4.5)
  ralph config set fastBaseUrl URL           the fast model's server, when it is not the main one's
  ralph config unset fastModel               side jobs back on the main model

Keys: provider (openai | anthropic | ollama | openrouter | openai-compatible), model, baseUrl, apiKey,
localContextMax, fastModel, fastBaseUrl.
Environment overrides: RALPH_PROVIDER, RALPH_MODEL, RALPH_BASE_URL, RALPH_API_KEY (or OPENAI_API_KEY,
ANTHROPIC_API_KEY, OPENROUTER_API_KEY for their provider), RALPH_LOCAL_CONTEXT_MAX, RALPH_FAST_MODEL,
RALPH_FAST_BASE_URL.
OpenRouter: provider openrouter, model e.g. anthropic/claude-sonnet-4.5 (baseUrl https://openrouter.ai/api/v1 by
default); the cost OpenRouter reports is the cost recorded.
Ollama: provider ollama, baseUrl http://127.0.0.1:11434 (the default). LM Studio: provider openai-compatible,
baseUrl http://127.0.0.1:1234/v1.`

async function readStdin(ctx: CliContext): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  void ctx
  return Buffer.concat(chunks).toString('utf8').trim()
}

function fieldOf(key: string | undefined): ProviderField | 'apiKey' {
  const field = key === undefined ? undefined : FIELDS[key]
  if (!field) {
    throw new AppError('invalid-input', `Unknown key "${key ?? ''}". Keys: provider, model, baseUrl, apiKey.`)
  }
  return field
}

export const configCommand: CliCommand = {
  name: 'config',
  usage,
  async run(ctx) {
    const [action, key, ...rest] = ctx.positionals
    if (!action || !['get', 'set', 'unset', 'test'].includes(action)) {
      ctx.stderr.write(`${action ? `Unknown action "${action}".\n` : ''}${usage}\n`)
      return 2
    }
    const services = openCliServices(ctx.env, 'config')
    try {
      if (key === 'prices' || key === 'price') return prices(ctx, services.settings, action, rest)
      if (key === 'context') return contextWindows(ctx, services.settings, action, rest)
      const { providerSettings, apiKeys } = services
      if (key === 'localContextMax' || key === 'local-context-max' || key === 'localcontextmax')
        return localContextMax(ctx, providerSettings, action, rest)
      if (key !== undefined && FAST_KEYS[key])
        return fastModel(ctx, providerSettings, FAST_KEYS[key], action, rest)
      if (action === 'get') {
        const state = providerSettings.state()
        const all = {
          provider: state.effective?.provider ?? providerSettings.currentProvider(),
          model: state.effective?.model ?? state.settings?.model ?? null,
          baseUrl: state.effective?.baseUrl ?? state.settings?.baseUrl ?? null,
          apiKey: state.apiKey.present
            ? `${state.apiKey.hint} (${state.apiKey.envVar ?? state.apiKey.backend})`
            : null,
        }
        if (key !== undefined) {
          const field = fieldOf(key)
          const value = all[field]
          if (ctx.json) writeJson(ctx.stdout, { ok: true, key: field, value })
          else ctx.stdout.write(`${value ?? ''}\n`)
        } else if (ctx.json) {
          writeJson(ctx.stdout, {
            ok: true,
            settings: all,
            overriddenByEnv: state.overriddenByEnv,
            // Only when one is set: side jobs on the main model is the default.
            ...(state.effectiveFastModel ? { fastModel: state.effectiveFastModel } : {}),
          })
        } else {
          for (const [k, v] of Object.entries(all)) ctx.stdout.write(`${k.padEnd(9)} ${v ?? '(not set)'}\n`)
          const fast = state.effectiveFastModel
          ctx.stdout.write(
            `fastModel ${fast ? `${fast.provider}:${fast.model}${fast.baseUrl ? ` at ${fast.baseUrl}` : ''}` : '(not set: the main model)'}\n`,
          )
          if (state.overriddenByEnv.length)
            ctx.stdout.write(`(overridden by ${state.overriddenByEnv.join(', ')})\n`)
        }
        return 0
      }
      if (action === 'test') {
        const config = providerSettings.modelConfig()
        // The AI SDK loads only for the one action that makes a call.
        const { testConnection } = await import('../../llm/testConnection')
        const result = await testConnection(config, undefined, ctx.env)
        // The fast model for side jobs gets its own call: a typo there would otherwise surface mid-task.
        const fastConfig = providerSettings.fastModelConfig(config)
        const fast = fastConfig ? await testConnection(fastConfig, undefined, ctx.env) : null
        const ok = result.ok && (fast?.ok ?? true)
        if (ctx.json) writeJson(ctx.stdout, { ok, result, ...(fast ? { fastModel: fast } : {}) })
        else {
          ;(result.ok ? ctx.stdout : ctx.stderr).write(`${result.message}\n`)
          // The call worked, but agentic work with this window will not: said apart, on stderr, as a warning.
          if (result.warning) ctx.stderr.write(`Warning: ${result.warning}\n`)
          if (fast) (fast.ok ? ctx.stdout : ctx.stderr).write(`Fast model: ${fast.message}\n`)
        }
        return ok ? 0 : 5
      }
      const field = fieldOf(key)
      if (action === 'unset') {
        if (field === 'apiKey') {
          const provider = providerSettings.currentProvider()
          if (!provider) throw new AppError('config', 'Set a provider first: the key is stored per provider.')
          apiKeys.delete(provider)
        } else providerSettings.setField(field, null)
      } else {
        let value = rest.join(' ')
        if (field === 'apiKey' && rest.length === 0) value = await readStdin(ctx)
        if (rest.length === 0 && field !== 'apiKey') {
          throw new AppError('invalid-input', `Give a value: ralph config set ${key} VALUE`)
        }
        if (field === 'apiKey') {
          const provider = providerSettings.currentProvider()
          if (!provider)
            throw new AppError(
              'config',
              'Set a provider first (ralph config set provider …): keys are stored per provider.',
            )
          if (!value) throw new AppError('invalid-input', 'The API key is empty.')
          apiKeys.set(provider, value)
        } else providerSettings.setField(field, value)
      }
      if (ctx.json) writeJson(ctx.stdout, { ok: true, key: field })
      else ctx.stdout.write(`${action === 'set' ? 'Set' : 'Removed'} ${field}.\n`)
      return 0
    } finally {
      services.close()
    }
  },
}

const FAST_KEYS: Record<string, 'fastModel' | 'fastBaseUrl'> = {
  fastModel: 'fastModel',
  'fast-model': 'fastModel',
  fastBaseUrl: 'fastBaseUrl',
  'fast-base-url': 'fastBaseUrl',
}

/** The fast model for side jobs (DESIGN.md §9) or its base URL: read, set or removed. */
function fastModel(
  ctx: CliContext,
  providerSettings: ProviderSettingsService,
  key: 'fastModel' | 'fastBaseUrl',
  action: string,
  rest: string[],
): number {
  if (action === 'get') {
    const state = providerSettings.state()
    const main = providerSettings.effective().value
    // Asked directly (not from state, which hides errors) so a bad RALPH_FAST_MODEL is reported here.
    const effective = main ? providerSettings.fastModel(main) : null
    const value =
      key === 'fastModel'
        ? effective
          ? `${effective.provider}:${effective.model}`
          : null
        : (effective?.baseUrl ?? state.fastBaseUrl ?? null)
    if (ctx.json) writeJson(ctx.stdout, { ok: true, key, value, fastModel: effective })
    else
      ctx.stdout.write(
        `${value ?? (key === 'fastModel' ? '(not set: the main model does side jobs)' : '')}\n`,
      )
    return 0
  }
  if (action === 'set') {
    const value = rest.join(' ').trim()
    if (!value) throw new AppError('invalid-input', `Give a value: ralph config set ${key} VALUE`)
    if (key === 'fastModel') providerSettings.setFastModel(value)
    else providerSettings.setFastBaseUrl(value)
  } else if (action === 'unset') {
    if (key === 'fastModel') providerSettings.setFastModel(null)
    else providerSettings.setFastBaseUrl(null)
  } else throw new AppError('invalid-input', `${key} can be read (get), set or unset.`)
  if (ctx.json) writeJson(ctx.stdout, { ok: true, key })
  else ctx.stdout.write(`${action === 'set' ? 'Set' : 'Removed'} ${key}.\n`)
  return 0
}

/** The maximum context for local models (see ollamaWindow): read, set or removed. */
function localContextMax(
  ctx: CliContext,
  providerSettings: ProviderSettingsService,
  action: string,
  rest: string[],
): number {
  if (action === 'get') {
    const tokens = providerSettings.localContextMax()
    if (ctx.json) writeJson(ctx.stdout, { ok: true, key: 'localContextMax', value: tokens })
    else ctx.stdout.write(`${tokens ?? "(not set: the model's own window, up to 32768)"}\n`)
    return 0
  }
  if (action === 'set') {
    if (rest.length === 0)
      throw new AppError(
        'invalid-input',
        'Give a value: ralph config set localContextMax TOKENS (e.g. 32768)',
      )
    providerSettings.setLocalContextMax(rest.join(' '))
  } else if (action === 'unset') providerSettings.setLocalContextMax(null)
  else throw new AppError('invalid-input', 'localContextMax can be read (get), set or unset.')
  if (ctx.json) writeJson(ctx.stdout, { ok: true, key: 'localContextMax' })
  else ctx.stdout.write(`${action === 'set' ? 'Set' : 'Removed'} localContextMax.\n`)
  return 0
}

/** The editable price table (DESIGN.md §9 cost estimates): built-in prices plus the user's overrides. */
function prices(ctx: CliContext, settings: SettingsRepo, action: string, rest: string[]): number {
  const overrides = loadPriceOverrides(settings)
  if (action === 'get') {
    const table = {
      ...Object.fromEntries(
        Object.entries(builtInPrices()).map(([k, v]) => [k, { ...v, source: 'built-in' }]),
      ),
      ...Object.fromEntries(Object.entries(overrides).map(([k, v]) => [k, { ...v, source: 'yours' }])),
    }
    if (ctx.json) writeJson(ctx.stdout, { ok: true, unit: 'USD per 1M tokens', prices: table })
    else {
      ctx.stdout.write(
        'model (or prefix)                  input   output  cache read  cache write  1h write  source\n',
      )
      // A price of yours without cache rates bills cache reads and writes at its input price.
      const num = (n: number | undefined, fallback: number, width: number) =>
        String(Math.round((n ?? fallback) * 1e4) / 1e4).padStart(width)
      for (const [model, p] of Object.entries(table)) {
        ctx.stdout.write(
          `${model.padEnd(34)} ${num(p.input, 0, 6)}  ${num(p.output, 0, 6)}  ${num(p.cacheRead, p.input, 10)}  ${num(p.cacheWrite, p.input, 11)}  ${num(p.cacheWrite1h, p.cacheWrite ?? p.input, 8)}  ${p.source}\n`,
        )
      }
    }
    return 0
  }
  const [model, ...rates] = rest
  if (!model) throw new AppError('invalid-input', `Name the model: ralph config ${action} price MODEL …`)
  if (action === 'set') {
    try {
      setPriceOverride(settings, model, parsePriceArgs(rates))
    } catch (err) {
      throw new AppError(
        'invalid-input',
        `${(err as Error).message}\nUsage: ralph config set price MODEL ${PRICE_ARGS_USAGE}`,
      )
    }
  } else if (action === 'unset') {
    const { [model]: _removed, ...others } = overrides
    settings.set(PRICES_SETTING_KEY, others)
  } else {
    throw new AppError('invalid-input', 'Prices can be read (get), set or unset.')
  }
  if (ctx.json) writeJson(ctx.stdout, { ok: true, key: 'price', model })
  else ctx.stdout.write(`${action === 'set' ? 'Set' : 'Removed'} the price of ${model}.\n`)
  return 0
}

/**
 * The editable context-window table: an iteration checkpoints at 80% of its model's window, so a wrong window
 * either wastes the model's memory or overflows it. Unknown models get a small default.
 */
function contextWindows(ctx: CliContext, settings: SettingsRepo, action: string, rest: string[]): number {
  const overrides = loadContextWindowOverrides(settings)
  const [model, tokensText] = rest
  if (action === 'get') {
    if (model) {
      const match = contextWindowFor(model, overrides)
      if (ctx.json) writeJson(ctx.stdout, { ok: true, model, ...match })
      else ctx.stdout.write(`${match.tokens} (${match.source}${match.key ? `: ${match.key}` : ''})\n`)
      return 0
    }
    const table = {
      ...Object.fromEntries(
        Object.entries(defaultContextWindows).map(([k, v]) => [k, { tokens: v, source: 'built-in' }]),
      ),
      ...Object.fromEntries(Object.entries(overrides).map(([k, v]) => [k, { tokens: v, source: 'yours' }])),
    }
    if (ctx.json)
      writeJson(ctx.stdout, { ok: true, unit: 'tokens', default: DEFAULT_CONTEXT_WINDOW, windows: table })
    else {
      ctx.stdout.write('model (or prefix)                  tokens      source\n')
      for (const [name, w] of Object.entries(table)) {
        ctx.stdout.write(`${name.padEnd(34)} ${String(w.tokens).padStart(10)}  ${w.source}\n`)
      }
      ctx.stdout.write(
        `any other model                    ${String(DEFAULT_CONTEXT_WINDOW).padStart(10)}  default\n`,
      )
    }
    return 0
  }
  if (!model) throw new AppError('invalid-input', `Name the model: ralph config ${action} context MODEL …`)
  if (action === 'set') {
    const tokens = tokensText === undefined ? null : parseContextTokens(tokensText)
    if (tokens === null) {
      throw new AppError(
        'invalid-input',
        `Give the window in tokens, at least 1024: ralph config set context MODEL TOKENS (e.g. 128000 or 128k), got "${tokensText ?? ''}".`,
      )
    }
    settings.set(CONTEXT_SETTING_KEY, { ...overrides, [model]: tokens })
    if (ctx.json) writeJson(ctx.stdout, { ok: true, key: 'context', model, tokens })
    else ctx.stdout.write(`Set the context window of ${model} to ${tokens} tokens.\n`)
    return 0
  }
  if (action !== 'unset')
    throw new AppError('invalid-input', 'Context windows can be read (get), set or unset.')
  const { [model]: _removed, ...others } = overrides
  settings.set(CONTEXT_SETTING_KEY, others)
  if (ctx.json) writeJson(ctx.stdout, { ok: true, key: 'context', model })
  else ctx.stdout.write(`Removed the context window of ${model}; the built-in one applies.\n`)
  return 0
}
