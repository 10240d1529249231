/**
 * What a warm grep knows of a file without reading it: which three-byte sequences it contains, one
 * bit each (hashed) in a table sized to the file, ASCII letters folded to lower case. A pattern's
 * required texts (`requiredTexts` in grep-pattern.ts) give the sequences every match must contain; a file whose
 * table lacks one of them, for every alternative of the pattern, cannot match and is not read.
 * A table only ever says "absent" for a sequence that is: there are no false negatives, so skipping
 * changes no result.
 */

/** 2^16 bits (8 KiB): larger files share bits, which stays selective for texts of a few words. */
const MAX_BITS_LOG2 = 16
const MIN_BITS_LOG2 = 8
const FOLD = new Uint8Array(256).map((_, byte) => (byte >= 65 && byte <= 90 ? byte | 32 : byte))

export type TrigramTable = Int32Array

/** The table of a file's bytes. Reads each byte once; a few nanoseconds a byte. */
export function trigramTable(bytes: Uint8Array): TrigramTable {
  let log2 = MIN_BITS_LOG2
  while (log2 < MAX_BITS_LOG2 && 1 << log2 < bytes.length) log2++
  const table = new Int32Array(1 << (log2 - 5))
  const shift = 32 - log2
  let previous = 0
  for (let i = 0; i < bytes.length; i++) {
    previous = ((previous << 8) | (FOLD[bytes[i] as number] as number)) & 0xffffff
    if (i < 2) continue
    const bit = Math.imul(previous, 0x9e3779b1) >>> shift
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
export function mayMatch(table: TrigramTable, query: TrigramQuery): boolean {
  const shift = 32 - Math.log2(table.length * 32)
  return query.some((sequences) =>
    sequences.every((sequence) => {
      const bit = Math.imul(sequence, 0x9e3779b1) >>> shift
      return ((table[bit >>> 5] as number) & (1 << (bit & 31))) !== 0
    }),
  )
}
