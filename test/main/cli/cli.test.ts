import { execFile, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { useTempDirs } from '../../support/temp-dir'
import { atelier, atelierUnprivileged, UNPRIVILEGED } from './built-cli'

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

  it('reports a damaged database clearly, keeps a copy beside it and says how to start fresh', async () => {
    const dataDir = tempDir()
    const file = join(dataDir, 'atelier.db')
    const bytes = randomBytes(64 * 1024)
    writeFileSync(file, bytes)
    await expect(run(process.execPath, [BIN, '--data-dir', dataDir, 'web'])).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(
        /^atelier: The database at .* is damaged .* A copy is kept at .*atelier\.db\.corrupt-.* To start fresh beside it, move atelier\.db .*\(database_corrupt\)\n$/,
      ),
    })
    const copies = readdirSync(dataDir).filter((name) => name.startsWith('atelier.db.corrupt-'))
    expect(copies).toHaveLength(1)
    expect(readFileSync(join(dataDir, copies[0] as string)).equals(bytes)).toBe(true)
    expect(readFileSync(file).equals(bytes)).toBe(true)

    // Moved aside as the words say, the next start makes a fresh database beside the copy.
    renameSync(file, join(dataDir, 'moved-aside.db'))
    expect(await atelier(dataDir, 'tools')).toMatchObject({ code: 0 })
    expect(statSync(file).size).toBeGreaterThan(0)
  })

  it('starts fresh beside a damaged database when told to, the damaged one kept', async () => {
    const dataDir = tempDir()
    const bytes = randomBytes(64 * 1024)
    writeFileSync(join(dataDir, 'atelier.db'), bytes)
    const { code, stdout } = await atelier(dataDir, 'database', 'start-fresh')
    expect(code).toBe(0)
    const [kept] = /\S+atelier\.db\.corrupt-\S+Z/.exec(stdout) ?? ['']
    expect(stdout).toMatch(/^Started a fresh database at .*atelier\.db\. The one that was there is at /)
    expect(readFileSync(kept).equals(bytes)).toBe(true)
    expect(await atelier(dataDir, 'tools')).toMatchObject({ code: 0 })
  })

  it('says a 0-byte database is empty rather than starting over in it, and leaves it empty', async () => {
    const dataDir = tempDir()
    const file = join(dataDir, 'atelier.db')
    writeFileSync(file, '')
    const { code, stderr } = await atelier(dataDir, 'tools')
    expect({ code, stderr }).toEqual({
      code: 1,
      stderr: expect.stringMatching(
        /^atelier: The database at .* is empty \(0 bytes\).*\(database_empty\)\n$/,
      ),
    })
    expect(readdirSync(dataDir)).toEqual(['atelier.db'])
    expect(statSync(file).size).toBe(0)
  })

  describe.skipIf(!UNPRIVILEGED)('run by a user the file modes bind', () => {
    /** A data folder of uid 65534 (`nobody`, whom the CLI runs as under root), with a database in it. */
    async function ownDataFolder(): Promise<string> {
      const root = tempDir()
      const dataDir = join(root, 'data')
      if (process.getuid?.() === 0) {
        chmodSync(root, 0o755)
        mkdirSync(dataDir)
        chownSync(dataDir, 65534, 65534)
      }
      expect(await atelierUnprivileged(dataDir, 'tools')).toMatchObject({ code: 0 })
      return dataDir
    }

    it('says a read-only data folder is read-only, not damaged, and changes nothing in it', async () => {
      const dataDir = await ownDataFolder()
      const before = readFileSync(join(dataDir, 'atelier.db'))
      const files = readdirSync(dataDir)
      chmodSync(dataDir, 0o555)
      try {
        const { code, stderr } = await atelierUnprivileged(dataDir, 'tools')
        expect({ code, stderr }).toEqual({
          code: 1,
          stderr: expect.stringMatching(
            /^atelier: Atelier cannot write to its database at .* read-only .*\(database_read_only\)\n$/,
          ),
        })
        expect(stderr).not.toMatch(/damaged|fresh/)
      } finally {
        chmodSync(dataDir, 0o755)
      }
      expect(readdirSync(dataDir)).toEqual(files)
      expect(readFileSync(join(dataDir, 'atelier.db')).equals(before)).toBe(true)
    })

    it('says a read-only database file is read-only and leaves it read-only', async () => {
      const dataDir = await ownDataFolder()
      chmodSync(join(dataDir, 'atelier.db'), 0o400)
      const { code, stderr } = await atelierUnprivileged(dataDir, 'tools')
      expect({ code, stderr }).toEqual({ code: 1, stderr: expect.stringContaining('(database_read_only)') })
      expect(statSync(join(dataDir, 'atelier.db')).mode & 0o777).toBe(0o400)
    })

    it.skipIf(process.getuid?.() !== 0)(
      'says a database of another user is not this user’s to open',
      async () => {
        const dataDir = tempDir()
        chmodSync(dataDir, 0o755)
        expect(await atelier(dataDir, 'tools')).toMatchObject({ code: 0 })
        const { code, stderr } = await atelierUnprivileged(dataDir, 'tools')
        expect({ code, stderr }).toEqual({
          code: 1,
          stderr: expect.stringMatching(
            /^atelier: Atelier is not allowed to open its database .* another user .*\(database_permission_denied\)\n$/,
          ),
        })
      },
    )
  })
})
