import type { Migration } from './types'

export const chatQueue: Migration = {
  version: 6,
  name: 'chat_queue',
  up: `
    -- A task card written while another task ran: it waits, with its request in text, until that task ends
    -- (or the user starts or removes it). 0 once it has started.
    ALTER TABLE messages ADD COLUMN queued INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX messages_queued ON messages(queued) WHERE queued = 1;
  `,
}
