/**
 * The full-text index of the chats (migration 26), in its own file because the migration and its
 * triggers share the one expression that says what of a message is searchable.
 *
 * Triggers keep the index in step, not the repositories: a message is written by the turn loop,
 * copied by forks, moved by rewinds and deleted with its chat (a cascade), and a trigger sees every
 * one of those, from any process that opens the file, the CLI included.
 */

/**
 * What of a message's parts (`messages.parts`, JSON) a search reads, one part a line: its text,
 * each tool call's name and arguments, each tool result's content. Attachments, a provider's own
 * items and web search cards are left out: the person did not write them, nor did the model.
 * Parts that do not parse index as nothing rather than failing the write that stored them.
 */
function searchableText(parts: string): string {
  return `(SELECT coalesce(group_concat(
      CASE json_extract(part.value, '$.type')
        WHEN 'text' THEN json_extract(part.value, '$.text')
        WHEN 'tool_call' THEN json_extract(part.value, '$.name') || ' ' || json_extract(part.value, '$.arguments')
        WHEN 'tool_result' THEN json_extract(part.value, '$.content')
      END, char(10)), '')
    FROM json_each(CASE WHEN json_valid(${parts}) THEN ${parts} ELSE '[]' END) AS part)`
}

export const CHAT_SEARCH_SCHEMA = `
  -- The searchable text of every message of a chat the person sees in the list. A subagent's chat
  -- is left out: what it found comes back to its parent as the task call's result, indexed there,
  -- and its own chat is not one the person can open from the list.
  -- Prefix indexes of two and three characters: the last word is searched as a prefix while it is
  -- typed, and a short one ("co") would otherwise merge the lists of thousands of words on each key.
  CREATE VIRTUAL TABLE message_search USING fts5 (
    text,
    tokenize = 'unicode61 remove_diacritics 2',
    prefix = '2 3'
  );

  -- Which message each indexed row is. Its own INTEGER PRIMARY KEY, because a VACUUM may renumber
  -- the implicit rowids of \`messages\` (its key is text) but never these.
  CREATE TABLE message_search_rows (
    row INTEGER PRIMARY KEY,
    message_id TEXT NOT NULL UNIQUE
  );

  CREATE TRIGGER message_search_insert AFTER INSERT ON messages
  WHEN (SELECT parent_chat_id FROM chats WHERE id = new.chat_id) IS NULL
  BEGIN
    INSERT INTO message_search_rows (message_id) VALUES (new.id);
    INSERT INTO message_search (rowid, text) VALUES (last_insert_rowid(), ${searchableText('new.parts')});
  END;

  CREATE TRIGGER message_search_update AFTER UPDATE OF parts ON messages BEGIN
    UPDATE message_search SET text = ${searchableText('new.parts')}
    WHERE rowid = (SELECT row FROM message_search_rows WHERE message_id = new.id);
  END;

  -- Also fired by the cascade when a chat, or a turn, is deleted.
  CREATE TRIGGER message_search_delete AFTER DELETE ON messages BEGIN
    DELETE FROM message_search WHERE rowid = (SELECT row FROM message_search_rows WHERE message_id = old.id);
    DELETE FROM message_search_rows WHERE message_id = old.id;
  END;

  -- The chats stored before: indexed once, here.
  INSERT INTO message_search_rows (message_id)
  SELECT messages.id FROM messages JOIN chats ON chats.id = messages.chat_id
  WHERE chats.parent_chat_id IS NULL
  ORDER BY messages.created_at, messages.seq;
  INSERT INTO message_search (rowid, text)
  SELECT message_search_rows.row, ${searchableText('messages.parts')}
  FROM message_search_rows JOIN messages ON messages.id = message_search_rows.message_id;
`
