import { describe, expect, it } from 'vitest'
import { LOCAL_USER } from '../../../src-main/app/create-atelier'
import { SERVER_WAIT_MS, useCodeProject } from '../../support/code-intelligence'

describe('code intelligence with typescript-language-server', () => {
  const project = useCodeProject({
    'tsconfig.json': JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, module: 'esnext', target: 'es2022' },
    }),
    'src/greet.ts': 'export function greet(name: string): string {\n  return "hi " + name\n}\n',
    'src/main.ts': "import { greet } from './greet'\n\nexport const message: string = greet('you')\n",
    'src/broken.ts': "export const wrong: number = 'not a number'\n\nexport const fine = 1\n",
  })

  it(
    'reports the type error an edit brings, with its line and message, and none once it is fixed',
    async () => {
      const { run } = project
      expect((await run('read_file', { path: 'src/main.ts' })).isError).toBe(false)
      const broke = await run('edit_file', {
        path: 'src/main.ts',
        old_string: "greet('you')",
        new_string: 'greet(42)',
      })
      expect(broke.isError).toBe(false)
      expect(broke.content).toMatch(/new problem/)
      expect(broke.content).toMatch(
        /src\/main\.ts:3:38 error Argument of type 'number' is not assignable to parameter of type 'string'\. \(typescript\)/,
      )
      expect(broke.display).toMatchObject({ kind: 'diff', diagnostics: [{ line: 3, severity: 'error' }] })
      const fixed = await run('edit_file', {
        path: 'src/main.ts',
        old_string: 'greet(42)',
        new_string: "greet('me')",
      })
      expect(fixed.isError).toBe(false)
      expect(fixed.content).not.toMatch(/error|problem|pending/)
    },
    SERVER_WAIT_MS,
  )

  it(
    'reports what a shell command broke in a file the server has open',
    async () => {
      const { atelier, run } = project
      atelier.tools.settings.update(LOCAL_USER, 'bash', { enabled: true })
      const command = await run('bash', { command: `sed -i "s/greet('me')/greet(7)/" src/main.ts` })
      expect(command.isError).toBe(false)
      expect(command.content).toMatch(
        /src\/main\.ts:3:38 error Argument of type 'number' is not assignable to parameter of type 'string'\./,
      )
      const undone = await run('bash', { command: `sed -i "s/greet(7)/greet('me')/" src/main.ts` })
      expect(undone.content).not.toMatch(/problem|pending/)
    },
    SERVER_WAIT_MS,
  )

  it(
    'does not report an error that was there before the edit',
    async () => {
      const { run } = project
      await run('read_file', { path: 'src/broken.ts' })
      const edited = await run('edit_file', {
        path: 'src/broken.ts',
        old_string: 'export const fine = 1',
        new_string: 'export const fine = 2',
      })
      expect(edited.isError).toBe(false)
      expect(edited.content).not.toMatch(/not assignable|problem|pending/)
    },
    SERVER_WAIT_MS,
  )

  it(
    'finds where an imported symbol is defined',
    async () => {
      const result = await project.run('definition', { path: 'src/main.ts', line: 1, column: 10 })
      expect(result.isError).toBe(false)
      expect(JSON.parse(result.content).definitions).toEqual([
        { file: 'src/greet.ts', line: 1, column: 17, text: 'export function greet(name: string): string {' },
      ])
    },
    SERVER_WAIT_MS,
  )

  it(
    'finds the uses of a symbol',
    async () => {
      const result = await project.run('references', { path: 'src/greet.ts', line: 1, column: 17 })
      expect(result.isError).toBe(false)
      const { references } = JSON.parse(result.content) as { references: { file: string; line: number }[] }
      expect(references).toEqual(
        expect.arrayContaining([expect.objectContaining({ file: 'src/main.ts', line: 3 })]),
      )
    },
    SERVER_WAIT_MS,
  )
})
