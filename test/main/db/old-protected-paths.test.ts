import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createAtelier, DATABASE_FILE } from '../../../src-main/app/create-atelier'
import { openDatabase } from '../../../src-main/db/database'
import { DEFAULTS_UP_TO_14 } from '../../../src-main/db/legacy-protected-paths'
import { migrations } from '../../../src-main/db/migrations'
import { DEFAULT_PROTECTED_PATHS } from '../../../src-shared/approvals'
import { useTempDirs } from '../../support/temp-dir'

describe('schema 15: protected paths stored before it', () => {
  const tempDir = useTempDirs()

  /** Atelier opened on a schema-14 database whose stored preferences are `preferences`. */
  function upgraded(preferences: Record<string, unknown>) {
    const dataDir = tempDir()
    const old = openDatabase(join(dataDir, DATABASE_FILE), {
      migrations: migrations.filter((m) => m.version <= 14),
    })
    old
      .prepare("INSERT INTO app_settings (key, value, updated_at) VALUES ('preferences', ?, 0)")
      .run(JSON.stringify(preferences))
    old.close()
    return createAtelier({ dataDir })
  }

  it('follow the defaults when they were the old defaults, stored by saving another preference', async () => {
    const atelier = upgraded({ theme: 'dark', maxIterations: 50, protectedPaths: DEFAULTS_UP_TO_14 })
    try {
      expect(atelier.preferences.get()).toMatchObject({
        theme: 'dark',
        protectedPaths: DEFAULT_PROTECTED_PATHS,
      })
    } finally {
      await atelier.close()
    }
  })

  it("keep the person's own list, widened, with every new entry added after it", async () => {
    // Without .envrc, which the person removed; with a glob of their own.
    const edited = [...DEFAULTS_UP_TO_14.filter((path) => path !== '.envrc'), 'secrets/**']
    const atelier = upgraded({ protectedPaths: edited })
    try {
      const { protectedPaths } = atelier.preferences.get()
      expect(protectedPaths.slice(0, edited.length)).toEqual(
        edited.map(
          (path) => ({ '.git/**': '**/.git/**', '.github/workflows/**': '.github/**' })[path] ?? path,
        ),
      )
      expect(protectedPaths).not.toContain('.envrc')
      expect(new Set(protectedPaths)).toEqual(
        new Set([...DEFAULT_PROTECTED_PATHS.filter((path) => path !== '.envrc'), 'secrets/**']),
      )
    } finally {
      await atelier.close()
    }
  })
})
