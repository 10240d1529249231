import { realpathSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { useTempDirs } from '../../support/temp-dir'
import { writeTree } from '../../support/tool-harness'
import { atelier } from './built-cli'

// The CLI under test is the built one, exactly as `npm install` leaves it (npm test builds first).
describe('atelier lsp and the code tools, headless (built CLI)', () => {
  const tempDir = useTempDirs()

  it('lsp status lists the shipped servers as available and the ones not installed as missing, with how to install them', async () => {
    const text = await atelier(tempDir(), 'lsp', 'status')
    expect(text.code).toBe(0)
    expect(text.stdout).toMatch(/^typescript\s+available\s+\.ts /m)
    expect(text.stdout).toMatch(/^pyright\s+available\s+\.py \.pyi$/m)
    const json = JSON.parse((await atelier(tempDir(), 'lsp', 'status', '--json')).stdout)
    expect(json.servers).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: 'typescript', state: 'available', origin: 'shipped' }),
      ]),
    )
  })

  it("tool diagnostics reports a file's errors through a real server, which ends with the command", async () => {
    const project = realpathSync(tempDir())
    writeTree(project, {
      'tsconfig.json': '{ "compilerOptions": { "strict": true } }',
      'src/a.ts': "export const count: number = 'three'\n",
    })
    const result = await atelier(tempDir(), 'tool', 'diagnostics', '{"path":"src/a.ts"}', '--cwd', project)
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(
      /src\/a\.ts:1:14 error Type 'string' is not assignable to type 'number'\. \(typescript\)/,
    )
  }, 60_000)
})
