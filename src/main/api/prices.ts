// Prices for the composer's cost cap (issue 37): whether the project's next task has a price the cap can count, and
// a price the user enters there, kept as the same override `ralph config set price` writes (llm/pricing.ts).
import type { pricesCalls, ProjectPrice } from '../../shared/api/prices'
import { readProjectEngine } from '../engines'
import type { ModelConfig } from '../llm'
import { loadPriceOverrides, priceFor, setPriceOverride } from '../llm/pricing'
import { modelForProject } from '../loop/engineIteration'
import type { SettingsRepo } from '../store'
import { fallbackTo } from '../workspace/failures'
import type { Handlers } from './types'

export interface PricesDeps {
  settings: SettingsRepo
  modelConfig(): ModelConfig
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

export function pricesHandlers(deps: PricesDeps): Handlers<typeof pricesCalls> {
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
  }
}
