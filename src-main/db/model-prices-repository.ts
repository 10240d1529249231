import type { ModelPrice } from '../../src-shared/prices'
import type { Database } from './database'

/** A person's price of one model of one provider. */
export interface StoredModelPrice {
  providerId: string
  model: string
  price: ModelPrice
}

interface PriceRow {
  provider_id: string
  model: string
  input: number
  cached_input: number
  output: number
}

function toPrice(row: PriceRow): StoredModelPrice {
  return {
    providerId: row.provider_id,
    model: row.model,
    price: { input: row.input, cachedInput: row.cached_input, output: row.output },
  }
}

/** The prices a person stated in Settings → Providers; they win over the defaults. */
export class ModelPricesRepository {
  private readonly statements

  constructor(db: Database) {
    this.statements = {
      list: db.prepare<[string], PriceRow>('SELECT * FROM model_prices WHERE provider_id = ? ORDER BY model'),
      get: db.prepare<[string, string], PriceRow>(
        'SELECT * FROM model_prices WHERE provider_id = ? AND model = ?',
      ),
      upsert: db.prepare(
        `INSERT INTO model_prices (provider_id, model, input, cached_input, output, updated_at)
         VALUES (@providerId, @model, @input, @cachedInput, @output, @updatedAt)
         ON CONFLICT (provider_id, model) DO UPDATE SET input = excluded.input,
           cached_input = excluded.cached_input, output = excluded.output, updated_at = excluded.updated_at`,
      ),
      delete: db.prepare('DELETE FROM model_prices WHERE provider_id = ? AND model = ?'),
    }
  }

  list(providerId: string): StoredModelPrice[] {
    return this.statements.list.all(providerId).map(toPrice)
  }

  get(providerId: string, model: string): StoredModelPrice | undefined {
    const row = this.statements.get.get(providerId, model)
    return row && toPrice(row)
  }

  save({ providerId, model, price }: StoredModelPrice): void {
    this.statements.upsert.run({ providerId, model, ...price, updatedAt: Date.now() })
  }

  delete(providerId: string, model: string): boolean {
    return this.statements.delete.run(providerId, model).changes > 0
  }
}
