import { AtelierError } from '../../src-shared/errors'
import { MASKED_VALUE } from '../../src-shared/secrets'
import type {
  ToolSettingsDescriptor,
  ToolSettingsListResponse,
  UpdateToolSettingsBody,
} from '../../src-shared/tools'
import type { SealedSecrets } from '../core/sealed-secrets'
import type { ToolSettingsRepository } from '../db/tool-settings-repository'
import { ToolParameterError, ToolSettingsError } from './errors'
import type { RegistryEntry, ToolRegistry } from './registry'
import {
  fallBackToDefaults,
  getSafeEffectiveToolSettings,
  isSealedParameter,
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
    /** Seals `secret` parameters; without it, setting one is refused. */
    private readonly secrets?: SealedSecrets,
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
    const parameters = this.sealSecrets(tool, base, { ...base, ...body.parameters })
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

  /**
   * What a call runs with, its secrets opened: never throws, whatever the database holds. A secret
   * that no longer opens (the data folder's key was replaced) is left out, as if never set.
   */
  resolve(user: string, entry: RegistryEntry): ResolvedToolSettings {
    const resolved = this.resolveSealed(user, entry)
    const parameters = this.mapSecrets(entry.tool, resolved.settings.parameters, (sealed) =>
      this.secrets?.openOrNothing(Buffer.from(sealed, 'base64')),
    )
    return { ...resolved, settings: { ...resolved.settings, parameters } }
  }

  private resolveSealed(user: string, entry: RegistryEntry): ResolvedToolSettings {
    return resolveSaved(entry.tool, this.readSaved(user, entry.tool.definition.name))
  }

  /**
   * The parameters to save, each `secret` among them sealed: `MASKED_VALUE` (what the form was shown)
   * keeps the stored seal, blank text forgets it, other text is sealed.
   */
  private sealSecrets(
    tool: RegisteredTool,
    saved: Record<string, unknown>,
    parameters: Record<string, unknown>,
  ): Record<string, unknown> {
    const sealed = { ...parameters }
    for (const { name, type } of tool.settings.parameterDescriptors) {
      const value = sealed[name]
      if (type !== 'secret' || typeof value !== 'string') continue
      if (value === MASKED_VALUE && isSealedParameter(saved[name])) sealed[name] = saved[name]
      else if (value.trim() === '' || value === MASKED_VALUE) delete sealed[name]
      else {
        if (!this.secrets) {
          throw new AtelierError(
            'key_storage_unavailable',
            `${tool.definition.name}.${name} cannot be stored here.`,
          )
        }
        sealed[name] = { sealed: this.secrets.seal(value.trim()).toString('base64') }
      }
    }
    return sealed
  }

  /** The parameters with each sealed secret replaced by `open`'s answer (left out when it has none). */
  private mapSecrets(
    tool: RegisteredTool,
    parameters: Record<string, unknown>,
    open: (sealed: string) => string | undefined,
  ): Record<string, unknown> {
    const mapped = { ...parameters }
    for (const { name, type } of tool.settings.parameterDescriptors) {
      const value = mapped[name]
      if (type !== 'secret' || !isSealedParameter(value)) continue
      const opened = open(value.sealed)
      if (opened === undefined) delete mapped[name]
      else mapped[name] = opened
    }
    return mapped
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
    const { settings, invalid } = this.resolveSealed(user, entry)
    return {
      ...tool.settings,
      name: tool.definition.name,
      source,
      enabled: settings.enabled,
      // A secret never leaves the main process: a set one reads as the mask.
      parameters: this.mapSecrets(tool, settings.parameters, () => MASKED_VALUE),
      argumentSchema: (tool.buildDefinition?.(settings) ?? tool.definition).parameters,
      ...(invalid && { invalidSavedSettings: invalid }),
    }
  }
}
