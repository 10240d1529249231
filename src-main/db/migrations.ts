/**
 * Numbered schema migrations, applied in order at open. `PRAGMA user_version` records the last one
 * applied. Never edit a migration that has shipped: add the next number instead.
 */
export interface Migration {
  version: number
  name: string
  sql: string
}

export const migrations: readonly Migration[] = [
  {
    version: 1,
    name: 'chats and app settings',
    sql: `
      CREATE TABLE chats (
        id TEXT PRIMARY KEY,
        title TEXT NOT NULL,
        mode TEXT NOT NULL DEFAULT 'chat' CHECK (mode IN ('chat', 'agent')),
        working_dir TEXT,
        provider TEXT,
        model TEXT,
        agent TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX chats_by_update ON chats (updated_at DESC);

      CREATE TABLE app_settings (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL,
        updated_at INTEGER NOT NULL
      );
    `,
  },
  {
    version: 2,
    name: 'tool settings',
    sql: `
      CREATE TABLE user_tool_settings (
        user_id TEXT NOT NULL,
        tool_name TEXT NOT NULL,
        enabled INTEGER CHECK (enabled IN (0, 1)),
        parameters TEXT,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (user_id, tool_name)
      );
    `,
  },
  {
    version: 3,
    name: 'freshness ledger',
    sql: `
      CREATE TABLE freshness (
        chat_id TEXT NOT NULL REFERENCES chats (id) ON DELETE CASCADE,
        real_path TEXT NOT NULL,
        sha256 TEXT NOT NULL,
        recorded_at INTEGER NOT NULL,
        PRIMARY KEY (chat_id, real_path)
      );
    `,
  },
]
