import type { Database } from './database'

/** The subfolder instruction files each chat has taken in, oldest first. */
export class InstructionFilesRepository {
  private readonly statements

  constructor(
    db: Database,
    private readonly now: () => number = Date.now,
  ) {
    this.statements = {
      add: db.prepare(
        'INSERT OR IGNORE INTO chat_instruction_files (chat_id, path, added_at) VALUES (?, ?, ?)',
      ),
      list: db.prepare<[string], { path: string }>(
        'SELECT path FROM chat_instruction_files WHERE chat_id = ? ORDER BY added_at, rowid',
      ),
    }
  }

  add(chatId: string, path: string): void {
    this.statements.add.run(chatId, path, this.now())
  }

  list(chatId: string): string[] {
    return this.statements.list.all(chatId).map((row) => row.path)
  }
}
