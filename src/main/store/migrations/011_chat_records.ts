import type { Migration } from './types'

export const chatRecords: Migration = {
  version: 11,
  name: 'chat_records',
  up: `
    -- What the chat keeps beside the loop's own rows (store/chatRecordsRepo.ts): the run journal (the model's
    -- text per iteration, each tool call's answer, phase changes, stall and checkpoint notices) and the link
    -- from an Ask answer to its usage row in llm_usage.
    CREATE TABLE run_journal (
      id INTEGER PRIMARY KEY,
      run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
      iteration INTEGER NOT NULL,
      -- How many tool calls of the iteration came before this entry; a 'tool' entry holds call number pos.
      pos INTEGER NOT NULL,
      kind TEXT NOT NULL,
      text TEXT NOT NULL
    );
    CREATE INDEX run_journal_run ON run_journal(run_id, iteration, id);
    CREATE TABLE answer_usage (
      message_id INTEGER PRIMARY KEY REFERENCES messages(id) ON DELETE CASCADE,
      usage_id INTEGER NOT NULL REFERENCES llm_usage(id) ON DELETE CASCADE,
      -- The model calls the answer took (one llm_usage row sums them), and whether the price table knew the model.
      calls INTEGER NOT NULL,
      priced INTEGER NOT NULL
    );
  `,
}
