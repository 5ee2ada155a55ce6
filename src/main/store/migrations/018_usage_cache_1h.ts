import type { Migration } from './types'

export const usageCache1h: Migration = {
  version: 18,
  name: 'usage_cache_1h',
  up: `
    -- Of cache_write_tokens: the part written to the prompt cache for one hour (Anthropic's
    -- cache_creation.ephemeral_1h_input_tokens), billed at its own rate (llm/pricing.ts); the rest are 5-minute
    -- writes. Rows recorded before this migration read as 5-minute writes: their cost was computed that way.
    ALTER TABLE llm_usage ADD COLUMN cache_write_1h_tokens INTEGER NOT NULL DEFAULT 0;
  `,
}
