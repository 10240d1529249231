import { existsSync, readFileSync, realpathSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { OUTSIDE_TMP, useTempDirs } from '../../support/temp-dir'
import { atelier } from './built-cli'

// The CLI under test is the built one, exactly as `npm install` leaves it (npm test builds first).
describe('atelier sandbox and --no-sandbox (built CLI)', () => {
  const tempDir = useTempDirs()
  const visibleDir = useTempDirs(OUTSIDE_TMP)

  it('status says the sandbox works here, with what, and the policy', async () => {
    const dataDir = tempDir()
    const text = await atelier(dataDir, 'sandbox', 'status')
    expect(text.code).toBe(0)
    expect(text.stdout).toMatch(/^Sandbox: available: bubblewrap \(\/\S*bwrap\), probe \d+ ms$/m)
    expect(text.stdout).toContain('Commands run sandboxed: yes')
    expect(text.stdout).toContain('Network: off')

    const json = JSON.parse((await atelier(dataDir, 'sandbox', 'status', '--json')).stdout)
    expect(json).toMatchObject({
      available: true,
      kind: 'bubblewrap',
      settings: { enabled: true, network: false },
    })
  })

  it('set changes the policy, kept for the next run, and refuses what it does not know', async () => {
    const dataDir = tempDir()
    const extra = visibleDir()
    const set = await atelier(dataDir, 'sandbox', 'set', 'network=true', `writablePaths=${extra}`)
    expect(set.code).toBe(0)
    expect(JSON.parse(set.stdout)).toMatchObject({ network: true, writablePaths: [extra] })
    expect((await atelier(dataDir, 'sandbox', 'status')).stdout).toContain('Network: on')

    const wrong = await atelier(dataDir, 'sandbox', 'set', 'network=maybe')
    expect(wrong.code).not.toBe(0)
    expect(wrong.stderr).toContain('network must be true or false')
    const unknown = await atelier(dataDir, 'sandbox', 'set', 'everything=true')
    expect(unknown.code).not.toBe(0)
    expect(unknown.stderr).toContain('unknown setting "everything"')
  })

  it('atelier tool runs a shell sandboxed, and as in the terminal with --no-sandbox', async () => {
    const dataDir = tempDir()
    const project = realpathSync(tempDir())
    const outside = join(realpathSync(visibleDir()), 'escaped.txt')
    await atelier(dataDir, 'settings', 'set', 'bash', 'enabled=true')
    const command = JSON.stringify({ command: `echo hi > ${outside}` })

    const sandboxed = await atelier(dataDir, 'tool', 'bash', command, '--cwd', project)
    expect(sandboxed.code).toBe(1)
    expect(sandboxed.stdout).toContain(`The sandbox refused writing ${outside}`)
    expect(existsSync(outside)).toBe(false)

    const unsandboxed = await atelier(dataDir, 'tool', 'bash', command, '--cwd', project, '--no-sandbox')
    expect(unsandboxed.code).toBe(0)
    expect(readFileSync(outside, 'utf8')).toBe('hi\n')
  })

  it('mcp add --sandboxed says the server runs in the sandbox', async () => {
    const dataDir = tempDir()
    const added = await atelier(dataDir, 'mcp', 'add', 'files', '--sandboxed', '--', 'node', 'server.js')
    expect(added).toMatchObject({ code: 0, stdout: 'added files: node server.js, in the sandbox\n' })
    const [server] = JSON.parse((await atelier(dataDir, 'mcp', 'list', '--json')).stdout)
    expect(server.definition).toMatchObject({ sandboxed: true })
  })
})
