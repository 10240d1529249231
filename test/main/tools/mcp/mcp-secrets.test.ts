import { rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { type Atelier, createAtelier, DATABASE_FILE } from '../../../../src-main/app/create-atelier'
import { SECRET_KEY_FILE } from '../../../../src-main/core/local-secret-store'
import type { McpServerInfo } from '../../../../src-shared/mcp'
import { MASKED_VALUE } from '../../../../src-shared/secrets'
import { killHard } from '../../../support/fixture-process'
import { useNatsServers } from '../../../support/nats-server'
import { recordingProxy, startRemote } from '../../../support/remote-mcp'
import { useTempDirs } from '../../../support/temp-dir'
import { databaseFilesHolding, environmentOf, everythingWith } from './secret-probes'

const TOKEN = 'ghp_AtelierTestToken0123456789abcdef'

describe('MCP secrets', () => {
  const tempDir = useTempDirs()
  const natsServer = useNatsServers()
  const open = new Set<Atelier>()
  const cleanups: (() => Promise<unknown>)[] = []
  afterEach(async () => {
    for (const atelier of open) await atelier.close()
    open.clear()
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
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
        definition: { env: { GITHUB_PERSONAL_ACCESS_TOKEN: MASKED_VALUE, GITHUB_HOST: MASKED_VALUE } },
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

  it('seals secrets no name check sees — every value, URL credentials, the broker URL — and each still reaches its server', async () => {
    const secret = {
      databasePassword: 'PgPass-0b1c2d3e',
      pat: 'ghp_PatNoNameCheckSees_4242',
      dsnKey: 'dsnkey9f8e7d6c',
      teamPat: 'team-pat-7a6b5c4d',
      apiKey: 'apikey-5d4c3b2a1f',
      brokerPassword: 'BrokerPass-1a2b3c',
    }
    const remote = await startRemote('streamableHttp')
    cleanups.push(() => killHard(remote.child))
    const proxy = await recordingProxy(remote.port)
    cleanups.push(proxy.close)
    const nats = await natsServer(['--user', 'atelier', '--pass', secret.brokerPassword])
    const dataDir = tempDir()
    const atelier = start(dataDir)
    const announced: string[] = []
    atelier.events.subscribe((event, payload) => {
      if (event === 'mcp.changed' || event === 'services.changed') announced.push(JSON.stringify(payload))
    })

    const env = {
      DATABASE_URL: `postgres://u:${secret.databasePassword}@db.example/app`,
      GH_PAT: secret.pat,
      SENTRY_DSN: `https://${secret.dsnKey}@o1.ingest.sentry.io/7`,
      LOG_LEVEL: 'debug',
    }
    const local = await atelier.dispatch('mcp.add', {
      ...everythingWith('local', env),
      secret: { LOG_LEVEL: false },
    })
    expect(local).toMatchObject({
      ok: true,
      value: {
        definition: {
          env: {
            DATABASE_URL: MASKED_VALUE,
            GH_PAT: MASKED_VALUE,
            SENTRY_DSN: MASKED_VALUE,
            LOG_LEVEL: 'debug',
          },
          secret: { LOG_LEVEL: false },
        },
      },
    })
    const approved = await atelier.dispatch('mcp.approve', { name: 'local' })
    const url = `http://127.0.0.1:${proxy.port}/mcp?team=atelier&api_key=${secret.apiKey}`
    const added = await atelier.dispatch('mcp.add', {
      name: 'remote',
      transport: 'http',
      url,
      headers: { 'X-Team-Pat': secret.teamPat },
    })
    expect(added).toMatchObject({
      ok: true,
      value: {
        target: `http://127.0.0.1:${proxy.port}/mcp?team=atelier&api_key=${MASKED_VALUE}`,
        definition: { headers: { 'X-Team-Pat': MASKED_VALUE } },
      },
    })
    const broker = await atelier.dispatch('services.setBroker', {
      url: `nats://atelier:${secret.brokerPassword}@127.0.0.1:${nats.port}`,
      auth: { kind: 'none' },
    })
    expect(broker).toMatchObject({
      ok: true,
      value: { url: `nats://${MASKED_VALUE}@127.0.0.1:${nats.port}` },
    })

    // Each server gets its values as typed.
    expect(await environmentOf(atelier, 'local')).toMatchObject(env)
    expect(proxy.paths.length).toBeGreaterThanOrEqual(2)
    for (const path of proxy.paths) expect(path).toBe(`/mcp?team=atelier&api_key=${secret.apiKey}`)
    for (const headers of proxy.seen) expect(headers).toMatchObject({ 'x-team-pat': secret.teamPat })
    expect(await atelier.dispatch('services.connect', {})).toMatchObject({ value: { status: 'connected' } })

    // Saved again as listed, masked, each keeps the credentials it had.
    const remoteInfo = atelier.mcp.list().find((server) => server.name === 'remote')
    if (!remoteInfo) throw new Error('remote is not listed')
    await atelier.mcp.update('remote', remoteInfo.definition)
    proxy.paths.splice(0)
    await atelier.mcp.prepare()
    expect(proxy.paths).toContain(`/mcp?team=atelier&api_key=${secret.apiKey}`)
    await atelier.services.setBroker({ url: atelier.services.brokerInfo().url, auth: { kind: 'none' } })
    expect((await atelier.services.connect()).status).toBe('connected')

    const answers = JSON.stringify([
      local,
      approved,
      added,
      broker,
      await listed(atelier),
      await atelier.dispatch('services.broker', {}),
      announced,
    ])
    expect(announced.length).toBeGreaterThanOrEqual(4)
    expect(Object.values(secret).filter((value) => answers.includes(value))).toEqual([])
    const inFiles = () =>
      Object.values(secret).filter((value) => databaseFilesHolding(dataDir, value).length > 0)
    expect(inFiles()).toEqual([])
    // Marked not secret, a value stays in the clear, in the file as in the listing.
    expect(databaseFilesHolding(dataDir, 'debug')).not.toEqual([])

    // Only the owner may read the database and its WAL files, whatever the umask.
    for (const file of [DATABASE_FILE, `${DATABASE_FILE}-wal`, `${DATABASE_FILE}-shm`]) {
      expect({ file, mode: statSync(join(dataDir, file)).mode & 0o777 }).toEqual({ file, mode: 0o600 })
    }
    await stop(atelier)
    expect(inFiles()).toEqual([])

    // The next process of the data folder connects with them too.
    const again = start(dataDir)
    expect((await again.services.connect()).status).toBe('connected')
    expect((await environmentOf(again, 'local')).DATABASE_URL).toBe(env.DATABASE_URL)
  }, 60_000)

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

  it("follows the person's marks, both ways", async () => {
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
      secret: { MONKEY_NAME: false },
    })
    const environment = await environmentOf(atelier, 'marked')
    expect([environment.MONKEY_NAME, environment.DATABASE_NAME]).toEqual(['bubbles', hidden])
    expect(() =>
      atelier.mcp.add({ ...everythingWith('typo', {}), secret: { API_TOKEN: true } }, { approve: true }),
    ).toThrow(expect.objectContaining({ code: 'invalid_secret' }))

    // Marked not secret, a stored secret comes out in the clear without being retyped…
    const definition = stdioDefinition(info)
    const unmarked = await atelier.mcp.update('marked', {
      ...definition,
      secret: { MONKEY_NAME: false, DATABASE_NAME: false },
    })
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
