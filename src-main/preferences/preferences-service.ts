import { Value } from '@sinclair/typebox/value'
import { DEFAULT_PROTECTED_PATHS } from '../../src-shared/approvals'
import { DEFAULT_CHECKPOINT_SETTINGS } from '../../src-shared/checkpoints'
import { DEFAULT_CODE_INTELLIGENCE_SETTINGS } from '../../src-shared/code-intelligence'
import { type MethodRequest, Preferences } from '../../src-shared/contract'
import { DEFAULT_INSTRUCTION_SETTINGS } from '../../src-shared/instructions'
import { DEFAULT_NOTIFICATION_SETTINGS } from '../../src-shared/notifications'
import { DEFAULT_SANDBOX_SETTINGS } from '../../src-shared/sandbox'
import type { AtelierEvents } from '../core/events'
import type { AppSettingsRepository } from '../db/app-settings-repository'

const KEY = 'preferences'

/**
 * 50 model responses per turn: enough for a real task (read, search, edit, test, fix) in a project,
 * and a firm stop for a model that circles without converging.
 */
export const DEFAULT_PREFERENCES: Preferences = {
  theme: 'system',
  maxIterations: 50,
  protectedPaths: DEFAULT_PROTECTED_PATHS,
  customToolPaths: [],
  compactionThresholdPercent: 80,
  sandbox: DEFAULT_SANDBOX_SETTINGS,
  checkpoints: DEFAULT_CHECKPOINT_SETTINGS,
  instructions: DEFAULT_INSTRUCTION_SETTINGS,
  // A subagent that delegates again multiplies cost and hides work two levels down: off unless asked for.
  subagentDepth: 1,
  codeIntelligence: DEFAULT_CODE_INTELLIGENCE_SETTINGS,
  notifications: DEFAULT_NOTIFICATION_SETTINGS,
}

/**
 * App-wide preferences. Only what the person set is stored, so a preference never saved follows its
 * default as that changes (a new protected path reaches everyone who kept the list as it came).
 * Stored values that no longer parse fall back to the defaults, field by field.
 */
export class PreferencesService {
  constructor(
    private readonly repository: AppSettingsRepository,
    private readonly events: AtelierEvents,
    private readonly now: () => number = Date.now,
  ) {}

  get(): Preferences {
    return { ...DEFAULT_PREFERENCES, ...this.stored() }
  }

  update(changes: MethodRequest<'preferences.update'>): Preferences {
    this.repository.set(KEY, { ...this.stored(), ...changes }, this.now())
    const next = this.get()
    this.events.emit('preferences.changed', next)
    return next
  }

  /** The stored fields that still parse. */
  private stored(): Partial<Preferences> {
    const stored = parseJson(this.repository.getRaw(KEY))
    const valid: Partial<Preferences> = {}
    if (typeof stored !== 'object' || stored === null) return valid
    for (const key of Object.keys(DEFAULT_PREFERENCES) as (keyof Preferences)[]) {
      if (!(key in stored)) continue
      const value = (stored as Record<string, unknown>)[key]
      if (Value.Check(Preferences, { ...DEFAULT_PREFERENCES, [key]: value }))
        Object.assign(valid, { [key]: value })
    }
    return valid
  }
}

function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}
