/**
 * The freshness ledger: what a chat has read, by real path and sha256 — the guard on overwriting a
 * file. Async, so a tool running in another process can reach it through its host.
 */
export interface FreshnessLedger {
  record(realPath: string, sha256: string): Promise<void>
  get(realPath: string): Promise<string | undefined>
}

/** A ledger for a call outside any chat: it lives as long as the call. */
export function ephemeralLedger(): FreshnessLedger {
  const seen = new Map<string, string>()
  return {
    record: async (path, sha) => void seen.set(path, sha),
    get: async (path) => seen.get(path),
  }
}
