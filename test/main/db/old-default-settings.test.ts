import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createAtelier, DATABASE_FILE, LOCAL_USER } from '../../../src-main/app/create-atelier'
import { openDatabase } from '../../../src-main/db/database'
import { migrations } from '../../../src-main/db/migrations'
import { useTempDirs } from '../../support/temp-dir'

describe('schema 9: denied paths saved as the old default', () => {
  const tempDir = useTempDirs()

  it('follow the new defaults, while a list the person edited stays theirs', async () => {
    const dataDir = tempDir()
    const old = openDatabase(join(dataDir, DATABASE_FILE), {
      migrations: migrations.filter((m) => m.version <= 8),
    })
    const save = old.prepare(
      'INSERT INTO user_tool_settings (user_id, tool_name, enabled, parameters, updated_at) VALUES (?, ?, NULL, ?, 0)',
    )
    // What the settings panel stored when someone saved write_file's form without touching the list.
    const untouched = { allowedPaths: [], deniedPaths: ['~/.ssh', '~/.gnupg', '~/.aws'], timeoutSeconds: 30 }
    save.run(LOCAL_USER, 'write_file', JSON.stringify(untouched))
    save.run(LOCAL_USER, 'read_file', JSON.stringify({ deniedPaths: ['~/.ssh', '~/secret-notes'] }))
    old.close()

    const atelier = createAtelier({ dataDir })
    try {
      const write = atelier.tools.settings.get(LOCAL_USER, 'write_file').parameters
      expect(write.deniedPaths).toEqual(expect.arrayContaining(['~/.git-credentials', '~/.bashrc']))
      expect(write.timeoutSeconds).toBe(30)
      expect(atelier.tools.settings.get(LOCAL_USER, 'read_file').parameters.deniedPaths).toEqual([
        '~/.ssh',
        '~/secret-notes',
      ])
    } finally {
      await atelier.close()
    }
  })
})
