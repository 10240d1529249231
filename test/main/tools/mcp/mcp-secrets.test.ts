import { rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { type Atelier, createAtelier } from '../../../../src-main/app/create-atelier'
import { SECRET_KEY_FILE } from '../../../../src-main/core/local-secret-store'
import { MASKED_VALUE, type McpServerInfo } from '../../../../src-shared/mcp'
import { useTempDirs } from '../../../support/temp-dir'
import { databaseFilesHolding, environmentOf, everythingWith } from './secret-probes'

const TOKEN = 'ghp_AtelierTestToken0123456789abcdef'

describe('MCP secrets', () => {
  const tempDir = useTempDirs()
  const open = new Set<Atelier>()
  afterEach(async () => {
    for (const atelier of open) await atelier.close()
    open.clear()
  })

  /** A real Atelier on a data folder, as the desktop app, the CLI or the web host opens it. */
  function start(dataDir: string): Atelier {
    const atelier = createAtelier({ dataDir })
    open.add(atelier)
    return atelier
  }

  async function stop(atelier: Atelier): Promise<void> {
    open.delete(atelier)
    await atelier.close()
  }

  function stdioDefinition(info: McpServerInfo | undefined) {
    if (info?.definition.transport !== 'stdio') throw new Error('not a stdio server')
    return info.definition
  }

  async function listed(atelier: Atelier): Promise<McpServerInfo[]> {
    const answer = await atelier.dispatch('mcp.list', {})
    if (!answer.ok) throw new Error(answer.error.message)
    return answer.value as McpServerInfo[]
  }

  it('never lets a token cross the contract nor reach the database, and the server still gets it', async () => {
    const dataDir = tempDir()
    const atelier = start(dataDir)
    const announced: string[] = []
    atelier.events.subscribe((event, payload) => {
      if (event === 'mcp.changed') announced.push(JSON.stringify(payload))
    })

    const added = await atelier.dispatch(
      'mcp.add',
      everythingWith('github', { GITHUB_PERSONAL_ACCESS_TOKEN: TOKEN, GITHUB_HOST: 'github.com' }),
    )
    expect(added).toMatchObject({
      ok: true,
      value: {
        definition: { env: { GITHUB_PERSONAL_ACCESS_TOKEN: MASKED_VALUE, GITHUB_HOST: 'github.com' } },
      },
    })
    const approved = await atelier.dispatch('mcp.approve', { name: 'github' })
    expect(approved).toMatchObject({ ok: true, value: { needsApproval: false } })

    const environment = await environmentOf(atelier, 'github')
    expect(environment.GITHUB_PERSONAL_ACCESS_TOKEN).toBe(TOKEN)
    expect(environment.GITHUB_HOST).toBe('github.com')

    const answers = JSON.stringify([added, approved, await listed(atelier)])
    expect(answers).not.toContain(TOKEN)
    // Added, approved, started: each was announced, none with the token.
    expect(announced.length).toBeGreaterThanOrEqual(3)
    for (const payload of announced) expect(payload).not.toContain(TOKEN)
    expect(databaseFilesHolding(dataDir, TOKEN)).toEqual([])

    await stop(atelier)
    expect(databaseFilesHolding(dataDir, TOKEN)).toEqual([])
    // Only the data folder's owner may read the key.
    expect(statSync(join(dataDir, SECRET_KEY_FILE)).mode & 0o777).toBe(0o600)

    // Another process of the same data folder (the CLI, the web host) launches it with the token too.
    const again = start(dataDir)
    expect((await environmentOf(again, 'github')).GITHUB_PERSONAL_ACCESS_TOKEN).toBe(TOKEN)
  })

  it('keeps a secret sent back masked, and asks for approval again only when the secret changes', async () => {
    const dataDir = tempDir()
    const atelier = start(dataDir)
    const definition = stdioDefinition(
      atelier.mcp.add(everythingWith('github', { GITHUB_TOKEN: TOKEN }), { approve: true }),
    )

    // The edit form sends back what it was given: the arguments change, the token is not retyped.
    const edited = await atelier.dispatch('mcp.update', {
      name: 'github',
      server: { ...definition, args: [...(definition.args ?? []), 'stdio'] },
    })
    if (!edited.ok) throw new Error(edited.error.message)
    const editedDefinition = stdioDefinition(edited.value as McpServerInfo)
    expect(editedDefinition.env).toEqual({ GITHUB_TOKEN: MASKED_VALUE })
    atelier.mcp.approve('github')
    expect((await environmentOf(atelier, 'github')).GITHUB_TOKEN).toBe(TOKEN)

    // The same token retyped is no change; another token is, and is approved without being shown.
    const retyped = await atelier.mcp.update('github', { ...editedDefinition, env: { GITHUB_TOKEN: TOKEN } })
    expect(retyped.needsApproval).toBe(false)
    const changed = await atelier.mcp.update('github', {
      ...editedDefinition,
      env: { GITHUB_TOKEN: 'ghp_another' },
    })
    expect(changed).toMatchObject({
      needsApproval: true,
      definition: { env: { GITHUB_TOKEN: MASKED_VALUE } },
    })
    atelier.mcp.approve('github')
    expect((await environmentOf(atelier, 'github')).GITHUB_TOKEN).toBe('ghp_another')

    // A masked value for a name that holds nothing is refused, not stored as eight dots.
    await expect(
      atelier.mcp.update('github', { ...editedDefinition, env: { NEW_TOKEN: MASKED_VALUE } }),
    ).rejects.toMatchObject({ code: 'secret_missing' })
    await stop(atelier)
    expect(databaseFilesHolding(dataDir, 'ghp_another')).toEqual([])
  })

  it("follows the person's marks over the name's look, both ways", async () => {
    const dataDir = tempDir()
    const atelier = start(dataDir)
    const hidden = 'swordfish-9000'
    // Neighbours on the same database page, as a person's other servers would be.
    for (const name of ['alpha', 'beta', 'gamma']) {
      atelier.mcp.add(everythingWith(name, { DESCRIPTION: `the ${name} server `.repeat(8) }), {
        approve: false,
      })
    }
    const info = atelier.mcp.add(
      {
        ...everythingWith('marked', { MONKEY_NAME: 'bubbles', DATABASE_NAME: hidden }),
        secret: { MONKEY_NAME: false, DATABASE_NAME: true },
      },
      { approve: true },
    )
    expect(info.definition).toMatchObject({
      env: { MONKEY_NAME: 'bubbles', DATABASE_NAME: MASKED_VALUE },
      secret: { MONKEY_NAME: false, DATABASE_NAME: true },
    })
    const environment = await environmentOf(atelier, 'marked')
    expect([environment.MONKEY_NAME, environment.DATABASE_NAME]).toEqual(['bubbles', hidden])
    expect(() =>
      atelier.mcp.add({ ...everythingWith('typo', {}), secret: { API_TOKEN: true } }, { approve: true }),
    ).toThrow(expect.objectContaining({ code: 'invalid_secret' }))

    // Marked public, a stored secret comes out in the clear without being retyped…
    const definition = stdioDefinition(info)
    const unmarked = await atelier.mcp.update('marked', { ...definition, secret: { MONKEY_NAME: false } })
    expect(unmarked.definition).toMatchObject({ env: { DATABASE_NAME: hidden } })
    expect(databaseFilesHolding(dataDir, hidden)).not.toEqual([])
    // …and marked secret again, the value it had in the clear leaves no copy in the database.
    const marked = await atelier.mcp.update('marked', definition)
    expect(marked.definition).toMatchObject({ env: { DATABASE_NAME: MASKED_VALUE } })
    await stop(atelier)
    expect(databaseFilesHolding(dataDir, hidden)).toEqual([])
  })

  it('says which secret cannot be read when the key is gone, and starts nothing without it', async () => {
    const dataDir = tempDir()
    const atelier = start(dataDir)
    atelier.mcp.add(everythingWith('github', { GITHUB_TOKEN: TOKEN }), { approve: true })
    await stop(atelier)
    rmSync(join(dataDir, SECRET_KEY_FILE))

    const keyless = start(dataDir)
    const [status] = await keyless.mcp.prepare()
    expect(status).toMatchObject({
      name: 'github',
      connected: false,
      error: expect.stringMatching(
        /GITHUB_TOKEN cannot be decrypted .*secrets\.key is missing.*type it again/,
      ),
    })
    expect(keyless.mcp.list()[0]).toMatchObject({ running: false, error: status?.error })

    // A key that is not the one it was sealed with fails the same way, and retyping mends it.
    writeFileSync(join(dataDir, SECRET_KEY_FILE), Buffer.alloc(32, 7), { mode: 0o600 })
    const replaced = start(dataDir)
    expect((await replaced.mcp.prepare())[0]?.error).toMatch(/not the key it was stored with/)
    const definition = stdioDefinition(replaced.mcp.list()[0])
    await expect(replaced.mcp.update('github', definition)).rejects.toMatchObject({
      code: 'secret_unreadable',
    })
    await replaced.mcp.update('github', { ...definition, env: { GITHUB_TOKEN: 'ghp_retyped' } })
    replaced.mcp.approve('github')
    expect((await environmentOf(replaced, 'github')).GITHUB_TOKEN).toBe('ghp_retyped')
  })
})
