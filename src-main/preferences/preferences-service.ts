import { Value } from '@sinclair/typebox/value'
import { DEFAULT_PROTECTED_PATHS } from '../../src-shared/approvals'
import { type MethodRequest, Preferences } from '../../src-shared/contract'
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
}

/** App-wide preferences. Stored values that no longer parse fall back to the defaults, field by field. */
export class PreferencesService {
  constructor(
    private readonly repository: AppSettingsRepository,
    private readonly events: AtelierEvents,
    private readonly now: () => number = Date.now,
  ) {}

  get(): Preferences {
    const stored = parseJson(this.repository.getRaw(KEY))
    const merged = { ...DEFAULT_PREFERENCES }
    if (typeof stored === 'object' && stored !== null) {
      for (const key of Object.keys(DEFAULT_PREFERENCES) as (keyof Preferences)[]) {
        const candidate = { ...merged, [key]: (stored as Record<string, unknown>)[key] }
        if (Value.Check(Preferences, candidate)) Object.assign(merged, candidate)
      }
    }
    return merged
  }

  update(changes: MethodRequest<'preferences.update'>): Preferences {
    const next = { ...this.get(), ...changes }
    this.repository.set(KEY, next, this.now())
    this.events.emit('preferences.changed', next)
    return next
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
