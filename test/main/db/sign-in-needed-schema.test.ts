import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { DATABASE_FILE } from '../../../src-main/app/create-atelier'
import { openDatabase } from '../../../src-main/db/database'
import { migrations } from '../../../src-main/db/migrations'
import { useTempDirs } from '../../support/temp-dir'

describe("schema 29: what an MCP server's sign-in still needs", () => {
  const tempDir = useTempDirs()

  it('keeps the credentials stored before, takes sign_in_needed, still refuses an unknown kind and goes with its server', () => {
    const file = join(tempDir(), DATABASE_FILE)
    const old = openDatabase(file, { migrations: migrations.filter((m) => m.version < 29) })
    old.exec(
      `INSERT INTO mcp_servers (id, name, transport, config, enabled, approved_launch, created_at, updated_at)
       VALUES ('s', 'remote', 'http', '{}', 1, NULL, 0, 0)`,
    )
    old.exec("INSERT INTO mcp_oauth_credentials (server_id, kind, sealed) VALUES ('s', 'tokens', x'01')")
    old.close()

    const db = openDatabase(file)
    try {
      expect(db.prepare('SELECT kind, hex(sealed) AS sealed FROM mcp_oauth_credentials').all()).toEqual([
        { kind: 'tokens', sealed: '01' },
      ])
      db.exec(
        "INSERT INTO mcp_oauth_credentials (server_id, kind, sealed) VALUES ('s', 'sign_in_needed', x'02')",
      )
      expect(() =>
        db.exec("INSERT INTO mcp_oauth_credentials (server_id, kind, sealed) VALUES ('s', 'other', x'03')"),
      ).toThrow(/CHECK constraint/)
      db.exec("DELETE FROM mcp_servers WHERE id = 's'")
      expect(db.prepare('SELECT count(*) AS n FROM mcp_oauth_credentials').get()).toEqual({ n: 0 })
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok')
    } finally {
      db.close()
    }
  })
})
