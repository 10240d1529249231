import {
  chmodSync,
  existsSync,
  readdirSync,
  readFileSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, it } from 'vitest'
import { LOCAL_USER } from '../../../../src-main/app/create-atelier'
import { serializedByPath } from '../../../../src-main/tools/files'
import { useToolHarness } from '../../../support/tool-harness'

describe('write_file', () => {
  const harness = useToolHarness()

  it('creates a new file and its folders', async () => {
    const { project, ok } = harness()
    expect(await ok('write_file', { path: 'src/deep/new.ts', content: 'export {}\n' })).toMatchObject({
      path: 'src/deep/new.ts',
      size: 10,
      created: true,
    })
    expect(readFileSync(join(project, 'src/deep/new.ts'), 'utf8')).toBe('export {}\n')
  })

  it('shows the person the change as a diff: a new file all added, an overwrite line by line', async () => {
    const { project, run } = harness()
    const created = await run('write_file', { path: 'notes.md', content: '# Notes\none\n' })
    expect(created.display).toEqual({
      kind: 'diff',
      path: 'notes.md',
      patch: expect.stringMatching(/@@ -0,0 \+1,2 @@\n\+# Notes\n\+one\n$/),
    })
    await run('read_file', { path: 'notes.md' })
    const changed = await run('write_file', { path: 'notes.md', content: '# Notes\ntwo\n' })
    expect(changed.display).toMatchObject({ kind: 'diff', patch: expect.stringContaining('-one\n+two\n') })
    // What the model reads is the same as before: the result, not the diff.
    expect(JSON.parse(changed.content)).toMatchObject({ path: 'notes.md', created: false })

    // Bytes that are not text, and changes too big to diff quickly, are written without a diff.
    const binary = await run('write_file', { path: 'b.bin', content: 'AAEC', encoding: 'base64' })
    expect(binary).toMatchObject({ isError: false })
    expect(binary.display).toBeUndefined()
    const big = await run('write_file', { path: 'big.txt', content: 'line\n'.repeat(60_000) })
    expect(big).toMatchObject({ isError: false })
    expect(big.display).toBeUndefined()
    expect(readFileSync(join(project, 'big.txt'), 'utf8')).toHaveLength(300_000)
  })

  it('refuses to overwrite a file this chat has not read, and says to read it first', async () => {
    const { project, run } = harness()
    writeFileSync(join(project, 'a.txt'), 'original')
    expect(await run('write_file', { path: 'a.txt', content: 'clobbered' })).toMatchObject({
      isError: true,
      errorType: 'not_read',
      content: '"a.txt" exists and has not been read in this chat. Read it with read_file first, then write.',
    })
    expect(readFileSync(join(project, 'a.txt'), 'utf8')).toBe('original')
  })

  it('overwrites after a read, keeps the mode, and may write again after its own write', async () => {
    const { project, ok } = harness()
    const file = join(project, 'run.sh')
    writeFileSync(file, '#!/bin/sh\necho 1\n')
    chmodSync(file, 0o750)
    await ok('read_file', { path: 'run.sh' })
    await ok('write_file', { path: 'run.sh', content: '#!/bin/sh\necho 2\n' })
    await ok('write_file', { path: 'run.sh', content: '#!/bin/sh\necho 3\n' })
    expect(readFileSync(file, 'utf8')).toBe('#!/bin/sh\necho 3\n')
    expect(statSync(file).mode & 0o777).toBe(0o750)
    expect(readdirSync(project)).toEqual(['run.sh'])
  })

  it('refuses after an external change, even when the change put the mtime back', async () => {
    const { project, ok, run } = harness()
    const file = join(project, 'a.txt')
    writeFileSync(file, 'version 1')
    await ok('read_file', { path: 'a.txt' })
    const { atime, mtime } = statSync(file)
    writeFileSync(file, 'version 2')
    utimesSync(file, atime, mtime)
    expect(await run('write_file', { path: 'a.txt', content: 'version 3' })).toMatchObject({
      errorType: 'not_read',
      content: expect.stringContaining('has changed since this chat last read it'),
    })
    expect(readFileSync(file, 'utf8')).toBe('version 2')
  })

  it('keeps each chat’s reads to itself', async () => {
    const { atelier, project, ok, run } = harness()
    writeFileSync(join(project, 'a.txt'), 'x')
    await ok('read_file', { path: 'a.txt' })
    const other = atelier.chats.ensure('other-chat', { workingDir: project, mode: 'agent' })
    expect(await run('write_file', { path: 'a.txt', content: 'y' }, { chatId: other.id })).toMatchObject({
      errorType: 'not_read',
    })
  })

  it('writes binary content given as base64, which a byte-view read makes overwritable', async () => {
    const { project, ok, run } = harness()
    const bytes = Buffer.from([0, 159, 146, 150, 255])
    await ok('write_file', { path: 'blob.bin', content: bytes.toString('base64'), encoding: 'base64' })
    expect(readFileSync(join(project, 'blob.bin'))).toEqual(bytes)
    await ok('read_file', { path: 'blob.bin', view: 'hex' })
    await ok('write_file', { path: 'blob.bin', content: 'AAEC', encoding: 'base64' })
    expect(readFileSync(join(project, 'blob.bin'))).toEqual(Buffer.from([0, 1, 2]))
    expect(
      await run('write_file', { path: 'x.bin', content: 'not base64!', encoding: 'base64' }),
    ).toMatchObject({
      errorType: 'validation_failed',
    })
  })

  it('serializes concurrent writes to one file: the last one wins whole', async () => {
    const { project, ok } = harness()
    await ok('write_file', { path: 'a.txt', content: 'start' })
    const contents = Array.from({ length: 8 }, (_, i) => `${String(i).repeat(10_000)}`)
    const results = await Promise.all(contents.map((content) => ok('write_file', { path: 'a.txt', content })))
    expect(results).toHaveLength(8)
    expect(contents).toContain(readFileSync(join(project, 'a.txt'), 'utf8'))
  })

  describe('stopped before it lands', () => {
    /**
     * Another write of the same file, holding it for `ms`: write_file waits its turn behind it (the
     * per-path serialization every write of a file goes through), so it overruns its budget for real.
     */
    function holdFile(path: string, ms: number): Promise<void> {
      return serializedByPath(path, new AbortController().signal, () => sleep(ms))
    }

    it('reports a timeout for a write that overran it, and the file never appears, also after its turn comes', async () => {
      const { atelier, project, run } = harness()
      atelier.tools.settings.update(LOCAL_USER, 'write_file', { parameters: { timeoutSeconds: 5 } })
      const target = join(project, 'late.txt')
      const started = performance.now()
      // Longer than the 5 s budget and the moment an edit is given to settle after it.
      const held = holdFile(target, 8000)
      const result = await run('write_file', { path: 'late.txt', content: 'should never land' })

      expect(result).toMatchObject({
        isError: true,
        errorType: 'timeout',
        content: 'write_file timed out after 5s and was stopped.',
      })
      expect(performance.now() - started).toBeLessThan(7900)
      expect(existsSync(target)).toBe(false)
      await held
      // Its turn has come and gone: the stopped write did not run, now or a moment later.
      await sleep(300)
      expect(readdirSync(project)).toEqual([])
    }, 15_000)

    it('reports a stop as aborted, and leaves neither the new content nor a temporary file', async () => {
      const { project, run, ok } = harness()
      const target = join(project, 'notes.txt')
      writeFileSync(target, 'before\n')
      await ok('read_file', { path: 'notes.txt' })
      const held = holdFile(target, 2500)
      const stop = new AbortController()
      setTimeout(() => stop.abort(), 100)
      const result = await run(
        'write_file',
        { path: 'notes.txt', content: 'after\n' },
        { signal: stop.signal },
      )

      expect(result).toMatchObject({ isError: true, errorType: 'aborted' })
      await held
      await sleep(300)
      expect(readFileSync(target, 'utf8')).toBe('before\n')
      expect(readdirSync(project)).toEqual(['notes.txt'])
    })

    it('lets the person set the timeout, 5–600 s, for write_file and edit_file', () => {
      const { atelier } = harness()
      for (const tool of ['write_file', 'edit_file']) {
        expect(atelier.tools.settings.get(LOCAL_USER, tool).parameters.timeoutSeconds).toBe(30)
        expect(() =>
          atelier.tools.settings.update(LOCAL_USER, tool, { parameters: { timeoutSeconds: 4 } }),
        ).toThrow(expect.objectContaining({ code: 'invalid_parameters' }))
      }
    })
  })

  it('refuses a folder', async () => {
    const { run, folder } = harness()
    folder('dir')
    expect(await run('write_file', { path: 'dir', content: 'x' })).toMatchObject({ isError: true })
  })
})
