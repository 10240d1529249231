import type {
  ToolSettingsDescriptor,
  ToolSettingsListResponse,
  UpdateToolSettingsBody,
} from '../../src-shared/tools'
import type { ToolSettingsRepository } from '../db/tool-settings-repository'
import { ToolParameterError, ToolSettingsError } from './errors'
import type { RegistryEntry, ToolRegistry } from './registry'
import {
  fallBackToDefaults,
  getSafeEffectiveToolSettings,
  mergeToolSettings,
  type SavedToolSettings,
} from './settings-policy'
import type { EffectiveToolSettings, RegisteredTool } from './types'

/** Effective settings of one tool for one user, and why the saved ones were set aside, if they were. */
export interface ResolvedToolSettings {
  settings: EffectiveToolSettings
  invalid?: { message: string }
}

/** A saved row decoded; `invalid` says why its parameters could not even be read. */
interface DecodedSettings extends SavedToolSettings {
  invalid?: string
}

function resolveSaved(tool: RegisteredTool, saved: DecodedSettings): ResolvedToolSettings {
  if (saved.invalid) return fallBackToDefaults(tool, saved.enabled, saved.invalid)
  return getSafeEffectiveToolSettings(tool, saved)
}

/** Lists and updates tool settings per user: what the settings panel and `atelier settings` use. */
export class ToolSettingsService {
  constructor(
    private readonly registry: ToolRegistry,
    private readonly repository: ToolSettingsRepository,
    private readonly now: () => number = Date.now,
  ) {}

  list(user: string): ToolSettingsListResponse {
    return { tools: this.registry.list().map((entry) => this.describe(user, entry)) }
  }

  get(user: string, name: string): ToolSettingsDescriptor {
    return this.describe(user, this.entry(name))
  }

  /** Saves a change after the same validation the panel shows; refuses with a ToolSettingsError. */
  update(user: string, name: string, body: UpdateToolSettingsBody): ToolSettingsDescriptor {
    const entry = this.entry(name)
    const { tool } = entry
    if (body.enabled === false && !tool.settings.canDisable) {
      throw new ToolSettingsError('cannot_disable', `${name} cannot be turned off.`, { tool: name })
    }
    const saved = this.readSaved(user, name)
    // Saved parameters that no longer validate are dropped, so an update can repair them.
    const base = resolveSaved(tool, saved).invalid ? {} : (saved.parameters ?? {})
    const parameters = { ...base, ...body.parameters }
    try {
      mergeToolSettings(tool, undefined, { parameters })
    } catch (error) {
      if (!ToolParameterError.isInstance(error)) throw error
      throw new ToolSettingsError('invalid_parameters', error.message, {
        tool: name,
        parameter: error.parameter,
        rule: error.rule,
      })
    }
    this.repository.save(
      user,
      name,
      { enabled: body.enabled ?? saved.enabled ?? null, parameters },
      this.now(),
    )
    return this.describe(user, entry)
  }

  /** What a call runs with: never throws, whatever the database holds. */
  resolve(user: string, entry: RegistryEntry): ResolvedToolSettings {
    return resolveSaved(entry.tool, this.readSaved(user, entry.tool.definition.name))
  }

  private entry(name: string): RegistryEntry {
    const entry = this.registry.get(name)
    if (!entry)
      throw new ToolSettingsError('unknown_tool', `There is no tool named "${name}".`, { tool: name })
    return entry
  }

  private readSaved(user: string, name: string): DecodedSettings {
    const row = this.repository.get(user, name)
    if (!row) return {}
    if (row.parameters === null) return { enabled: row.enabled }
    let parameters: unknown
    try {
      parameters = JSON.parse(row.parameters)
    } catch {
      return { enabled: row.enabled, invalid: 'The saved parameters are not valid JSON.' }
    }
    if (typeof parameters !== 'object' || parameters === null || Array.isArray(parameters)) {
      return { enabled: row.enabled, invalid: 'The saved parameters are not an object.' }
    }
    return { enabled: row.enabled, parameters: parameters as Record<string, unknown> }
  }

  private describe(user: string, entry: RegistryEntry): ToolSettingsDescriptor {
    const { tool, source } = entry
    const { settings, invalid } = this.resolve(user, entry)
    return {
      ...tool.settings,
      name: tool.definition.name,
      source,
      enabled: settings.enabled,
      parameters: settings.parameters,
      argumentSchema: (tool.buildDefinition?.(settings) ?? tool.definition).parameters,
      ...(invalid && { invalidSavedSettings: invalid }),
    }
  }
}
