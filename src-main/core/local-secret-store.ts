/**
 * Secret values at rest (MCP servers' tokens and auth headers): AES-256-GCM under a random key kept
 * in `secrets.key` beside the database, mode 0600 in the 0700 data folder that no tool may read.
 *
 * The key is a file, not the OS keychain, because every Atelier process of the data folder — the
 * desktop app, the CLI, the web host — must be able to launch the servers it has; a key wrapped by
 * Electron's safeStorage would leave the CLI unable to. What it buys: the database alone (a backup,
 * a synced copy, a file attached to a bug report) never holds a secret, and nothing that crosses
 * the contract does.
 */
import { createCipheriv, createDecipheriv, randomBytes, randomUUID } from 'node:crypto'
import { closeSync, fsyncSync, linkSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { AtelierError } from '../../src-shared/errors'

export const SECRET_KEY_FILE = 'secrets.key'

const KEY_BYTES = 32
const IV_BYTES = 12
const TAG_BYTES = 16
/** The first byte of every sealed value, so a later format can tell its own from these. */
const FORMAT = 1

export class LocalSecretStore {
  private key: Buffer | undefined

  /** `folder`: the data folder, where the database is. */
  constructor(private readonly folder: string) {}

  /** The value encrypted, with its nonce and tag; the key file is created on first use. */
  seal(text: string): Buffer {
    const iv = randomBytes(IV_BYTES)
    const cipher = createCipheriv('aes-256-gcm', this.keyOrCreate(), iv)
    const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()])
    return Buffer.concat([Buffer.of(FORMAT), iv, cipher.getAuthTag(), body])
  }

  /** Throws `secret_unreadable` when the key file is gone or is not the one that sealed it. */
  unseal(sealed: Buffer): string {
    const key = this.existingKey()
    if (sealed[0] !== FORMAT || sealed.length < 1 + IV_BYTES + TAG_BYTES) {
      throw unreadable('the stored value is not in a format this Atelier knows')
    }
    const iv = sealed.subarray(1, 1 + IV_BYTES)
    const tag = sealed.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES)
    const decipher = createDecipheriv('aes-256-gcm', key, iv)
    decipher.setAuthTag(tag)
    try {
      return Buffer.concat([
        decipher.update(sealed.subarray(1 + IV_BYTES + TAG_BYTES)),
        decipher.final(),
      ]).toString('utf8')
    } catch {
      throw unreadable(`${this.file} is not the key it was stored with`)
    }
  }

  private get file(): string {
    return join(this.folder, SECRET_KEY_FILE)
  }

  private existingKey(): Buffer {
    const key = this.readKey()
    if (!key) throw unreadable(`${this.file} is missing`)
    return key
  }

  private keyOrCreate(): Buffer {
    return this.readKey() ?? this.createKey()
  }

  /** The key, read once; undefined while the file does not exist. */
  private readKey(): Buffer | undefined {
    if (this.key) return this.key
    let key: Buffer
    try {
      key = readFileSync(this.file)
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code === 'ENOENT') return undefined
      throw unreadable(`${this.file} cannot be read (${code ?? error})`)
    }
    if (key.length !== KEY_BYTES) throw unreadable(`${this.file} is damaged`)
    this.key = key
    return key
  }

  private createKey(): Buffer {
    // Written whole under another name, then linked into place: a process opening the folder at the
    // same moment either finds no key or the whole key, and whichever links first wins for both.
    const temporary = `${this.file}.${randomUUID()}.tmp`
    const fd = openSync(temporary, 'wx', 0o600)
    try {
      writeSync(fd, randomBytes(KEY_BYTES))
      // Values sealed with it are committed to the database next: the key must outlive a crash too.
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    try {
      linkSync(temporary, this.file)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    } finally {
      unlinkSync(temporary)
    }
    syncFolder(this.folder)
    return this.existingKey()
  }
}

function unreadable(why: string): AtelierError {
  return new AtelierError('secret_unreadable', `A stored secret cannot be decrypted: ${why}.`, {
    reason: why,
  })
}

/** Makes the new directory entry durable; Windows cannot open a folder for that, and needs not. */
function syncFolder(folder: string): void {
  if (process.platform === 'win32') return
  const fd = openSync(folder, 'r')
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}
