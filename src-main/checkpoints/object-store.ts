/**
 * A content-addressed store of a folder's snapshots: file contents (blobs) and folder listings
 * (trees), each kept once under the SHA-256 of what it holds, so every snapshot of every chat of
 * the folder shares what did not change.
 *
 * An object is written to a temporary file and renamed into place, so a crash of Atelier leaves
 * either no object or a whole one; `check` proves it by hashing every object again. (Like git's
 * loose objects, they are not synced to disk one by one: a power cut may cost the newest.) Objects are deflated when
 * that makes them smaller (a first byte says which). Nothing here knows about the folder itself.
 */
import { createHash, randomBytes } from 'node:crypto'
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs'
import { join } from 'node:path'
import { deflateRawSync, inflateRawSync } from 'node:zlib'

const RAW = 0x72 // 'r'
const DEFLATED = 0x7a // 'z'
/** Below this, deflating costs more than it saves. */
const DEFLATE_FROM_BYTES = 64

/** One entry of a tree: what a folder held under one name. */
export interface TreeEntry {
  name: string
  type: 'file' | 'symlink' | 'folder'
  /** Permission bits. */
  mode: number
  size: number
  /** A file's or link's blob, a folder's tree; a file too large to keep has its hash, not stored. */
  hash: string
  stored: boolean
  /** What tells an unchanged file from a changed one without reading it (as git's index does). */
  mtimeMs: number
  ino: number
}

type PackedEntry = [string, 'f' | 'l' | 'd', number, number, string, 0 | 1, number, number]
const TYPE_CODE = { file: 'f', symlink: 'l', folder: 'd' } as const
const CODE_TYPE = { f: 'file', l: 'symlink', d: 'folder' } as const

export interface StoreProblem {
  object: string
  problem: string
}

export class ObjectStore {
  private readonly objects: string
  private readonly temporary: string
  /** Objects known to exist: a snapshot of a folder with many equal files stats each once. */
  private readonly known = new Set<string>()
  /** Trees read back, by hash; they never change. */
  private readonly trees = new Map<string, TreeEntry[]>()
  /** The two-character folders known to exist: a first snapshot writes hundreds of thousands of objects. */
  private readonly fans = new Set<string>()

  constructor(readonly root: string) {
    this.objects = join(root, 'objects')
    this.temporary = join(root, 'tmp')
    mkdirSync(this.objects, { recursive: true, mode: 0o700 })
    mkdirSync(this.temporary, { recursive: true, mode: 0o700 })
  }

  static hash(data: Buffer | string): string {
    return createHash('sha256').update(data).digest('hex')
  }

  has(hash: string): boolean {
    if (this.known.has(hash)) return true
    const present = existsSync(this.pathOf(hash))
    if (present) this.known.add(hash)
    return present
  }

  /** Keeps `data`; returns its hash. */
  put(data: Buffer): string {
    const hash = ObjectStore.hash(data)
    if (!this.has(hash)) this.write(hash, data)
    return hash
  }

  get(hash: string): Buffer {
    return decode(readFileSync(this.pathOf(hash)))
  }

  putTree(entries: readonly TreeEntry[]): string {
    const packed: PackedEntry[] = entries.map((entry) => [
      entry.name,
      TYPE_CODE[entry.type],
      entry.mode,
      entry.size,
      entry.hash,
      entry.stored ? 1 : 0,
      entry.mtimeMs,
      entry.ino,
    ])
    const hash = this.put(Buffer.from(JSON.stringify(packed)))
    this.trees.set(hash, [...entries])
    return hash
  }

  tree(hash: string): TreeEntry[] {
    const cached = this.trees.get(hash)
    if (cached) return cached
    const packed = JSON.parse(this.get(hash).toString('utf8')) as PackedEntry[]
    const entries = packed.map(([name, code, mode, size, entryHash, stored, mtimeMs, ino]) => ({
      name,
      type: CODE_TYPE[code],
      mode,
      size,
      hash: entryHash,
      stored: stored === 1,
      mtimeMs,
      ino,
    }))
    if (this.trees.size > 20_000) this.trees.clear()
    this.trees.set(hash, entries)
    return entries
  }

  /** The entry at a folder-relative path (`/` separated) in a snapshot; undefined when absent. */
  entryAt(root: string, path: string): TreeEntry | undefined {
    let entries = this.tree(root)
    const names = path.split('/')
    for (let i = 0; i < names.length; i++) {
      const entry = entries.find((candidate) => candidate.name === names[i])
      if (!entry || i === names.length - 1) return entry
      if (entry.type !== 'folder') return undefined
      entries = this.tree(entry.hash)
    }
    return undefined
  }

  /** Every object reachable from these snapshots. */
  reachable(roots: Iterable<string>): Set<string> {
    const seen = new Set<string>()
    const pending = [...roots]
    for (let hash = pending.pop(); hash !== undefined; hash = pending.pop()) {
      if (seen.has(hash)) continue
      seen.add(hash)
      if (!this.has(hash)) continue
      for (const entry of this.tree(hash)) {
        if (entry.type === 'folder') pending.push(entry.hash)
        else if (entry.stored) seen.add(entry.hash)
      }
    }
    return seen
  }

  /** Removes every object not in `keep`; returns the bytes freed. */
  sweep(keep: ReadonlySet<string>): number {
    let freed = 0
    for (const [hash, path] of this.list()) {
      if (keep.has(hash)) continue
      freed += statSync(path).size
      rmSync(path, { force: true })
      this.known.delete(hash)
      this.trees.delete(hash)
    }
    rmSync(this.temporary, { recursive: true, force: true })
    mkdirSync(this.temporary, { recursive: true, mode: 0o700 })
    return freed
  }

  /** Bytes on disk. */
  size(): number {
    let bytes = 0
    for (const [, path] of this.list()) bytes += statSync(path).size
    return bytes
  }

  /**
   * Every object hashed again, and every tree of `roots` followed: what a crash or a disk could
   * have broken. Empty when the store is sound.
   */
  check(roots: Iterable<string>): StoreProblem[] {
    const problems: StoreProblem[] = []
    for (const [hash, path] of this.list()) {
      try {
        if (ObjectStore.hash(decode(readFileSync(path))) !== hash) {
          problems.push({ object: hash, problem: 'its contents do not match its hash' })
        }
      } catch (error) {
        problems.push({ object: hash, problem: `it cannot be read: ${(error as Error).message}` })
      }
    }
    for (const hash of this.reachable(roots)) {
      if (!this.has(hash)) problems.push({ object: hash, problem: 'a snapshot needs it and it is missing' })
    }
    return problems
  }

  private *list(): Generator<[string, string]> {
    for (const fan of readdirSync(this.objects)) {
      const folder = join(this.objects, fan)
      for (const rest of readdirSync(folder)) yield [fan + rest, join(folder, rest)]
    }
  }

  private pathOf(hash: string): string {
    return join(this.objects, hash.slice(0, 2), hash.slice(2))
  }

  private write(hash: string, data: Buffer): void {
    const target = this.pathOf(hash)
    const temporary = join(this.temporary, `${hash}.${randomBytes(4).toString('hex')}`)
    const fd = openSync(temporary, 'wx', 0o600)
    try {
      writeSync(fd, encode(data))
    } finally {
      closeSync(fd)
    }
    const fan = hash.slice(0, 2)
    if (!this.fans.has(fan)) {
      mkdirSync(join(this.objects, fan), { recursive: true, mode: 0o700 })
      this.fans.add(fan)
    }
    renameSync(temporary, target)
    this.known.add(hash)
  }
}

function encode(data: Buffer): Buffer {
  if (data.length >= DEFLATE_FROM_BYTES) {
    const deflated = deflateRawSync(data, { level: 1 })
    if (deflated.length < data.length) return Buffer.concat([Buffer.of(DEFLATED), deflated])
  }
  return Buffer.concat([Buffer.of(RAW), data])
}

function decode(stored: Buffer): Buffer {
  const body = stored.subarray(1)
  if (stored[0] === DEFLATED) return inflateRawSync(body)
  if (stored[0] === RAW) return body
  throw new Error('unknown object format')
}
