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

export const pricesCalls = defineCalls({
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
