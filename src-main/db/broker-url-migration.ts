import { BROKER_URL, type SealedSecrets } from '../core/sealed-secrets'
import type { Database } from './database'

/**
 * Schema 16: the broker's URL was kept as typed, credentials and all (`nats://user:PASS@…`). It is
 * kept masked from now on, beside the URL as typed, sealed. The keys are the broker connection's
 * (`tool-services/broker-connection.ts`), written out here as this schema left them.
 */
export function sealBrokerUrl(db: Database, secrets: SealedSecrets): { scrubbed: boolean } {
  const row = db
    .prepare<[], { value: string }>("SELECT value FROM app_settings WHERE key = 'toolServices.broker'")
    .get()
  let broker: { url?: unknown }
  try {
    broker = JSON.parse(row?.value ?? 'null') as { url?: unknown }
  } catch {
    return { scrubbed: false }
  }
  if (typeof broker?.url !== 'string') return { scrubbed: false }
  const url = secrets.sealUrl(broker.url, undefined, BROKER_URL)
  if (!url.sealed) return { scrubbed: false }
  const write = db.prepare(
    `INSERT INTO app_settings (key, value, updated_at) VALUES (?, ?, ?)
     ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
  )
  write.run('toolServices.brokerUrl', JSON.stringify(url.sealed.toString('base64')), Date.now())
  write.run('toolServices.broker', JSON.stringify({ ...broker, url: url.shown }), Date.now())
  return { scrubbed: true }
}
