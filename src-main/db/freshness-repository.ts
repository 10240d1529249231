import type { FreshnessLedger } from '../core/freshness-ledger'
import type { Database } from './database'

/** The freshness ledger of each chat, kept in SQLite so it outlives the process. */
export class FreshnessRepository {
  private readonly statements

  constructor(db: Database) {
    this.statements = {
      get: db.prepare<[string, string], { sha256: string }>(
        'SELECT sha256 FROM freshness WHERE chat_id = ? AND real_path = ?',
      ),
      record: db.prepare(
        `INSERT INTO freshness (chat_id, real_path, sha256, recorded_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (chat_id, real_path) DO UPDATE SET sha256 = excluded.sha256, recorded_at = excluded.recorded_at`,
      ),
    }
  }

  ledgerFor(chatId: string, now: () => number = Date.now): FreshnessLedger {
    return {
      record: async (realPath, sha256) => {
        this.statements.record.run(chatId, realPath, sha256, now())
      },
      get: async (realPath) => this.statements.get.get(chatId, realPath)?.sha256,
    }
  }
}
