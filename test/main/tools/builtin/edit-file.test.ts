import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { useToolHarness } from '../../../support/tool-harness'

describe('edit_file', () => {
  const harness = useToolHarness()

  async function readied(content: string) {
    const tools = harness()
    writeFileSync(join(tools.project, 'code.ts'), content)
    await tools.ok('read_file', { path: 'code.ts' })
    return tools
  }

  it('replaces one exact occurrence and returns a unified diff', async () => {
    const { project, ok } = await readied('const a = 1\nconst b = 2\nconst c = 3\n')
    const result = await ok<{ path: string; replacements: number; diff: string }>('edit_file', {
      path: 'code.ts',
      old_string: 'const b = 2',
      new_string: 'const b = 20',
    })
    expect(readFileSync(join(project, 'code.ts'), 'utf8')).toBe('const a = 1\nconst b = 20\nconst c = 3\n')
    expect(result).toMatchObject({ path: 'code.ts', replacements: 1 })
    expect(result.diff).toContain(
      '--- code.ts\n+++ code.ts\n@@ -1,3 +1,3 @@\n const a = 1\n-const b = 2\n+const b = 20\n',
    )
  })

  it('gives the person the same diff to see, without their reading the result', async () => {
    const { run } = await readied('one\n')
    const result = await run('edit_file', { path: 'code.ts', old_string: 'one', new_string: 'two' })
    const { diff } = JSON.parse(result.content) as { diff: string }
    expect(result.display).toEqual({ kind: 'diff', path: 'code.ts', patch: diff })
  })

  it('refuses an ambiguous old_string unless replace_all is set', async () => {
    const { project, run, ok } = await readied('x()\nx()\n')
    expect(await run('edit_file', { path: 'code.ts', old_string: 'x()', new_string: 'y()' })).toMatchObject({
      errorType: 'validation_failed',
      content: expect.stringContaining('occurs 2 times'),
    })
    expect(
      await ok('edit_file', { path: 'code.ts', old_string: 'x()', new_string: 'y()', replace_all: true }),
    ).toMatchObject({
      replacements: 2,
    })
    expect(readFileSync(join(project, 'code.ts'), 'utf8')).toBe('y()\ny()\n')
  })

  it('reports text that is not there, and inserts $ patterns literally', async () => {
    const { project, run, ok } = await readied('price = 1\n')
    expect(
      await run('edit_file', { path: 'code.ts', old_string: 'cost = 1', new_string: 'x' }),
    ).toMatchObject({
      errorType: 'validation_failed',
      content: expect.stringContaining('was not found'),
    })
    await ok('edit_file', { path: 'code.ts', old_string: '1', new_string: "$& $' $1" })
    expect(readFileSync(join(project, 'code.ts'), 'utf8')).toBe("price = $& $' $1\n")
  })

  it('needs a read first, and chains edits after its own writes', async () => {
    const { project, run, ok } = harness()
    writeFileSync(join(project, 'code.ts'), 'a\n')
    expect(await run('edit_file', { path: 'code.ts', old_string: 'a', new_string: 'b' })).toMatchObject({
      errorType: 'not_read',
    })
    await ok('read_file', { path: 'code.ts' })
    await ok('edit_file', { path: 'code.ts', old_string: 'a', new_string: 'b' })
    await ok('edit_file', { path: 'code.ts', old_string: 'b', new_string: 'c' })
    expect(readFileSync(join(project, 'code.ts'), 'utf8')).toBe('c\n')
  })

  it('rejects identical strings and a missing file', async () => {
    const { run } = await readied('a\n')
    expect(await run('edit_file', { path: 'code.ts', old_string: 'a', new_string: 'a' })).toMatchObject({
      errorType: 'validation_failed',
    })
    expect(await run('edit_file', { path: 'gone.ts', old_string: 'a', new_string: 'b' })).toMatchObject({
      errorType: 'not_found',
    })
  })
})

describe('edit_file on awkward files', () => {
  const harness = useToolHarness()

  it('refuses a file that is not UTF-8 instead of mangling its other bytes', async () => {
    const { project, ok, run } = harness()
    const latin1 = Buffer.from('caf\xe9 cr\xe8me\nfoo\n', 'latin1')
    writeFileSync(join(project, 'menu.txt'), latin1)
    await ok('read_file', { path: 'menu.txt', view: 'hex' })
    expect(await run('edit_file', { path: 'menu.txt', old_string: 'foo', new_string: 'bar' })).toMatchObject({
      errorType: 'validation_failed',
      content: expect.stringContaining('not UTF-8 text'),
    })
    expect(readFileSync(join(project, 'menu.txt'))).toEqual(latin1)
  })

  it('answers promptly on a huge rewrite, summarizing a diff too costly to compute', async () => {
    const { project, ok } = harness()
    writeFileSync(
      join(project, 'big.js'),
      Array.from({ length: 20_000 }, (_, i) => `var v${i} = ${i}`).join('\n'),
    )
    await ok('read_file', { path: 'big.js', maxLines: 1 })
    const started = Date.now()
    const result = await ok<{ replacements: number; diff: string }>('edit_file', {
      path: 'big.js',
      old_string: 'var ',
      new_string: 'let ',
      replace_all: true,
    })
    expect(result.replacements).toBe(20_000)
    expect(Date.now() - started).toBeLessThan(10_000)
    expect(readFileSync(join(project, 'big.js'), 'utf8')).not.toContain('var ')
  })
})
