import type { Migration } from './types'

export const runCaps: Migration = {
  version: 20,
  name: 'run_caps',
  up: `
    -- What a task's card shows after a reload that only live events said before: the login and base URL its engine
    -- session used ("OPENAI_API_KEY → https://gateway/v1"), and the caps it ran under (the composer's cost cap in
    -- dollars, its token cap for a model with no price). NULL: none.
    ALTER TABLE runs ADD COLUMN engine_login TEXT;
    ALTER TABLE runs ADD COLUMN cost_cap_usd REAL;
    ALTER TABLE runs ADD COLUMN token_cap INTEGER;
  `,
}
