import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { type Atelier, createAtelier, DATABASE_FILE } from '../../../src-main/app/create-atelier'
import { SECRET_KEY_FILE } from '../../../src-main/core/local-secret-store'
import { launchApproval } from '../../../src-main/core/mcp-launch'
import { openDatabase } from '../../../src-main/db/database'
import { migrations } from '../../../src-main/db/migrations'
import { MASKED_VALUE } from '../../../src-shared/secrets'
import { EVERYTHING_SERVER } from '../../support/mcp-servers'
import { useTempDirs } from '../../support/temp-dir'
import { databaseFilesHolding, environmentOf } from '../tools/mcp/secret-probes'

const TOKEN = 'ghp_StoredInClearBySchema7_0123456789'
const OLD_TOKEN = 'ghp_ApprovedBeforeTheLastEdit_987654'
const REPLACED_TOKEN = 'ghp_ReplacedByAnEditUnderSchema7_5555'
const BEARER = 'Bearer remote-secret-0123456789'

/** A server row as Atelier wrote it up to schema 7: every value in `config`, the approval as text. */
function legacyRow(
  id: string,
  env: Record<string, string>,
  approvedEnv: Record<string, string> | null = env,
) {
  const command = `${process.execPath} ${EVERYTHING_SERVER} stdio`
  return {
    id,
    name: id,
    transport: 'stdio',
    config: JSON.stringify({ command: process.execPath, args: [EVERYTHING_SERVER, 'stdio'], env, cwd: null }),
    approved: approvedEnv && JSON.stringify({ command, env: approvedEnv, cwd: null }),
  }
}

describe('migration 8: MCP secrets stored in clear', () => {
  const tempDir = useTempDirs()
  const open: Atelier[] = []
  afterEach(async () => {
    for (const atelier of open.splice(0)) await atelier.close()
  })

  /** A data folder holding a schema 7 database with these servers, closed as an older Atelier leaves it. */
  function schema7Folder(): string {
    const dataDir = tempDir()
    const db = openDatabase(join(dataDir, DATABASE_FILE), { migrations: migrations.slice(0, 7) })
    const insert = db.prepare(
      `INSERT INTO mcp_servers (id, name, transport, config, enabled, approved_launch, created_at, updated_at)
       VALUES (@id, @name, @transport, @config, 1, @approved, 0, 0)`,
    )
    const github = (env: Record<string, string>) =>
      legacyRow('github', { GITHUB_PERSONAL_ACCESS_TOKEN: TOKEN, GITHUB_HOST: 'github.com', ...env })
    insert.run(github({ GITHUB_PERSONAL_ACCESS_TOKEN: REPLACED_TOKEN }))
    // Approved with the token it had before its last edit: that approval names the old token.
    insert.run(legacyRow('edited', { API_TOKEN: 'ghp_current' }, { API_TOKEN: OLD_TOKEN }))
    insert.run(legacyRow('plain', { MODE: 'x'.repeat(200) }))
    insert.run({
      id: 'remote',
      name: 'remote',
      transport: 'http',
      config: JSON.stringify({
        url: 'http://127.0.0.1:9/mcp',
        headers: { Authorization: BEARER, 'X-Team': 'a' },
      }),
      approved: null,
    })
    // Edited since, its token replaced and a variable added: the row moved, and its old bytes stay
    // behind in the free space of the page.
    db.prepare('UPDATE mcp_servers SET config = @config, approved_launch = @approved WHERE id = @id').run(
      github({ GITHUB_TOOLSETS: 'repos,issues,pull_requests,actions' }),
    )
    db.close()
    return dataDir
  }

  it('moves the secrets to the store, scrubs them from the file, and the server still launches with them', async () => {
    const dataDir = schema7Folder()
    // As an older Atelier left it: every one of them is in the file, in clear.
    const secrets = [TOKEN, OLD_TOKEN, REPLACED_TOKEN, BEARER, 'ghp_current']
    expect(secrets.filter((secret) => databaseFilesHolding(dataDir, secret).length === 0)).toEqual([])
    expect(existsSync(join(dataDir, SECRET_KEY_FILE))).toBe(false)

    const atelier = createAtelier({ dataDir })
    open.push(atelier)
    const servers = Object.fromEntries(atelier.mcp.list().map((server) => [server.name, server]))
    // Migration 16 seals the values whose names do not look secret as well; approvals still hold.
    expect(servers.github).toMatchObject({
      needsApproval: false,
      definition: { env: { GITHUB_PERSONAL_ACCESS_TOKEN: MASKED_VALUE, GITHUB_HOST: MASKED_VALUE } },
    })
    // An approval of an older launch is gone with the token it named; the server asks again.
    expect(servers.edited).toMatchObject({
      needsApproval: true,
      definition: { env: { API_TOKEN: MASKED_VALUE } },
    })
    expect(servers.plain).toMatchObject({ needsApproval: false })
    expect(servers.remote?.definition).toMatchObject({
      headers: { Authorization: MASKED_VALUE, 'X-Team': MASKED_VALUE },
    })
    expect(JSON.stringify(atelier.mcp.list())).not.toMatch(/ghp_|remote-secret/)
    // Gone from the files at once, while the app runs, not only once it has closed.
    expect(secrets.filter((secret) => databaseFilesHolding(dataDir, secret).length > 0)).toEqual([])

    expect((await environmentOf(atelier, 'github')).GITHUB_PERSONAL_ACCESS_TOKEN).toBe(TOKEN)
    await open.splice(0)[0]?.close()

    expect(secrets.filter((secret) => databaseFilesHolding(dataDir, secret).length > 0)).toEqual([])
    expect(readFileSync(join(dataDir, SECRET_KEY_FILE))).toHaveLength(32)
    const reopened = openDatabase(join(dataDir, DATABASE_FILE))
    try {
      expect(
        reopened.prepare('SELECT server_id, name FROM mcp_secrets ORDER BY server_id, name').all(),
      ).toEqual([
        { server_id: 'edited', name: 'API_TOKEN' },
        { server_id: 'github', name: 'GITHUB_HOST' },
        { server_id: 'github', name: 'GITHUB_PERSONAL_ACCESS_TOKEN' },
        { server_id: 'github', name: 'GITHUB_TOOLSETS' },
        { server_id: 'plain', name: 'MODE' },
        { server_id: 'remote', name: 'Authorization' },
        { server_id: 'remote', name: 'X-Team' },
      ])
    } finally {
      reopened.close()
    }
  })

  it('creates no key where there is nothing to seal', () => {
    const dataDir = tempDir()
    openDatabase(join(dataDir, DATABASE_FILE), { migrations: migrations.slice(0, 7) }).close()
    openDatabase(join(dataDir, DATABASE_FILE)).close()
    expect(existsSync(join(dataDir, SECRET_KEY_FILE))).toBe(false)
  })
})

describe('migration 16: every MCP value and URL credential sealed, trust per content', () => {
  const tempDir = useTempDirs()
  const open: Atelier[] = []
  afterEach(async () => {
    for (const atelier of open.splice(0)) await atelier.close()
  })

  const PASSWORD = 'PgPassInClear-4e5f6a'
  const API_KEY = 'apikey-InClear-7b8c9d'
  const BROKER_PASSWORD = 'NatsPassInClear-0a1b2c'
  const TEAM_PAT = 'team-pat-InClear-3d4e'

  /** A data folder as Atelier left it at schema 14: values whose names did not look secret, in clear. */
  function schema14Folder(): string {
    const dataDir = tempDir()
    const db = openDatabase(join(dataDir, DATABASE_FILE), {
      migrations: migrations.filter((migration) => migration.version <= 14),
    })
    const insert = db.prepare(
      `INSERT INTO mcp_servers (id, name, transport, config, enabled, approved_launch, created_at, updated_at)
       VALUES (@id, @name, @transport, @config, 1, @approved, 0, 0)`,
    )
    const args = [EVERYTHING_SERVER, 'stdio']
    // API_KEY_ID looks secret, yet is in clear: the person marked it not secret.
    const env = { DATABASE_URL: `postgres://u:${PASSWORD}@db.example/app`, API_KEY_ID: 'public-id' }
    const approved = launchApproval({ command: process.execPath, args, env, secrets: {}, cwd: null })
    const config = { command: process.execPath, args, env, cwd: null }
    insert.run({ id: 'db', name: 'db', transport: 'stdio', config: JSON.stringify(config), approved })
    insert.run({
      id: 'remote',
      name: 'remote',
      transport: 'http',
      config: JSON.stringify({
        url: `https://mcp.example/mcp?api_key=${API_KEY}`,
        headers: { 'X-Team-Pat': TEAM_PAT },
      }),
      approved: null,
    })
    const setting = db.prepare('INSERT INTO app_settings (key, value, updated_at) VALUES (?, ?, 0)')
    setting.run(
      'toolServices.broker',
      JSON.stringify({
        url: `nats://atelier:${BROKER_PASSWORD}@127.0.0.1:4222`,
        auth: { kind: 'none' },
        caFile: null,
      }),
    )
    db.close()
    return dataDir
  }

  it('seals them, keeps the marks and the approval, and the server still launches with them', async () => {
    const dataDir = schema14Folder()
    const secrets = [PASSWORD, API_KEY, BROKER_PASSWORD, TEAM_PAT]
    expect(secrets.filter((secret) => databaseFilesHolding(dataDir, secret).length === 0)).toEqual([])

    const atelier = createAtelier({ dataDir })
    open.push(atelier)
    const servers = Object.fromEntries(atelier.mcp.list().map((server) => [server.name, server]))
    expect(servers.db).toMatchObject({
      needsApproval: false,
      definition: {
        env: { DATABASE_URL: MASKED_VALUE, API_KEY_ID: 'public-id' },
        secret: { API_KEY_ID: false },
      },
    })
    expect(servers.remote).toMatchObject({
      target: `https://mcp.example/mcp?api_key=${MASKED_VALUE}`,
      definition: { headers: { 'X-Team-Pat': MASKED_VALUE } },
    })
    expect(atelier.services.brokerInfo().url).toBe(`nats://${MASKED_VALUE}@127.0.0.1:4222`)
    expect(secrets.filter((secret) => databaseFilesHolding(dataDir, secret).length > 0)).toEqual([])
    expect(await environmentOf(atelier, 'db')).toMatchObject({
      DATABASE_URL: `postgres://u:${PASSWORD}@db.example/app`,
      API_KEY_ID: 'public-id',
    })
  })

  it('keeps the folders trusted before, with their modules waiting to be confirmed: what was trusted is not known', async () => {
    const dataDir = tempDir()
    const project = tempDir()
    const module = join(project, '.atelier', 'tools', 'old.ts')
    mkdirSync(dirname(module), { recursive: true })
    writeFileSync(module, 'export default () => []\n')
    const db = openDatabase(join(dataDir, DATABASE_FILE), {
      migrations: migrations.filter((migration) => migration.version <= 14),
    })
    db.prepare(
      "INSERT INTO app_settings (key, value, updated_at) VALUES ('customTools.trustedFolders', ?, 0)",
    ).run(JSON.stringify([project]))
    db.close()

    const atelier = createAtelier({ dataDir, home: tempDir() })
    open.push(atelier)
    expect(atelier.customTools.trustedFolders()).toEqual([project])
    const info = atelier.customTools.list(project)
    expect(info.folders[0]?.files).toEqual([expect.objectContaining({ path: module, status: 'changed' })])
    expect(info.trustNeeded).toEqual({ folder: project, files: [module], changedSinceTrusted: true })
  })
})
