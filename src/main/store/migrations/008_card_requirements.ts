import type { Migration } from './types'

export const cardRequirements: Migration = {
  version: 8,
  name: 'card_requirements',
  up: `
    -- What the task parser made of a card's request (its requirements with their markers, and the PRESERVE
    -- scope), as JSON: the card shows them after a reload, as it did live.
    ALTER TABLE messages ADD COLUMN requirements_json TEXT;
  `,
}
