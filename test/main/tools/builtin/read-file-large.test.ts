import { closeSync, openSync, readFileSync, statSync, writeFileSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { ReadFileResult } from '../../../../src-main/tools/builtin/read-file'
import { withMemorySampled } from '../../../support/memory'
import { useToolHarness } from '../../../support/tool-harness'

/** Every line is 100 bytes with its newline, so line N starts at byte (N - 1) × 100. */
const LINE_BYTES = 100
/** 32 MiB: three times the ceiling on reading whole, quick to write and to scan. */
const LINES = Math.floor((32 * 1024 * 1024) / LINE_BYTES)

function logLine(number: number): string {
  return `${`2026-12-03T11:00:00Z INFO line ${number} request handled`.padEnd(LINE_BYTES - 1, '.')}\n`
}

/** Writes the log a megabyte at a time, never holding it whole: the test must not need what it forbids. */
function writeLargeLog(path: string, lines = LINES): void {
  const fd = openSync(path, 'w')
  try {
    const perWrite = 10_000
    for (let first = 1; first <= lines; first += perWrite) {
      let text = ''
      for (let number = first; number < first + perWrite && number <= lines; number++) text += logLine(number)
      writeSync(fd, text)
    }
  } finally {
    closeSync(fd)
  }
}

/** The window's lines as the model reads them, without the numbers or the notice. */
function windowLines(result: ReadFileResult): string[] {
  return result.content
    .split('\n')
    .filter((line) => /^ *\d+\t/.test(line))
    .map((line) => line.replace(/^ *\d+\t/, ''))
}

describe('read_file', () => {
  const harness = useToolHarness()

  describe('a file over the 10 MiB ceiling', () => {
    it('reads a window at the start, reading only as far as the window', async () => {
      const { project, ok } = harness()
      writeLargeLog(join(project, 'big.log'))
      const result = await ok<ReadFileResult>('read_file', { path: 'big.log', startLine: 1, maxLines: 50 })
      expect(windowLines(result)).toEqual(Array.from({ length: 50 }, (_, i) => logLine(i + 1).trimEnd()))
      expect(result).toMatchObject({ path: 'big.log', size: LINES * LINE_BYTES, startLine: 1, endLine: 50 })
      expect(result.totalLines).toBeUndefined()
      expect(result.sha256).toBeUndefined()
      expect(result.bytesRead).toBeLessThan(1024 * 1024)
      expect(result.content).toContain('over the 10 MiB read_file reads whole')
      expect(result.content).toContain('its line count is not known')
      expect(result.content).toContain('next: startLine 51')
    })

    it('reads a window in the middle with memory far below the file size', async () => {
      const { project, ok } = harness()
      writeLargeLog(join(project, 'big.log'))
      const middle = Math.floor(LINES / 2)
      const { value: result, growth } = await withMemorySampled(() =>
        ok<ReadFileResult>('read_file', { path: 'big.log', startLine: middle, maxLines: 3 }),
      )
      expect(windowLines(result)).toEqual(
        [logLine(middle), logLine(middle + 1), logLine(middle + 2)].map((l) => l.trimEnd()),
      )
      expect(result.content).toMatch(new RegExp(`^ *${middle}\\t`))
      expect(result.bytesRead).toBeGreaterThanOrEqual((middle + 2) * LINE_BYTES)
      expect(result.bytesRead).toBeLessThan(LINES * LINE_BYTES)
      expect(growth).toBeLessThan(12 * 1024 * 1024)
    })

    it('knows the line count once a window reaches the end, and refuses a window past it', async () => {
      const { project, ok, run } = harness()
      writeLargeLog(join(project, 'big.log'))
      const last = await ok<ReadFileResult>('read_file', {
        path: 'big.log',
        startLine: LINES - 1,
        maxLines: 50,
      })
      expect(windowLines(last)).toEqual([logLine(LINES - 1), logLine(LINES)].map((l) => l.trimEnd()))
      expect(last).toMatchObject({ endLine: LINES, totalLines: LINES, bytesRead: LINES * LINE_BYTES })
      expect(last.content).toContain(`read to its end: ${LINES} lines`)
      expect(last.content).not.toContain('next: startLine')

      const { value: past, growth } = await withMemorySampled(() =>
        run('read_file', { path: 'big.log', startLine: LINES + 10, maxLines: 5 }),
      )
      expect(past).toMatchObject({ isError: true, errorType: 'validation_failed' })
      expect(past.content).toContain(
        `startLine ${LINES + 10} is past the end of "big.log", which has ${LINES} lines`,
      )
      expect(growth).toBeLessThan(12 * 1024 * 1024)
    })

    it('counts a last line without a newline, and a window that ends exactly at the end', async () => {
      const { project, ok } = harness()
      const path = join(project, 'tail.log')
      writeLargeLog(path)
      writeFileSync(path, 'no newline here', { flag: 'a' })
      const tail = await ok<ReadFileResult>('read_file', { path: 'tail.log', startLine: LINES, maxLines: 2 })
      expect(windowLines(tail)).toEqual([logLine(LINES).trimEnd(), 'no newline here'])
      expect(tail).toMatchObject({ endLine: LINES + 1, totalLines: LINES + 1 })
    })

    it('refuses a read that names no window, and says how to ask for one', async () => {
      const { project, run } = harness()
      writeLargeLog(join(project, 'big.log'))
      const result = await run('read_file', { path: 'big.log' })
      expect(result).toMatchObject({ isError: true, errorType: 'validation_failed' })
      expect(result.content).toContain('larger than 10 MiB; it cannot be read whole')
      expect(result.content).toContain('It is 32 MiB. Read it in windows, with startLine and maxLines')
    })

    it('cuts a line far longer than a window without holding it', async () => {
      const { project, ok } = harness()
      const path = join(project, 'one-line.min.js')
      const fd = openSync(path, 'w')
      for (let i = 0; i < 12; i++) writeSync(fd, Buffer.alloc(1024 * 1024, 0x78))
      writeSync(fd, '\nsecond\n')
      closeSync(fd)
      const result = await ok<ReadFileResult>('read_file', { path: 'one-line.min.js', maxLines: 2 })
      expect(result).toMatchObject({ endLine: 2, truncated: true, totalLines: 2 })
      expect(result.content).toContain('… [line cut at 2000 characters]')
      expect(windowLines(result)[1]).toBe('second')
    })

    it('refuses a binary file, naming the byte views', async () => {
      const { project, run } = harness()
      const path = join(project, 'blob.bin')
      writeLargeLog(path, 120_000)
      const fd = openSync(path, 'r+')
      writeSync(fd, Buffer.from([0]), 0, 1, 10)
      closeSync(fd)
      expect(await run('read_file', { path: 'blob.bin', startLine: 1, maxLines: 5 })).toMatchObject({
        isError: true,
        content: expect.stringMatching(/looks binary .* view "hex" or view "base64"/),
      })
    })

    it('lets no write follow a window read: the file is too large to guard, and stays as it was', async () => {
      const { project, ok, run } = harness()
      const path = join(project, 'big.log')
      writeLargeLog(path, 120_000)
      const before = statSync(path)
      await ok<ReadFileResult>('read_file', { path: 'big.log', startLine: 1, maxLines: 5 })
      const write = await run('write_file', { path: 'big.log', content: 'replaced' })
      expect(write).toMatchObject({ isError: true, content: expect.stringContaining('larger than 10 MiB') })
      const edit = await run('edit_file', { path: 'big.log', old_string: logLine(1), new_string: 'x\n' })
      expect(edit).toMatchObject({ isError: true, content: expect.stringContaining('larger than 10 MiB') })
      expect(statSync(path).size).toBe(before.size)
      expect(readFileSync(path).subarray(0, LINE_BYTES).toString()).toBe(logLine(1))
    })
  })
})
