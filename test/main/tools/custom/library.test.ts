import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterEach, describe, expect, it } from 'vitest'
import { discoverAndLoadCustomTools, loadCustomTools } from '../../../../src-main/atelier-package'
import type { LoadedCustomTools } from '../../../../src-main/tools/custom/loader'
import { ROOT, toolSource, writeFile } from '../../../support/custom-tools'

const exec = promisify(execFile)

describe('the loader as a library', { timeout: 60_000 }, () => {
  const made: string[] = []
  const loaded: LoadedCustomTools[] = []
  const temp = () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'atelier-library-')))
    made.push(dir)
    return dir
  }
  afterEach(async () => {
    for (const each of loaded.splice(0)) await each.close()
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true })
  })

  it('loadCustomTools loads the modules at the paths, relative ones against cwd, and runs their calls', async () => {
    const cwd = temp()
    writeFile(join(cwd, 'tools', 'greet.ts'), toolSource('greet', { text: 'hello' }))
    writeFile(join(cwd, 'tools', 'broken.ts'), 'export default (api) => {\n  const broken = ;\n}\n')
    writeFile(join(cwd, 'tools', 'README.md'), '# not a tool\n')
    const result = await loadCustomTools(['tools'], cwd)
    loaded.push(result)
    expect(result.tools.map((tool) => [tool.name, tool.file])).toEqual([
      ['greet', join(cwd, 'tools', 'greet.ts')],
    ])
    expect(await result.tools[0]?.execute({})).toEqual({ content: 'hello', isError: false })
    expect(result.problems).toEqual([
      { file: join(cwd, 'tools', 'README.md'), message: 'Metadata: listed, never run.' },
      expect.objectContaining({ file: join(cwd, 'tools', 'broken.ts'), line: 2 }),
    ])
  })

  it('discoverAndLoadCustomTools refuses a name a built-in or an earlier module holds, naming both', async () => {
    const cwd = temp()
    const first = writeFile(join(cwd, 'a', 'first.ts'), toolSource('twin', { text: 'first' }))
    const second = writeFile(join(cwd, 'b', 'second.ts'), toolSource('twin', { text: 'second' }))
    const shadow = writeFile(join(cwd, 'b', 'shadow.ts'), toolSource('read_file'))
    const result = await discoverAndLoadCustomTools([first, 'b'], cwd, ['read_file'])
    loaded.push(result)
    expect(result.tools.map((tool) => tool.name)).toEqual(['twin'])
    expect(await result.tools[0]?.execute({})).toMatchObject({ content: 'first' })
    expect(result.problems).toEqual([
      { file: second, message: `The tool "twin" is not loaded: ${first} has that name.` },
      { file: shadow, message: 'The tool "read_file" is not loaded: a built-in tool has that name.' },
    ])
  })

  it('is what the built package exports as `atelier`', async () => {
    const entry = join(ROOT, 'out', 'main', 'atelier.js')
    expect(existsSync(entry), 'run npm run build first').toBe(true)
    const cwd = temp()
    writeFile(join(cwd, 'greet.ts'), toolSource('greet', { text: 'hello from the package' }))
    const script = `
      import { loadCustomTools, discoverAndLoadCustomTools } from 'atelier'
      const loaded = await loadCustomTools(['greet.ts'], process.argv[1])
      const result = await loaded.tools[0].execute({})
      await loaded.close()
      console.log(JSON.stringify({ result, discover: typeof discoverAndLoadCustomTools }))
    `
    const { stdout } = await exec(process.execPath, ['--input-type=module', '-e', script, cwd], { cwd: ROOT })
    expect(JSON.parse(stdout)).toEqual({
      result: { content: 'hello from the package', isError: false },
      discover: 'function',
    })
  })
})
