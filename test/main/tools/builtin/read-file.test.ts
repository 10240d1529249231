import { createHash } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { MAX_LINE_CHARS, type ReadFileResult } from '../../../../src-main/tools/builtin/read-file'
import { useToolHarness } from '../../../support/tool-harness'

type ReadResult = ReadFileResult

describe('read_file', () => {
  const harness = useToolHarness()

  describe('text view', () => {
    it('returns cat -n numbered lines with the result shape of the seed', async () => {
      const { project, ok } = harness()
      writeFileSync(join(project, 'a.txt'), 'alpha\r\nbeta\ngamma\n')
      const result = await ok<ReadResult>('read_file', { path: 'a.txt' })
      expect(result).toEqual({
        content: '     1\talpha\n     2\tbeta\n     3\tgamma',
        path: 'a.txt',
        size: 18,
        sha256: createHash('sha256').update('alpha\r\nbeta\ngamma\n').digest('hex'),
        totalLines: 3,
        startLine: 1,
        endLine: 3,
        truncated: false,
      })
      expect(Object.keys(result)).toEqual([
        'content',
        'path',
        'size',
        'sha256',
        'totalLines',
        'startLine',
        'endLine',
        'truncated',
      ])
    })

    it('windows with startLine and maxLines, 2000 lines by default', async () => {
      const { project, ok } = harness()
      writeFileSync(
        join(project, 'long.txt'),
        Array.from({ length: 2500 }, (_, i) => `line ${i + 1}`).join('\n'),
      )
      const first = await ok<ReadResult>('read_file', { path: 'long.txt' })
      expect([first.startLine, first.endLine, first.totalLines]).toEqual([1, 2000, 2500])
      const window = await ok<ReadResult>('read_file', { path: 'long.txt', startLine: 2499, maxLines: 10 })
      expect(window.content).toBe('  2499\tline 2499\n  2500\tline 2500')
      expect([window.startLine, window.endLine]).toEqual([2499, 2500])
    })

    it('rejects a startLine past the end, and maxLines beyond 5000', async () => {
      const { project, run } = harness()
      writeFileSync(join(project, 'a.txt'), 'one\n')
      expect(await run('read_file', { path: 'a.txt', startLine: 5 })).toMatchObject({
        errorType: 'validation_failed',
        content: expect.stringContaining('startLine 5 is past the end of "a.txt", which has 1 lines'),
      })
      expect(await run('read_file', { path: 'a.txt', maxLines: 5001 })).toMatchObject({
        errorType: 'validation_failed',
      })
    })

    it('cuts over-long lines and an over-large window, says so, and says where to go on', async () => {
      const { project, ok } = harness()
      writeFileSync(join(project, 'min.js'), `${'x'.repeat(MAX_LINE_CHARS + 50)}\nshort\n`)
      const cut = await ok<ReadResult>('read_file', { path: 'min.js' })
      expect(cut.truncated).toBe(true)
      expect(cut.content).toContain(`… [line cut at ${MAX_LINE_CHARS} characters]`)
      expect(cut.content).toContain('use startLine/maxLines to read more')

      writeFileSync(join(project, 'wide.txt'), `${'y'.repeat(1500)}\n`.repeat(200))
      const wide = await ok<ReadResult>('read_file', { path: 'wide.txt' })
      expect(wide.truncated).toBe(true)
      expect(wide.endLine).toBeLessThan(200)
      expect(wide.content).toContain(`next: startLine ${wide.endLine + 1}`)
    })

    it('refuses a binary file, naming the byte views', async () => {
      const { project, run } = harness()
      writeFileSync(join(project, 'img.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]))
      expect(await run('read_file', { path: 'img.png' })).toMatchObject({
        isError: true,
        content: expect.stringMatching(/looks binary .* view "hex" or view "base64"/),
      })
    })

    it('reads an empty file as zero lines', async () => {
      const { project, ok } = harness()
      writeFileSync(join(project, 'empty.txt'), '')
      expect(await ok<ReadResult>('read_file', { path: 'empty.txt' })).toMatchObject({
        content: '',
        totalLines: 0,
        startLine: 1,
        endLine: 0,
      })
    })
  })

  describe('byte views', () => {
    it('returns the whole file as hex or base64 with no line structure', async () => {
      const { project, ok } = harness()
      const bytes = Buffer.from([0, 1, 2, 250, 255])
      writeFileSync(join(project, 'b.bin'), bytes)
      expect(await ok<ReadResult>('read_file', { path: 'b.bin', view: 'hex' })).toMatchObject({
        content: '000102faff',
        totalLines: 0,
        view: 'hex',
        size: 5,
      })
      expect((await ok<ReadResult>('read_file', { path: 'b.bin', view: 'base64' })).content).toBe(
        bytes.toString('base64'),
      )
    })

    it('delivers a byte view of 256 KiB whole and refuses anything larger', async () => {
      const { project, ok, run } = harness()
      writeFileSync(join(project, 'max.bin'), Buffer.alloc(256 * 1024, 7))
      const max = await ok<ReadResult>('read_file', { path: 'max.bin', view: 'hex' })
      expect(max.content).toHaveLength(512 * 1024)
      writeFileSync(join(project, 'big.bin'), Buffer.alloc(256 * 1024 + 1, 7))
      expect(await run('read_file', { path: 'big.bin', view: 'base64' })).toMatchObject({
        isError: true,
        content: expect.stringContaining('larger than 256 KiB'),
      })
    })

    it('rejects startLine or maxLines alongside a byte view instead of dropping them', async () => {
      const { project, run } = harness()
      writeFileSync(join(project, 'b.bin'), 'x')
      expect(await run('read_file', { path: 'b.bin', view: 'hex', maxLines: 3 })).toMatchObject({
        errorType: 'validation_failed',
        content: expect.stringContaining('text view only'),
      })
    })
  })

  describe('refusals', () => {
    it('refuses a file above 10 MiB as text', async () => {
      const { project, run } = harness()
      writeFileSync(join(project, 'huge.log'), Buffer.alloc(10 * 1024 * 1024 + 1, 0x61))
      expect(await run('read_file', { path: 'huge.log' })).toMatchObject({
        isError: true,
        content: expect.stringContaining('larger than 10 MiB'),
      })
    })

    it('refuses a folder and names the tool to use', async () => {
      const { run, folder } = harness()
      folder('src')
      expect(await run('read_file', { path: 'src' })).toMatchObject({
        isError: true,
        content: expect.stringContaining('is a folder; use list_directory'),
      })
    })

    it('reports a missing file as not_found', async () => {
      const { run } = harness()
      expect(await run('read_file', { path: 'nope.txt' })).toMatchObject({ errorType: 'not_found' })
    })
  })

  describe('freshness ledger', () => {
    it('records the whole-file sha256 on every read, partial ones included, in SQLite', async () => {
      const { atelier, project, ok, scope } = harness()
      writeFileSync(join(project, 'a.txt'), 'one\ntwo\nthree\n')
      const result = await ok<ReadResult>('read_file', { path: 'a.txt', startLine: 2, maxLines: 1 })
      const row = atelier.db
        .prepare('SELECT sha256 FROM freshness WHERE chat_id = ? AND real_path = ?')
        .get(scope.chatId, join(project, 'a.txt'))
      expect(row).toEqual({ sha256: result.sha256 })
      expect(result.sha256).toBe(createHash('sha256').update('one\ntwo\nthree\n').digest('hex'))
    })
  })
})
