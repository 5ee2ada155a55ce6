// Prices for the composer's cost cap (issue 37): whether the project's next task has a price the cap can count, and
// a price the user enters there, kept as the same override `ralph config set price` writes (llm/pricing.ts). And
// Settings' "Update prices from the internet" (llm/catalogUpdate.ts), off by default.
import type { pricesCalls, PriceUpdatesState, ProjectPrice } from '../../shared/api/prices'
import { readProjectEngine } from '../engines'
import type { ModelConfig } from '../llm'
import {
  pricesAreStale,
  pricesUrl,
  priceUpdatesEnabled,
  refreshCatalog,
  setPriceUpdates,
  applyStoredPrices,
  type CatalogDataState,
  type PriceUpdatesHost,
} from '../llm/catalogUpdate'
import { loadPriceOverrides, priceFor, setPriceOverride } from '../llm/pricing'
import { modelForProject } from '../loop/engineIteration'
import type { SettingsRepo } from '../store'
import type { Logger } from '../workspace'
import { fallbackTo, noteFailure } from '../workspace/failures'
import type { Handlers } from './types'

export interface PricesDeps extends PriceUpdatesHost {
  settings: SettingsRepo
  modelConfig(): ModelConfig
  logger: Logger
  fetch?: typeof fetch
}

/** The model a project's next task is billed under and whether it has a price (the decision, apart from I/O). */
export function projectPrice(
  engine: { engine: string; engineModel: string | null },
  model: ModelConfig | null,
  prices: ReturnType<typeof loadPriceOverrides>,
): ProjectPrice {
  if (engine.engine !== 'built-in') {
    // An engine left to its own default model: which one it picks is known only once it runs.
    if (!engine.engineModel) return { model: null, provider: engine.engine, priced: null }
    const priced = priceFor(engine.engineModel, prices, engine.engine) !== null
    return { model: engine.engineModel, provider: engine.engine, priced }
  }
  if (!model) return { model: null, provider: null, priced: null }
  return {
    model: model.model,
    provider: model.provider,
    priced: priceFor(model.model, prices, model.provider) !== null,
  }
}

/** The price data in use and how it came: applied at start, refreshed when stale, on demand, or when turned on. */
class PriceUpdates {
  private data: CatalogDataState | null = null
  private error: string | null = null
  private running: Promise<void> | null = null

  constructor(private readonly deps: PricesDeps) {
    try {
      this.data = applyStoredPrices(deps)
    } catch (err) {
      this.error = (err as Error).message
      noteFailure(deps.logger, 'prices: the kept price data was not used', err)
    }
    if (pricesAreStale(deps)) void this.refresh()
  }

  state(): PriceUpdatesState {
    const enabled = priceUpdatesEnabled(this.deps.settings)
    return {
      enabled,
      url: pricesUrl(this.deps.env),
      fetchedAt: enabled ? (this.data?.fetchedAt ?? null) : null,
      models: enabled ? (this.data?.models ?? null) : null,
      error: enabled ? this.error : null,
    }
  }

  /** Downloads now (one download at a time); a failure is kept for Settings to show, and in the log. */
  refresh(): Promise<void> {
    this.running ??= refreshCatalog({
      appDataDir: this.deps.appDataDir,
      url: pricesUrl(this.deps.env),
      fetch: this.deps.fetch,
    })
      .then((data) => {
        this.data = data
        this.error = null
      })
      .catch((err: unknown) => {
        this.error = (err as Error).message
        noteFailure(this.deps.logger, 'prices: download failed', err)
      })
      .finally(() => (this.running = null))
    return this.running
  }
}

export function pricesHandlers(deps: PricesDeps): Handlers<typeof pricesCalls> {
  const updates = new PriceUpdates(deps)
  return {
    'prices.forProject': async ({ projectId }, ctx) => {
      const dir = ctx.resolveProject(projectId).path
      const engine = await readProjectEngine(dir)
      // No provider configured yet: nothing to price (the composer's send says what to set up).
      const model = await modelForProject(dir, () => deps.modelConfig()).catch(
        fallbackTo<ModelConfig | null>(
          ctx.logger,
          `prices.forProject: no model for project ${projectId}`,
          null,
        ),
      )
      return projectPrice(engine, model, loadPriceOverrides(deps.settings))
    },
    'prices.set': async ({ model, input, output }, ctx) => {
      setPriceOverride(deps.settings, model, { input, output })
      ctx.emit('settings.changed', { key: 'prices' })
      return { model }
    },
    'prices.updates': async () => updates.state(),
    'prices.setUpdates': async ({ enabled }, ctx) => {
      setPriceUpdates(deps.settings, enabled)
      if (enabled) await updates.refresh()
      ctx.emit('settings.changed', { key: 'prices' })
      return updates.state()
    },
    'prices.updateNow': async (_input, ctx) => {
      if (priceUpdatesEnabled(deps.settings)) await updates.refresh()
      ctx.emit('settings.changed', { key: 'prices' })
      return updates.state()
    },
  }
}
