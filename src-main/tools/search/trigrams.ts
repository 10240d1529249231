/**
 * What a warm grep knows of a file without reading it: which three-byte sequences it contains, one
 * bit each (hashed) in a table sized to the file, ASCII letters folded to lower case. A pattern's
 * required texts (`requiredTexts` in grep-pattern.ts) give the sequences every match must contain; a file whose
 * table lacks one of them, for every alternative of the pattern, cannot match and is not read.
 * A table only ever says "absent" for a sequence that is: there are no false negatives, so skipping
 * changes no result.
 */

/**
 * A table has a bit for each byte of its file, 256 at least and 2^16 (8 KiB) at most; larger files
 * share bits. Tables sized to the next power of two took 1.4 bits a byte on average: these keep a
 * 200,000-file tree's summaries a fifth smaller and stay selective for texts of a few words (a
 * file's distinct sequences are far fewer than its bytes).
 */
const BITS_PER_BYTE = 1
const MIN_WORDS = 8
const MAX_WORDS = 2048
const FOLD = new Uint8Array(256).map((_, byte) => (byte >= 65 && byte <= 90 ? byte | 32 : byte))
const TWO_TO_32 = 2 ** 32

/**
 * A file's table: `length` words of `words` from `at`, since the cache packs the tables of a folder
 * in one array (an array each cost more than most tables).
 */
export interface TrigramTable {
  words: Int32Array
  at: number
  length: number
}

/** How many 32-bit words the table of a file of this many bytes has. */
export function tableWords(byteLength: number): number {
  return Math.min(MAX_WORDS, Math.max(MIN_WORDS, Math.ceil((byteLength * BITS_PER_BYTE) / 32)))
}

/** A sequence's bit in a table of `bits` bits: its hash scaled to the table, any size. */
function bitOf(sequence: number, bits: number): number {
  return Math.floor(((Math.imul(sequence, 0x9e3779b1) >>> 0) * bits) / TWO_TO_32)
}

/** The table of a file's bytes, its words alone. Reads each byte once; a few nanoseconds a byte. */
export function trigramTable(bytes: Uint8Array): Int32Array {
  const table = new Int32Array(tableWords(bytes.length))
  const bits = table.length * 32
  let previous = 0
  for (let i = 0; i < bytes.length; i++) {
    previous = ((previous << 8) | (FOLD[bytes[i] as number] as number)) & 0xffffff
    if (i < 2) continue
    const bit = bitOf(previous, bits)
    table[bit >>> 5] = (table[bit >>> 5] as number) | (1 << (bit & 31))
  }
  return table
}

/** Per alternative, the (folded) sequences a match of it must contain; empty when it needs none. */
export type TrigramQuery = number[][]

/**
 * The query for a pattern's required texts (any alternative, all of its texts), or undefined when
 * some alternative requires no sequence of three bytes: then any file may match.
 */
export function trigramQuery(required: Buffer[][] | undefined): TrigramQuery | undefined {
  if (!required) return undefined
  const query: TrigramQuery = []
  for (const texts of required) {
    const sequences = new Set<number>()
    for (const text of texts) {
      for (let i = 2; i < text.length; i++) {
        const folded = (FOLD[text[i - 2] as number] as number) << 16
        sequences.add(
          folded | ((FOLD[text[i - 1] as number] as number) << 8) | (FOLD[text[i] as number] as number),
        )
      }
    }
    if (sequences.size === 0) return undefined
    query.push([...sequences])
  }
  return query
}

/** Whether a file with this table may hold a match: some alternative has all its sequences. */
export function mayMatch({ words, at, length }: TrigramTable, query: TrigramQuery): boolean {
  const bits = length * 32
  return query.some((sequences) =>
    sequences.every((sequence) => {
      const bit = bitOf(sequence, bits)
      return ((words[at + (bit >>> 5)] as number) & (1 << (bit & 31))) !== 0
    }),
  )
}
