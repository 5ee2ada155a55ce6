import type { Migration } from './types'

export const usageCache: Migration = {
  version: 15,
  name: 'usage_cache',
  up: `
    -- Prompt-cache tokens per LLM call (llm/modelTurn.ts TurnUsage), priced at the provider's cache rates
    -- (llm/pricing.ts). input_tokens keeps its meaning: ALL prompt tokens, these two included (OpenAI counts
    -- cached_tokens in input_tokens; Anthropic's input_tokens excludes cache reads and writes, so the AI SDK adds
    -- them). Uncached input = input_tokens - cache_read_tokens - cache_write_tokens. Rows recorded before this
    -- migration read as no cache: their cost was computed that way.
    ALTER TABLE llm_usage ADD COLUMN cache_read_tokens INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE llm_usage ADD COLUMN cache_write_tokens INTEGER NOT NULL DEFAULT 0;
    -- Already counted in output_tokens; kept to show what reasoning cost.
    ALTER TABLE llm_usage ADD COLUMN reasoning_tokens INTEGER NOT NULL DEFAULT 0;
  `,
}
