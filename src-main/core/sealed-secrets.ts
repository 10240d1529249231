/**
 * How every setting that holds a secret keeps it at rest — MCP servers' tokens and auth headers,
 * their OAuth client secrets, keys and credentials, the tool services broker's secret: sealed with
 * the data folder's key (`LocalSecretStore`), kept sealed as it is while unchanged, and opened with
 * one wording when it no longer can be.
 */
import { AtelierError, errorMessage } from '../../src-shared/errors'
import type { LocalSecretStore } from './local-secret-store'

export class SealedSecrets {
  constructor(private readonly store: LocalSecretStore) {}

  /**
   * `value` sealed. `kept` (the seal stored before) comes back instead while it still opens to this
   * very value: a digest of seals — a launch approval — stands while nothing changed.
   */
  seal(value: string, kept?: Buffer): Buffer {
    if (kept && this.openOrNothing(kept) === value) return kept
    return this.store.seal(value)
  }

  /**
   * The sealed value. When it cannot be opened (the key file is gone or was replaced), throws
   * `secret_unreadable` naming `what` it was, and `remedy`: where the person types it again.
   */
  open(sealed: Buffer, what: string, remedy: string): string {
    try {
      return this.store.unseal(sealed)
    } catch (error) {
      const reason = AtelierError.isInstance(error) ? (error.data as { reason?: string })?.reason : undefined
      throw new AtelierError(
        'secret_unreadable',
        `The stored value of ${what} cannot be decrypted (${reason ?? errorMessage(error)}): ${remedy}.`,
        { name: what },
      )
    }
  }

  /** The sealed value, or undefined when it no longer opens: for what can be had again (a token, by signing in). */
  openOrNothing(sealed: Buffer): string | undefined {
    try {
      return this.store.unseal(sealed)
    } catch {
      return undefined
    }
  }
}
