/**
 * Pure functions from a tool's metadata and saved values to its effective settings. Model output is
 * never run through here: stored values that fail are the user's, so they fall back to defaults.
 */
import { errorMessage } from '../../src-shared/errors'
import type { ToolDefinition, ToolParameterDescriptor } from '../../src-shared/tools'
import { ToolParameterError } from './errors'
import type { EffectiveToolSettings, RegisteredTool } from './types'

/** What the database holds for one user and tool; either part may be missing. */
export interface SavedToolSettings {
  enabled?: boolean | null
  parameters?: Record<string, unknown>
}

export function getDefaultToolSettings(tool: RegisteredTool): EffectiveToolSettings {
  const { enabledByDefault, canDisable, defaultParameters } = tool.settings
  return { enabled: enabledByDefault || !canDisable, parameters: { ...defaultParameters } }
}

/** Defaults < saved < overrides. Throws ToolParameterError when a parameter breaks its descriptor. */
export function mergeToolSettings(
  tool: RegisteredTool,
  saved?: SavedToolSettings,
  overrides?: SavedToolSettings,
): EffectiveToolSettings {
  const defaults = getDefaultToolSettings(tool)
  const enabled = overrides?.enabled ?? saved?.enabled ?? defaults.enabled
  return {
    // A tool that cannot be disabled is on, whatever a stored row claims.
    enabled: enabled || !tool.settings.canDisable,
    parameters: normalizeToolParameters(tool, {
      ...defaults.parameters,
      ...saved?.parameters,
      ...overrides?.parameters,
    }),
  }
}

/** Checks names, types, ranges and choices against the tool's descriptors; fills in defaults. */
export function normalizeToolParameters(
  tool: RegisteredTool,
  parameters: Record<string, unknown>,
): Record<string, unknown> {
  const descriptors = new Map(tool.settings.parameterDescriptors.map((d) => [d.name, d]))
  const title = tool.definition.name
  for (const name of Object.keys(parameters)) {
    if (!descriptors.has(name)) {
      const known = [...descriptors.keys()].join(', ') || 'none'
      throw new ToolParameterError(
        `"${name}" is not a parameter of ${title} (parameters: ${known}).`,
        name,
        'unknown',
      )
    }
  }
  const normalized: Record<string, unknown> = {}
  for (const descriptor of descriptors.values()) {
    const { name, type, min, max, allowedValues } = descriptor
    const value = parameters[name] ?? tool.settings.defaultParameters[name]
    if (value === undefined) continue
    const fail = (rule: ToolParameterError['rule'], expected: string) =>
      new ToolParameterError(
        `${title}.${name} must be ${expected} (got ${JSON.stringify(value)}).`,
        name,
        rule,
      )
    switch (type) {
      case 'integer':
      case 'number': {
        const ok =
          typeof value === 'number' && (type === 'integer' ? Number.isInteger(value) : Number.isFinite(value))
        if (!ok) throw fail('type', type === 'integer' ? 'a whole number' : 'a number')
        if (min !== undefined && (value as number) < min) throw fail('min', `at least ${min}`)
        if (max !== undefined && (value as number) > max) throw fail('max', `at most ${max}`)
        break
      }
      case 'string':
        if (typeof value !== 'string') throw fail('type', 'text')
        break
      case 'secret':
        // Typed text before it is sealed, or the seal the database keeps (see ToolSettingsService).
        if (typeof value !== 'string' && !isSealedParameter(value)) throw fail('type', 'text')
        break
      case 'boolean':
        if (typeof value !== 'boolean') throw fail('type', 'true or false')
        break
      case 'enum':
        if (typeof value !== 'string' || !allowedValues?.includes(value)) {
          throw fail('allowed_values', `one of ${(allowedValues ?? []).join(', ')}`)
        }
        break
      case 'string-list':
        if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
          throw fail('type', 'a list of text values')
        }
        break
    }
    normalized[name] = Array.isArray(value) ? [...value] : value
  }
  return normalized
}

/** A `secret` parameter as the database keeps it: the typed text sealed, as base64. */
export interface SealedParameter {
  sealed: string
}

export function isSealedParameter(value: unknown): value is SealedParameter {
  return typeof value === 'object' && value !== null && typeof (value as SealedParameter).sealed === 'string'
}

/** The definitions of the enabled tools, each tailored to its settings where the tool asks. */
export function getToolDefinitionsForTools(
  tools: { tool: RegisteredTool; settings: EffectiveToolSettings }[],
): ToolDefinition[] {
  return tools
    .filter(({ settings }) => settings.enabled)
    .map(({ tool, settings }) => tool.buildDefinition?.(settings) ?? tool.definition)
}

/**
 * Effective settings that never throw: saved values that are corrupt (broken JSON, wrong types,
 * out of range) give way to the defaults, and the reason is reported so the UI can flag it.
 */
export function getSafeEffectiveToolSettings(
  tool: RegisteredTool,
  saved: SavedToolSettings | undefined,
): { settings: EffectiveToolSettings; invalid?: { message: string } } {
  try {
    return { settings: mergeToolSettings(tool, saved) }
  } catch (error) {
    return fallBackToDefaults(tool, saved?.enabled, errorMessage(error))
  }
}

/** The default parameters in force, keeping the user's on/off choice, with the reason recorded. */
export function fallBackToDefaults(
  tool: RegisteredTool,
  savedEnabled: boolean | null | undefined,
  message: string,
) {
  const defaults = getDefaultToolSettings(tool)
  const enabled = (savedEnabled ?? defaults.enabled) || !tool.settings.canDisable
  return { settings: { enabled, parameters: defaults.parameters }, invalid: { message } }
}

/** An integer setting's bounds and default, as both its descriptor and `clampIntegerSetting` use them. */
export interface IntegerRange {
  min: number
  max: number
  fallback: number
}

/** The `timeoutSeconds` range for long-running tools; tools without it get the fallback. */
export const TIMEOUT_SECONDS: IntegerRange = { min: 5, max: 600, fallback: 30 }

/** The descriptor of an integer setting, its bounds taken from the range its value is clamped to. */
export function integerParameter(
  name: string,
  label: string,
  description: string,
  range: IntegerRange,
  unit?: string,
): ToolParameterDescriptor {
  return { name, type: 'integer', label, description, min: range.min, max: range.max, ...(unit && { unit }) }
}

/** A stored integer, clamped into range; anything that is not a number becomes the fallback. */
export function clampIntegerSetting(
  value: unknown,
  { min, max, fallback }: { min: number; max: number; fallback: number },
) {
  if (typeof value !== 'number' || !Number.isFinite(value)) return fallback
  return Math.min(max, Math.max(min, Math.round(value)))
}

/** A stored string, or the fallback when it is missing or not text. */
export function getStringSetting(value: unknown, fallback: string): string {
  return typeof value === 'string' ? value : fallback
}
