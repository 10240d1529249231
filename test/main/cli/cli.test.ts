import { execFile, spawn } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { useTempDirs } from '../../support/temp-dir'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const BIN = join(ROOT, 'bin', 'atelier.js')
const run = promisify(execFile)
const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }

// The CLI under test is the built one, exactly as `npm install` leaves it (npm test builds first).
describe('atelier (built CLI)', () => {
  const tempDir = useTempDirs()

  it('prints its version', async () => {
    const { stdout } = await run(process.execPath, [BIN, '--version'])
    expect(stdout.trim()).toBe(version)
  })

  it('lists its options and commands in --help', async () => {
    const { stdout } = await run(process.execPath, [BIN, '--help'])
    expect(stdout).toContain('--data-dir <dir>')
    expect(stdout).toMatch(/^\s+web \[options\]/m)
  })

  it('fails with a usage message on an unknown command', async () => {
    await expect(run(process.execPath, [BIN, 'frobnicate'])).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining("unknown command 'frobnicate'"),
    })
  })

  it('rejects a port that is not a port', async () => {
    await expect(run(process.execPath, [BIN, 'web', '--port', '70000'])).rejects.toMatchObject({
      stderr: expect.stringContaining('expected a whole number from 0 to 65535'),
    })
  })

  it('serves the web host from the chosen data folder until it is stopped', async () => {
    const dataDir = tempDir()
    const child = spawn(process.execPath, [BIN, '--data-dir', dataDir, 'web'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let output = ''
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          output += chunk
          const match = /http:\/\/127\.0\.0\.1:\d+\/#token=[\w-]+/.exec(output)
          if (match) resolve(match[0])
        })
        child.once('exit', (code) => reject(new Error(`exited with ${code}`)))
      })
      // The token stays in the fragment: the page comes without it, and no cookie is set.
      const page = await fetch(new URL('/', url))
      expect(page.status).toBe(200)
      expect(page.headers.get('set-cookie')).toBeNull()
      expect(await page.text()).toContain('<div id="root">')
      expect(existsSync(join(dataDir, 'atelier.db'))).toBe(true)
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      expect(await exited).toBe(0)
    }
  })

  it('reports a damaged database clearly instead of crashing', async () => {
    const dataDir = tempDir()
    writeFileSync(join(dataDir, 'atelier.db'), 'not a database'.repeat(100))
    await expect(run(process.execPath, [BIN, '--data-dir', dataDir, 'web'])).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^atelier: The database at .* is damaged .*\(database_corrupt\)\n$/),
    })
  })
})
