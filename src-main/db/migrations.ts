/**
 * Numbered schema migrations, applied in order at open. `PRAGMA user_version` records the last one
 * applied. Never edit a migration that has shipped: add the next number instead.
 */
import { dirname } from 'node:path'
import { LocalSecretStore } from '../core/local-secret-store'
import { SealedSecrets } from '../core/sealed-secrets'
import { sealBrokerUrl } from './broker-url-migration'
import { CHAT_SEARCH_SCHEMA } from './chat-search-schema'
import type { Database } from './database'
import { upgradeStoredProtectedPaths } from './legacy-protected-paths'
import { upgradeToolResultPart } from './legacy-tool-results'
import { sealClearTextSecrets, sealEveryValue } from './mcp-servers-repository'

export interface Migration {
  version: number
  name: string
  sql: string
  /**
   * Rewrites stored data that SQL alone cannot, in the same transaction, after `sql`. `scrubbed`:
   * it removed values whose old copies must not survive in the file's free pages.
   */
  upgrade?: (db: Database) => undefined | { scrubbed: boolean }
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
  {
    version: 4,
    name: 'conversations, providers and agent profiles',
    sql: `
      CREATE TABLE turns (
        id TEXT PRIMARY KEY,
        chat_id TEXT NOT NULL REFERENCES chats (id) ON DELETE CASCADE,
        status TEXT NOT NULL CHECK (status IN ('running', 'completed', 'stopped', 'failed', 'interrupted')),
        error TEXT,
        -- The process running the turn: a later open marks the turn interrupted when it is gone.
        pid INTEGER NOT NULL,
        started_at INTEGER NOT NULL,
        ended_at INTEGER
      );
      CREATE INDEX turns_by_chat ON turns (chat_id, started_at);
      CREATE INDEX turns_running ON turns (status) WHERE status = 'running';

      CREATE TABLE messages (
        id TEXT PRIMARY KEY,
        chat_id TEXT NOT NULL REFERENCES chats (id) ON DELETE CASCADE,
        turn_id TEXT NOT NULL REFERENCES turns (id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        role TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'tool')),
        parts TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        UNIQUE (chat_id, seq)
      );

      CREATE TABLE providers (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('openai-responses', 'openai-chat', 'gemini', 'anthropic')),
        name TEXT NOT NULL,
        base_url TEXT,
        default_model TEXT,
        -- Encrypted by the OS keychain (Electron safeStorage); NULL: the key comes from the environment.
        encrypted_key BLOB,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );

      CREATE TABLE agent_profiles (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        system_prompt TEXT NOT NULL,
        -- JSON array of tool names; NULL: every enabled tool.
        tools TEXT,
        default_mode TEXT NOT NULL CHECK (default_mode IN ('chat', 'agent')),
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
    `,
  },
  {
    version: 5,
    name: 'MCP servers',
    sql: `
      CREATE TABLE mcp_servers (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        transport TEXT NOT NULL CHECK (transport IN ('stdio', 'http')),
        -- JSON: { command, args, env, cwd } for stdio, { url, headers } for http.
        config TEXT NOT NULL,
        enabled INTEGER NOT NULL CHECK (enabled IN (0, 1)),
        -- The stdio command line the person confirmed; a server whose command changed waits for a new yes.
        approved_command TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
    `,
  },
  {
    version: 6,
    name: 'MCP approvals cover the whole launch',
    // What is approved is now the command line with its environment and folder; approvals of the
    // command line alone no longer match, so such servers ask once more.
    sql: `
      ALTER TABLE mcp_servers RENAME COLUMN approved_command TO approved_launch;
    `,
  },
  {
    version: 7,
    name: 'tool results say how they are shown',
    sql: '',
    upgrade: (db) => {
      const rows = db.prepare<[], { id: string; parts: string }>(
        "SELECT id, parts FROM messages WHERE role = 'tool'",
      )
      const save = db.prepare('UPDATE messages SET parts = ? WHERE id = ?')
      for (const { id, parts } of rows.all()) {
        let stored: unknown
        try {
          stored = JSON.parse(parts)
        } catch {
          continue
        }
        if (Array.isArray(stored)) save.run(JSON.stringify(stored.map(upgradeToolResultPart)), id)
      }
    },
  },
  {
    version: 8,
    name: 'MCP secrets sealed',
    sql: `
      CREATE TABLE mcp_secrets (
        server_id TEXT NOT NULL REFERENCES mcp_servers (id) ON DELETE CASCADE,
        -- The environment variable (stdio) or header (http) the value is for.
        name TEXT NOT NULL,
        -- AES-256-GCM under the key in secrets.key beside the database: this file alone cannot reveal it.
        sealed BLOB NOT NULL,
        PRIMARY KEY (server_id, name)
      );
    `,
    // The key sits beside the database file, so the values kept in clear until now move at once,
    // in this transaction; it is created only if there is something to seal.
    upgrade: (db) => sealClearTextSecrets(db, new LocalSecretStore(dirname(db.name))),
  },
  {
    version: 9,
    name: 'saved denied paths that are the old default follow the new defaults',
    // The settings panel saves every parameter of a tool it saves, so a list nobody edited was stored
    // as it then was; dropped, it takes the longer default list (credential stores, browser
    // profiles, and for write and edit the shell start-up files).
    sql: `
      UPDATE user_tool_settings SET parameters = json_remove(parameters, '$.deniedPaths')
      WHERE json_valid(parameters)
        AND json_extract(parameters, '$.deniedPaths') = '["~/.ssh","~/.gnupg","~/.aws"]';
    `,
  },
  {
    version: 10,
    name: 'approval modes and permission rules',
    sql: `
      -- NULL: the agent profile's mode.
      ALTER TABLE chats ADD COLUMN approval_mode TEXT
        CHECK (approval_mode IN ('ask', 'accept-edits', 'read-only', 'full-auto'));
      ALTER TABLE agent_profiles ADD COLUMN approval_mode TEXT NOT NULL DEFAULT 'ask'
        CHECK (approval_mode IN ('ask', 'accept-edits', 'read-only', 'full-auto'));

      CREATE TABLE permission_rules (
        id TEXT PRIMARY KEY,
        rule TEXT NOT NULL,
        action TEXT NOT NULL CHECK (action IN ('allow', 'ask', 'deny')),
        scope TEXT NOT NULL CHECK (scope IN ('chat', 'project', 'global')),
        chat_id TEXT REFERENCES chats (id) ON DELETE CASCADE,
        folder TEXT,
        source TEXT NOT NULL CHECK (source IN ('approval', 'settings', 'cli')),
        created_at INTEGER NOT NULL,
        last_used_at INTEGER,
        CHECK ((scope = 'chat') = (chat_id IS NOT NULL)),
        CHECK ((scope = 'project') = (folder IS NOT NULL))
      );
    `,
  },
  {
    version: 11,
    name: 'tool services and their tools',
    sql: `
      CREATE TABLE tool_services (
        id TEXT PRIMARY KEY,
        -- The descriptor as the seed writes it (JSON): NATS subjects, or a stdio command.
        descriptor TEXT NOT NULL,
        enabled INTEGER NOT NULL DEFAULT 1,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE TABLE tools (
        name TEXT PRIMARY KEY,
        service TEXT NOT NULL REFERENCES tool_services (id) ON DELETE CASCADE,
        descriptor TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
    `,
  },
  {
    version: 12,
    name: 'token usage, context windows and compactions',
    sql: `
      -- An assistant message's tokens as its provider reported them (JSON); NULL when it did not.
      ALTER TABLE messages ADD COLUMN usage TEXT;
      -- Tokens; NULL: from the model listing or the table of well-known models.
      ALTER TABLE providers ADD COLUMN context_window INTEGER;

      -- What the model sees of a conversation from then on; the messages themselves stay as they were.
      CREATE TABLE compactions (
        id TEXT PRIMARY KEY,
        chat_id TEXT NOT NULL REFERENCES chats (id) ON DELETE CASCADE,
        turn_id TEXT REFERENCES turns (id) ON DELETE CASCADE,
        reason TEXT NOT NULL CHECK (reason IN ('threshold', 'overflow', 'manual')),
        after_message_id TEXT NOT NULL,
        elided_through TEXT,
        summarized_through TEXT,
        summary TEXT,
        tokens_before INTEGER NOT NULL,
        tokens_after INTEGER NOT NULL,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX compactions_by_chat ON compactions (chat_id, created_at);
    `,
  },
  {
    version: 13,
    name: 'MCP OAuth credentials',
    sql: `
      -- A remote MCP server's OAuth secrets, each sealed like mcp_secrets: the configured client
      -- secret or signing key, and what signing in leaves (as JSON): the client registration, the
      -- tokens, the PKCE verifier of a sign-in under way, and the discovered metadata.
      CREATE TABLE mcp_oauth_credentials (
        server_id TEXT NOT NULL REFERENCES mcp_servers (id) ON DELETE CASCADE,
        kind TEXT NOT NULL CHECK (kind IN
          ('client_secret', 'client_private_key', 'client_information', 'tokens', 'code_verifier',
           'discovery')),
        sealed BLOB NOT NULL,
        PRIMARY KEY (server_id, kind)
      );
    `,
  },
  {
    version: 14,
    name: 'tool calls with a state, and turns with an error code',
    sql: `
      -- A tool call's state as the scheduler last told it; its result stays in the tool message.
      CREATE TABLE tool_calls (
        turn_id TEXT NOT NULL REFERENCES turns (id) ON DELETE CASCADE,
        -- The id the model gave it: unique within its turn.
        id TEXT NOT NULL,
        chat_id TEXT NOT NULL REFERENCES chats (id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        title TEXT,
        call_index INTEGER NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('validating', 'scheduled', 'awaiting_approval',
          'executing', 'awaiting_input', 'succeeded', 'failed', 'cancelled')),
        error_type TEXT,
        -- JSON: what it does (kind, summary, locations), once described.
        description TEXT,
        -- JSON: what was decided for it, by whom, under which rule, when.
        decisions TEXT NOT NULL DEFAULT '[]',
        created_at INTEGER NOT NULL,
        started_at INTEGER,
        ended_at INTEGER,
        waited_ms INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (turn_id, id)
      );
      CREATE INDEX tool_calls_by_chat ON tool_calls (chat_id, created_at);

      -- Every result stored before: its call, ended as its result says.
      INSERT OR IGNORE INTO tool_calls (turn_id, id, chat_id, name, call_index, status, error_type,
        created_at, ended_at)
      SELECT m.turn_id, json_extract(p.value, '$.callId'), m.chat_id, json_extract(p.value, '$.name'), 0,
        CASE WHEN NOT json_extract(p.value, '$.isError') THEN 'succeeded'
             WHEN json_extract(p.value, '$.errorType') = 'aborted' THEN 'cancelled'
             ELSE 'failed' END,
        CASE WHEN json_extract(p.value, '$.isError')
             THEN coalesce(json_extract(p.value, '$.errorType'), 'execution_failed') END,
        m.created_at, m.created_at
      FROM messages m, json_each(m.parts) p
      WHERE m.role = 'tool' AND json_valid(m.parts) AND json_extract(p.value, '$.type') = 'tool_result'
        AND json_extract(p.value, '$.callId') IS NOT NULL AND json_extract(p.value, '$.name') IS NOT NULL;

      -- Why a turn failed, as a code the app acts on (the words stay in \`error\`).
      ALTER TABLE turns ADD COLUMN error_code TEXT;
      -- Turns stored before kept only the words: the code read back from them, once, here.
      UPDATE turns SET error_code = CASE
        WHEN error LIKE '%refused the API key%' THEN 'provider_auth'
        WHEN error LIKE '%is rate limiting requests%' THEN 'provider_rate_limited'
        WHEN error LIKE '%could not be reached%' THEN 'provider_connection'
        WHEN error LIKE '%longer than its context window%' THEN 'provider_context_overflow'
        WHEN error LIKE 'No model provider is set up%' THEN 'no_provider'
        WHEN error LIKE '%has no API key%' THEN 'missing_api_key'
        WHEN error LIKE 'Choose a model for %' THEN 'missing_model'
        WHEN error LIKE '%rejected the request (%' THEN 'provider_rejected'
        WHEN error GLOB '* answered 5[0-9][0-9]:*' THEN 'provider_unavailable'
        WHEN error LIKE 'A stored secret cannot be decrypted%' THEN 'secret_unreadable'
        WHEN error LIKE 'Stopped after % model responses%' THEN 'max_iterations'
        WHEN error LIKE 'The model reached its output limit%' THEN 'max_tokens'
        WHEN error LIKE 'The model called % with the same arguments%' THEN 'repeated_call'
        WHEN error LIKE '% failed in a way the model cannot fix:%' THEN 'fatal_tool_error'
        WHEN status = 'interrupted' THEN 'interrupted'
        WHEN status = 'failed' THEN 'internal'
      END
      WHERE error IS NOT NULL;
    `,
  },
  {
    version: 15,
    name: 'stored protected paths get the entries added since',
    sql: '',
    upgrade: upgradeStoredProtectedPaths,
  },
  {
    version: 16,
    name: 'every MCP value and URL credential sealed, and custom tool trust per content',
    sql: `
      -- Trust was a list of folders; it is now each folder with its modules' digests as trusted.
      -- Folders trusted before have none recorded: their modules wait for the person to confirm them.
      UPDATE app_settings
      SET value = (
        SELECT json_group_array(json_object('folder', folder.value, 'modules', json_object()))
        FROM json_each(app_settings.value) AS folder
        WHERE folder.type = 'text'
      )
      WHERE key = 'customTools.trustedFolders' AND json_valid(value) AND json_type(value) = 'array';
    `,
    upgrade: (db) => {
      const secrets = new SealedSecrets(new LocalSecretStore(dirname(db.name)))
      const servers = sealEveryValue(db, secrets)
      const broker = sealBrokerUrl(db, secrets)
      return { scrubbed: servers.scrubbed || broker.scrubbed }
    },
  },
  {
    version: 17,
    name: 'announced tool services enabled by version',
    sql: `
      -- The version of an announced tool service the person enabled: its descriptor and tools as
      -- they were (canonical JSON), and their sha256. An announcement of anything else is off until
      -- enabled again; the descriptor kept here is what the change is shown against.
      CREATE TABLE enabled_announced_services (
        id TEXT PRIMARY KEY,
        version TEXT NOT NULL,
        descriptor TEXT NOT NULL,
        enabled_at INTEGER NOT NULL
      );
    `,
  },
  {
    version: 18,
    name: 'running turns owned by a process start, not a PID alone',
    sql: `
      -- What tells the process running a turn apart from a later one given its PID (see
      -- src-main/core/process-owner.ts). Turns stored before have none: they go by the PID alone.
      ALTER TABLE turns ADD COLUMN owner_start TEXT;
    `,
  },
  {
    version: 19,
    name: 'running commands',
    sql: `
      -- A shell command while it runs: what a later open tells the model of it when Atelier died
      -- under it. Gone when the command ends; its call has a result then.
      CREATE TABLE running_commands (
        chat_id TEXT NOT NULL REFERENCES chats (id) ON DELETE CASCADE,
        call_id TEXT NOT NULL,
        -- The command's process, the leader of its group, and when it started (where the system
        -- says): a pid used again by another process is not taken for it.
        pid INTEGER NOT NULL,
        process_started TEXT,
        -- The last of each stream so far, saved every few seconds at most.
        stdout TEXT NOT NULL DEFAULT '',
        stderr TEXT NOT NULL DEFAULT '',
        started_at INTEGER NOT NULL,
        PRIMARY KEY (chat_id, call_id)
      );
    `,
  },
  {
    version: 20,
    name: 'checkpoints',
    sql: `
      -- A snapshot of a chat's folder before and after a turn that may have changed it, or before and
      -- after a restore. The snapshots themselves are in the data folder's checkpoint store.
      CREATE TABLE checkpoints (
        id TEXT PRIMARY KEY,
        chat_id TEXT NOT NULL REFERENCES chats (id) ON DELETE CASCADE,
        -- The turn it records (NULL for a restore); no reference: a rewind moves turns to a fork.
        turn_id TEXT,
        kind TEXT NOT NULL CHECK (kind IN ('turn', 'restore')),
        folder TEXT NOT NULL,
        before_root TEXT NOT NULL,
        -- NULL until the turn or the restore has ended.
        after_root TEXT,
        added INTEGER NOT NULL DEFAULT 0,
        modified INTEGER NOT NULL DEFAULT 0,
        deleted INTEGER NOT NULL DEFAULT 0,
        undone_by TEXT,
        -- A restore: JSON {checkpointId, scope, forkChatId?, turnId?}.
        restored TEXT,
        -- A restore the model has not been told of yet: JSON list of the paths it set back.
        untold TEXT,
        created_at INTEGER NOT NULL,
        ended_at INTEGER
      );
      CREATE INDEX checkpoints_by_chat ON checkpoints (chat_id, created_at);
      CREATE INDEX checkpoints_by_folder ON checkpoints (folder, created_at);

      -- The paths one call of a turn changed (a snapshot before and after it).
      CREATE TABLE checkpoint_calls (
        checkpoint_id TEXT NOT NULL REFERENCES checkpoints (id) ON DELETE CASCADE,
        call_id TEXT NOT NULL,
        tool TEXT NOT NULL,
        paths TEXT NOT NULL,
        PRIMARY KEY (checkpoint_id, call_id)
      );

      -- A restore under way: what it writes, so a start after a crash finishes it.
      CREATE TABLE restore_journal (
        checkpoint_id TEXT PRIMARY KEY REFERENCES checkpoints (id) ON DELETE CASCADE,
        steps TEXT NOT NULL
      );
    `,
  },
  {
    version: 21,
    name: 'instruction files a chat took in',
    sql: `
      -- A subfolder's AGENTS.md (or kin) that joined a chat's instructions when the agent first
      -- worked under that subfolder: later turns' system prompts carry it too.
      CREATE TABLE chat_instruction_files (
        chat_id TEXT NOT NULL REFERENCES chats (id) ON DELETE CASCADE,
        path TEXT NOT NULL,
        added_at INTEGER NOT NULL,
        PRIMARY KEY (chat_id, path)
      );
    `,
  },
  {
    version: 22,
    name: 'plan mode',
    sql: '',
    upgrade: allowPlanMode,
  },
  {
    version: 23,
    name: "providers' own web search",
    sql: `
      -- 1: the provider's turns use its own web search (Responses, Gemini, Anthropic).
      ALTER TABLE providers ADD COLUMN hosted_search INTEGER NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 24,
    name: 'subagents',
    sql: `
      -- A subagent's chat: the chat whose task call ran it, and that call. Hidden from the chat list;
      -- it goes with its parent.
      ALTER TABLE chats ADD COLUMN parent_chat_id TEXT REFERENCES chats (id) ON DELETE CASCADE;
      ALTER TABLE chats ADD COLUMN parent_call_id TEXT;
      CREATE INDEX chats_by_parent ON chats (parent_chat_id);

      -- What the task tool's description says of a profile, and whether it is offered to it.
      ALTER TABLE agent_profiles ADD COLUMN description TEXT NOT NULL DEFAULT '';
      ALTER TABLE agent_profiles ADD COLUMN delegable INTEGER NOT NULL DEFAULT 0;
    `,
    upgrade: seedSubagentProfiles,
  },
  {
    version: 25,
    name: 'chat library',
    sql: `
      -- Pinned chats are listed first; archived ones only when the person asks for them.
      ALTER TABLE chats ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE chats ADD COLUMN archived INTEGER NOT NULL DEFAULT 0;
      -- A fork (Fork from here): the chat and the message it was forked at. Not foreign keys: a fork
      -- outlives its source, which then reads as gone.
      ALTER TABLE chats ADD COLUMN forked_from_chat_id TEXT;
      ALTER TABLE chats ADD COLUMN forked_from_message_id TEXT;
      CREATE INDEX chats_by_fork_source ON chats (forked_from_chat_id);
    `,
  },
  {
    version: 26,
    name: 'full-text search over the chats',
    sql: CHAT_SEARCH_SCHEMA,
  },
  {
    version: 27,
    name: 'model prices',
    sql: `
      -- The person's price of a model of a provider, in US dollars per million tokens: it wins over
      -- the defaults in src-shared/prices.ts. A response's cost is kept in its usage when answered.
      CREATE TABLE model_prices (
        provider_id TEXT NOT NULL REFERENCES providers (id) ON DELETE CASCADE,
        model TEXT NOT NULL,
        input REAL NOT NULL,
        cached_input REAL NOT NULL,
        output REAL NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (provider_id, model)
      );
      -- Usage per day reads messages by when they were written.
      CREATE INDEX messages_with_usage_by_time ON messages (created_at) WHERE usage IS NOT NULL;
    `,
  },
  {
    version: 28,
    name: "tool services' last errors",
    sql: `
      -- What went wrong lately with each tool service, and what the broker connection ignored
      -- (source 'broker'): kept here so that every process shows them, the CLI as the desktop app.
      CREATE TABLE tool_service_errors (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        source TEXT NOT NULL,
        at INTEGER NOT NULL,
        message TEXT NOT NULL
      );
      CREATE INDEX tool_service_errors_by_source ON tool_service_errors (source, id);
    `,
  },
  {
    version: 29,
    name: "what an MCP server's sign-in still needs",
    sql: `
      -- One more kind: that a server needs signing in again, and the scope it asked for (a step-up),
      -- so "atelier mcp login" in another process asks for it. The table is rebuilt to widen its
      -- CHECK; nothing references it, so no row elsewhere goes with the old one.
      CREATE TABLE mcp_oauth_credentials_new (
        server_id TEXT NOT NULL REFERENCES mcp_servers (id) ON DELETE CASCADE,
        kind TEXT NOT NULL CHECK (kind IN
          ('client_secret', 'client_private_key', 'client_information', 'tokens', 'code_verifier',
           'discovery', 'sign_in_needed')),
        sealed BLOB NOT NULL,
        PRIMARY KEY (server_id, kind)
      );
      INSERT INTO mcp_oauth_credentials_new (server_id, kind, sealed)
        SELECT server_id, kind, sealed FROM mcp_oauth_credentials;
      DROP TABLE mcp_oauth_credentials;
      ALTER TABLE mcp_oauth_credentials_new RENAME TO mcp_oauth_credentials;
    `,
  },
]

/** The profiles a `task` can name from the start; ordinary rows, so the person edits or removes them. */
const SUBAGENT_PROFILES = [
  {
    id: 'explore',
    name: 'explore',
    description:
      'Finds and reads what a question needs in the project (read-only) and reports with file:line references.',
    systemPrompt: [
      'You are a subagent exploring a project for another agent, who sees only your final answer.',
      'Search and read (glob, grep, list_directory, read_file) until you can answer the question you were given; change nothing.',
      'Answer with what you found, concisely: each finding with its file:line reference, then what it means for the question.',
      'Leave out file contents the answer does not need; say plainly what you could not find.',
    ].join('\n'),
    tools: ['read_file', 'list_directory', 'glob', 'grep'],
  },
  {
    id: 'general',
    name: 'general',
    description: 'Does a self-contained piece of work with the same tools as you, and reports what it did.',
    systemPrompt: [
      'You are a subagent doing one piece of work for another agent, who sees only your final answer.',
      'Look before you act: read and search the files that matter before you change them, and keep edits small and precise.',
      'End with a short report: what you did, what you found, the files you changed, and anything left undone.',
    ].join('\n'),
    tools: null,
  },
]

/** Seeds `explore` and `general`, each unless the person has a profile of that name already. */
function seedSubagentProfiles(db: Database): undefined {
  const insert = db.prepare(
    `INSERT INTO agent_profiles (id, name, system_prompt, tools, default_mode, approval_mode, description,
       delegable, created_at, updated_at)
     SELECT @id, @name, @systemPrompt, @tools, 'agent', 'ask', @description, 1, @now, @now
     WHERE NOT EXISTS (SELECT 1 FROM agent_profiles WHERE name = @name OR id = @id)`,
  )
  const now = Date.now()
  for (const profile of SUBAGENT_PROFILES) {
    insert.run({ ...profile, tools: profile.tools && JSON.stringify(profile.tools), now })
  }
  return undefined
}

/**
 * Widens the CHECK of the two approval-mode columns to take `plan`. SQLite cannot alter a column's
 * constraint, and rebuilding `chats` would cascade-delete every conversation while foreign keys are
 * on (they cannot be turned off inside the migration's transaction); a constraint that accepts more
 * leaves every stored row as valid as it was, which is the case SQLite documents for editing the
 * schema text itself (https://www.sqlite.org/lang_altertable.html#otheralter).
 */
function allowPlanMode(db: Database): undefined {
  const version = db.pragma('schema_version', { simple: true }) as number
  db.unsafeMode(true)
  try {
    db.pragma('writable_schema = ON')
    db.prepare(
      `UPDATE sqlite_schema SET sql = replace(sql, '''read-only'', ''full-auto'')', '''read-only'', ''full-auto'', ''plan'')')
       WHERE type = 'table' AND name IN ('chats', 'agent_profiles')`,
    ).run()
    // A CHECK written otherwise than expected would leave `plan` refused: fail the migration instead.
    const widened = db
      .prepare(
        "SELECT count(*) AS count FROM sqlite_schema WHERE type = 'table' AND name IN ('chats', 'agent_profiles') AND sql LIKE '%''full-auto'', ''plan''%'",
      )
      .get() as { count: number }
    if (widened.count !== 2)
      throw new Error('The approval-mode CHECK of chats and agent_profiles was not found.')
    db.pragma(`schema_version = ${version + 1}`)
    db.pragma('writable_schema = OFF')
  } finally {
    db.unsafeMode(false)
  }
  return undefined
}
