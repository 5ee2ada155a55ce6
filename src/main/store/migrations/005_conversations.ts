import type { Migration } from './types'

export const conversations: Migration = {
  version: 5,
  name: 'conversations',
  up: `
    -- A project's chats. The newest one is the current conversation; "New conversation" starts another.
    CREATE TABLE conversations (
      id INTEGER PRIMARY KEY,
      project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      title TEXT,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL
    );
    CREATE INDEX conversations_project ON conversations(project_id, id);

    -- kind: 'user' (what the user wrote, with its mode), 'task' (a card; its content is read from the run),
    -- 'answer' (an Ask-mode reply), 'notice' (a rollback, a start that failed …).
    -- A task card knows its task number once the loop reports task.started, and its run soon after; outcome
    -- keeps the words the loop finished with (the summary, the question, the failure), which runs do not store.
    CREATE TABLE messages (
      id INTEGER PRIMARY KEY,
      conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
      kind TEXT NOT NULL,
      mode TEXT,
      text TEXT NOT NULL DEFAULT '',
      task INTEGER,
      run_id INTEGER REFERENCES runs(id) ON DELETE SET NULL,
      outcome TEXT,
      error TEXT,
      created_at INTEGER NOT NULL
    );
    CREATE INDEX messages_conversation ON messages(conversation_id, id);
    CREATE INDEX messages_run ON messages(run_id);
  `,
}
