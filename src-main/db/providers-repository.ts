import type { ProviderKind } from '../../src-shared/agent'
import type { Database } from './database'

/** A provider as stored; the key stays encrypted until a request needs it. */
export interface StoredProvider {
  id: string
  kind: ProviderKind
  name: string
  baseUrl: string | null
  defaultModel: string | null
  encryptedKey: Buffer | null
  contextWindow: number | null
  /** The provider's own web search is switched on. */
  hostedSearch: boolean
  createdAt: number
  updatedAt: number
}

interface ProviderRow {
  id: string
  kind: ProviderKind
  name: string
  base_url: string | null
  default_model: string | null
  encrypted_key: Buffer | null
  context_window: number | null
  hosted_search: number
  created_at: number
  updated_at: number
}

function toProvider(row: ProviderRow): StoredProvider {
  return {
    id: row.id,
    kind: row.kind,
    name: row.name,
    baseUrl: row.base_url,
    defaultModel: row.default_model,
    encryptedKey: row.encrypted_key,
    contextWindow: row.context_window,
    hostedSearch: row.hosted_search === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }
}

export class ProvidersRepository {
  private readonly statements

  constructor(db: Database) {
    this.statements = {
      list: db.prepare<[], ProviderRow>('SELECT * FROM providers ORDER BY created_at, rowid'),
      get: db.prepare<[string], ProviderRow>('SELECT * FROM providers WHERE id = ?'),
      upsert: db.prepare(
        `INSERT INTO providers (id, kind, name, base_url, default_model, encrypted_key, context_window,
           hosted_search, created_at, updated_at)
         VALUES (@id, @kind, @name, @baseUrl, @defaultModel, @encryptedKey, @contextWindow, @hostedSearch,
           @createdAt, @updatedAt)
         ON CONFLICT (id) DO UPDATE SET name = excluded.name, base_url = excluded.base_url,
           default_model = excluded.default_model, encrypted_key = excluded.encrypted_key,
           context_window = excluded.context_window, hosted_search = excluded.hosted_search, updated_at = excluded.updated_at`,
      ),
      delete: db.prepare('DELETE FROM providers WHERE id = ?'),
    }
  }

  list(): StoredProvider[] {
    return this.statements.list.all().map(toProvider)
  }

  get(id: string): StoredProvider | undefined {
    const row = this.statements.get.get(id)
    return row && toProvider(row)
  }

  save(provider: StoredProvider): void {
    this.statements.upsert.run({ ...provider, hostedSearch: provider.hostedSearch ? 1 : 0 })
  }

  delete(id: string): boolean {
    return this.statements.delete.run(id).changes > 0
  }
}
