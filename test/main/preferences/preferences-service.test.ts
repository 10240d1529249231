import { describe, expect, it } from 'vitest'
import { createAtelier } from '../../../src-main/app/create-atelier'
import { DEFAULT_PROTECTED_PATHS } from '../../../src-shared/approvals'
import { DEFAULT_CHECKPOINT_SETTINGS } from '../../../src-shared/checkpoints'
import { DEFAULT_CODE_INTELLIGENCE_SETTINGS } from '../../../src-shared/code-intelligence'
import { DEFAULT_INSTRUCTION_SETTINGS } from '../../../src-shared/instructions'
import { DEFAULT_NOTIFICATION_SETTINGS } from '../../../src-shared/notifications'
import { DEFAULT_SANDBOX_SETTINGS } from '../../../src-shared/sandbox'
import { useTempDirs } from '../../support/temp-dir'

describe('PreferencesService', () => {
  const tempDir = useTempDirs()

  it('starts from the system theme and keeps a choice across a reopen', () => {
    const dataDir = tempDir()
    const first = createAtelier({ dataDir })
    expect(first.preferences.get()).toEqual({
      theme: 'system',
      maxIterations: 50,
      protectedPaths: DEFAULT_PROTECTED_PATHS,
      customToolPaths: [],
      compactionThresholdPercent: 80,
      sandbox: DEFAULT_SANDBOX_SETTINGS,
      checkpoints: DEFAULT_CHECKPOINT_SETTINGS,
      subagentDepth: 1,
      instructions: DEFAULT_INSTRUCTION_SETTINGS,
      codeIntelligence: DEFAULT_CODE_INTELLIGENCE_SETTINGS,
      notifications: DEFAULT_NOTIFICATION_SETTINGS,
    })
    first.preferences.update({ theme: 'dark', maxIterations: 12 })
    first.close()
    const second = createAtelier({ dataDir })
    try {
      expect(second.preferences.get()).toEqual({
        theme: 'dark',
        maxIterations: 12,
        protectedPaths: DEFAULT_PROTECTED_PATHS,
        customToolPaths: [],
        compactionThresholdPercent: 80,
        sandbox: DEFAULT_SANDBOX_SETTINGS,
        checkpoints: DEFAULT_CHECKPOINT_SETTINGS,
        subagentDepth: 1,
        instructions: DEFAULT_INSTRUCTION_SETTINGS,
        codeIntelligence: DEFAULT_CODE_INTELLIGENCE_SETTINGS,
        notifications: DEFAULT_NOTIFICATION_SETTINGS,
      })
    } finally {
      second.close()
    }
  })

  it('stores only what the person set, so a list they never saved follows the defaults as those change', () => {
    const atelier = createAtelier({ dataDir: tempDir() })
    try {
      const stored = () =>
        JSON.parse(
          (
            atelier.db.prepare("SELECT value FROM app_settings WHERE key = 'preferences'").get() as {
              value: string
            }
          ).value,
        )
      atelier.preferences.update({ theme: 'dark' })
      expect(stored()).toEqual({ theme: 'dark' })
      atelier.preferences.update({ protectedPaths: ['secrets/**'] })
      atelier.preferences.update({ maxIterations: 12 })
      expect(stored()).toEqual({ theme: 'dark', protectedPaths: ['secrets/**'], maxIterations: 12 })
    } finally {
      atelier.close()
    }
  })

  it.each([
    ['text that is not JSON', '{theme: dark'],
    ['a value outside the allowed set', '{"theme":"neon"}'],
    ['a value of the wrong type', '{"theme":7}'],
    ['an iteration limit out of range', '{"theme":"neon","maxIterations":0}'],
    ['an iteration limit that is not whole', '{"maxIterations":2.5}'],
    ['JSON that is not an object', '"dark"'],
    ['protected paths that are not a list of globs', '{"protectedPaths":[".git/**",""]}'],
    ['custom tool paths that are not a list of paths', '{"customToolPaths":"~/tools"}'],
    ['a compaction threshold out of range', '{"compactionThresholdPercent":99}'],
    ['sandbox settings missing a switch', '{"sandbox":{"enabled":false}}'],
    ['sandbox settings of the wrong type', '{"sandbox":{"enabled":"no","network":true}}'],
    [
      'checkpoint settings out of range',
      '{"checkpoints":{"enabled":true,"offFolders":[],"maxFileBytes":1,"retentionDays":30,"retentionBytes":1}}',
    ],
  ])('falls back to the defaults when the stored preferences hold %s', (_case, stored) => {
    const atelier = createAtelier({ dataDir: tempDir() })
    try {
      atelier.db
        .prepare("INSERT INTO app_settings (key, value, updated_at) VALUES ('preferences', ?, 0)")
        .run(stored)
      expect(atelier.preferences.get()).toEqual({
        theme: 'system',
        maxIterations: 50,
        protectedPaths: DEFAULT_PROTECTED_PATHS,
        customToolPaths: [],
        compactionThresholdPercent: 80,
        sandbox: DEFAULT_SANDBOX_SETTINGS,
        checkpoints: DEFAULT_CHECKPOINT_SETTINGS,
        subagentDepth: 1,
        instructions: DEFAULT_INSTRUCTION_SETTINGS,
        codeIntelligence: DEFAULT_CODE_INTELLIGENCE_SETTINGS,
        notifications: DEFAULT_NOTIFICATION_SETTINGS,
      })
      expect(atelier.preferences.update({ theme: 'light' })).toEqual({
        theme: 'light',
        maxIterations: 50,
        protectedPaths: DEFAULT_PROTECTED_PATHS,
        customToolPaths: [],
        compactionThresholdPercent: 80,
        sandbox: DEFAULT_SANDBOX_SETTINGS,
        checkpoints: DEFAULT_CHECKPOINT_SETTINGS,
        subagentDepth: 1,
        instructions: DEFAULT_INSTRUCTION_SETTINGS,
        codeIntelligence: DEFAULT_CODE_INTELLIGENCE_SETTINGS,
        notifications: DEFAULT_NOTIFICATION_SETTINGS,
      })
      expect(atelier.preferences.get()).toEqual({
        theme: 'light',
        maxIterations: 50,
        protectedPaths: DEFAULT_PROTECTED_PATHS,
        customToolPaths: [],
        compactionThresholdPercent: 80,
        sandbox: DEFAULT_SANDBOX_SETTINGS,
        checkpoints: DEFAULT_CHECKPOINT_SETTINGS,
        subagentDepth: 1,
        instructions: DEFAULT_INSTRUCTION_SETTINGS,
        codeIntelligence: DEFAULT_CODE_INTELLIGENCE_SETTINGS,
        notifications: DEFAULT_NOTIFICATION_SETTINGS,
      })
    } finally {
      atelier.close()
    }
  })
})
