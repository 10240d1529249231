import { describe, expect, it } from 'vitest'
import { SERVER_WAIT_MS, useCodeProject } from '../../support/code-intelligence'

describe('code intelligence with pyright', () => {
  const project = useCodeProject({
    'shapes.py': 'def area(width: int, height: int) -> int:\n    return width * height\n',
    'main.py': 'from shapes import area\n\nprint(area(2, 3))\n',
    'old.py': 'from shapes import area\n\nbroken = area("a", 1)\nfine = 1\n',
  })

  it(
    'reports the wrong-type call an edit brings, and none once it is fixed',
    async () => {
      const { run } = project
      await run('read_file', { path: 'main.py' })
      const broke = await run('edit_file', {
        path: 'main.py',
        old_string: 'area(2, 3)',
        new_string: 'area("2", 3)',
      })
      expect(broke.isError).toBe(false)
      expect(broke.content).toMatch(
        /main\.py:3:12 error Argument of type "Literal\['2'\]" cannot be assigned to parameter "width" of type "int".* \(Pyright\)/,
      )
      const fixed = await run('edit_file', {
        path: 'main.py',
        old_string: 'area("2", 3)',
        new_string: 'area(4, 3)',
      })
      expect(fixed.isError).toBe(false)
      expect(fixed.content).not.toMatch(/error|problem|pending/)
    },
    SERVER_WAIT_MS,
  )

  it(
    'does not report an error that was there before the edit',
    async () => {
      const { run } = project
      await run('read_file', { path: 'old.py' })
      const edited = await run('edit_file', {
        path: 'old.py',
        old_string: 'fine = 1',
        new_string: 'fine = 2',
      })
      expect(edited.isError).toBe(false)
      expect(edited.content).not.toMatch(/cannot be assigned|problem|pending/)
    },
    SERVER_WAIT_MS,
  )

  it(
    'finds where an imported function is defined, and its uses',
    async () => {
      const definition = await project.run('definition', { path: 'main.py', line: 3, column: 7 })
      expect(JSON.parse(definition.content).definitions).toEqual([
        { file: 'shapes.py', line: 1, column: 5, text: 'def area(width: int, height: int) -> int:' },
      ])
      const references = await project.run('references', { path: 'shapes.py', line: 1, column: 5 })
      expect(JSON.parse(references.content).references).toEqual(
        expect.arrayContaining([expect.objectContaining({ file: 'main.py', line: 3 })]),
      )
    },
    SERVER_WAIT_MS,
  )

  it(
    "reports a file's diagnostics and its symbols on request",
    async () => {
      const diagnostics = await project.run('diagnostics', { path: 'old.py' })
      expect(diagnostics.content).toMatch(/^old\.py:3:\d+ error Argument of type/m)
      const symbols = await project.run('symbols', { path: 'shapes.py' })
      expect(JSON.parse(symbols.content).symbols).toEqual(
        expect.arrayContaining([expect.objectContaining({ name: 'area', kind: 'function', line: 1 })]),
      )
      const hover = await project.run('hover', { path: 'main.py', line: 3, column: 7 })
      expect(hover.content).toMatch(/def area\(\s*width: int,\s*height: int\s*\) -> int/)
    },
    SERVER_WAIT_MS,
  )
})
