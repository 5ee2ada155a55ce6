import { z } from 'zod'
import { projectOnly } from './common'
import { defineCalls } from './define'

/** USD per one million tokens, as a user types a price (the same rates as `ralph config set price`). */
const rate = z
  .number({ error: 'A price is a number of dollars per 1M tokens.' })
  .nonnegative('A price cannot be below $0 per 1M tokens.')
  .max(100_000, 'A price above $100,000 per 1M tokens is surely a typo.')

/** Whether a project's next task has a price the cost cap can count. */
export const projectPriceSchema = z.object({
  /** The model the next task's calls are billed under (an engine's model when the project names one). */
  model: z.string().nullable(),
  /** The Ralph provider or engine that makes the calls. */
  provider: z.string().nullable(),
  /** True: priced (the user's price or the catalog's); false: no price; null: the model is not known yet. */
  priced: z.boolean().nullable(),
})
export type ProjectPrice = z.infer<typeof projectPriceSchema>

/** "Update prices from the internet" (Settings): off by default; where the data comes from and when it came. */
export const priceUpdatesSchema = z.object({
  enabled: z.boolean(),
  /** The address the data is downloaded from. */
  url: z.string(),
  /** When the data in use was downloaded (ms since the epoch); null: the data bundled with this version. */
  fetchedAt: z.number().nullable(),
  /** How many hosted models the downloaded data prices. */
  models: z.number().int().nullable(),
  /** Why the last download or the kept data was not used; null when it was. */
  error: z.string().nullable(),
})
export type PriceUpdatesState = z.infer<typeof priceUpdatesSchema>

export const pricesCalls = defineCalls({
  'prices.updates': { input: z.object({}).strict(), output: priceUpdatesSchema },
  /** Turns the updates on (downloading now) or off (the bundled data again after a restart). */
  'prices.setUpdates': {
    mutates: true,
    input: z.object({ enabled: z.boolean() }).strict(),
    output: priceUpdatesSchema,
  },
  /** Downloads the data now (only with the setting on). */
  'prices.updateNow': { mutates: true, input: z.object({}).strict(), output: priceUpdatesSchema },
  /** The price the next task of a project would be capped with (the composer warns when there is none). */
  'prices.forProject': { input: projectOnly, output: projectPriceSchema },
  /** The user's price for a model (`llm.prices`, the same override `ralph config set price` writes). */
  'prices.set': {
    mutates: true,
    input: z
      .object({
        model: z.string().trim().min(1, 'Name the model the price is for.').max(200),
        input: rate,
        output: rate,
      })
      .strict(),
    output: z.object({ model: z.string() }),
  },
})
