/**
 * Between a tool's parameters and the settings form: what each input holds (numbers as the text
 * typed, so a half-typed value is never lost) and what Save sends back.
 */
import type { ToolParameterDescriptor, ToolSettingsDescriptor } from '../../../../src-shared/tools'

export type DraftValue = string | boolean | string[]
export type Drafts = Record<string, DraftValue>

/** bash, zsh and powershell run anything: turning one on asks first. */
export const SHELL_TOOLS: ReadonlySet<string> = new Set(['bash', 'zsh', 'powershell'])

export function toDraft(descriptor: ToolParameterDescriptor, value: unknown): DraftValue {
  switch (descriptor.type) {
    case 'boolean':
      return value === true
    case 'string-list':
      return Array.isArray(value) ? value.map(String) : []
    case 'integer':
    case 'number':
      return typeof value === 'number' ? String(value) : ''
    default:
      return typeof value === 'string' ? value : ''
  }
}

export function draftsOf(tool: ToolSettingsDescriptor): Drafts {
  return Object.fromEntries(
    tool.parameterDescriptors.map((d) => [
      d.name,
      toDraft(d, tool.parameters[d.name] ?? tool.defaultParameters[d.name]),
    ]),
  )
}

/**
 * The value Save sends. Text that is not a number goes as typed, so the one validation (the main
 * process's) answers it next to the field; blank list rows are dropped.
 */
export function fromDraft(descriptor: ToolParameterDescriptor, draft: DraftValue): unknown {
  switch (descriptor.type) {
    case 'integer':
    case 'number': {
      const text = String(draft).trim()
      const number = Number(text)
      return text !== '' && Number.isFinite(number) ? number : text
    }
    case 'string-list':
      return (Array.isArray(draft) ? draft : []).map((item) => item.trim()).filter((item) => item !== '')
    default:
      return draft
  }
}

export function parametersOf(tool: ToolSettingsDescriptor, drafts: Drafts): Record<string, unknown> {
  return Object.fromEntries(
    tool.parameterDescriptors.map((d) => [d.name, fromDraft(d, drafts[d.name] ?? toDraft(d, undefined))]),
  )
}

export function sameDrafts(a: Drafts, b: Drafts): boolean {
  return JSON.stringify(a) === JSON.stringify(b)
}

/** The rule a refused parameter broke, in the words of the form. */
export function parameterErrorText(
  descriptor: ToolParameterDescriptor | undefined,
  rule: unknown,
  fallback: string,
): string {
  if (!descriptor) return fallback
  const unit = descriptor.unit ? ` ${descriptor.unit}` : ''
  switch (rule) {
    case 'min':
      return `Must be at least ${formatNumber(descriptor.min)}${unit}.`
    case 'max':
      return `Must be at most ${formatNumber(descriptor.max)}${unit}.`
    case 'allowed_values':
      return `Choose one of: ${(descriptor.allowedValues ?? []).join(', ')}.`
    case 'type':
      if (descriptor.type === 'integer') return 'Enter a whole number.'
      if (descriptor.type === 'number') return 'Enter a number.'
      return fallback
    default:
      return fallback
  }
}

export function formatNumber(value: number | undefined): string {
  return value === undefined ? '' : value.toLocaleString('en-US')
}

/** 1048576 → "1 MiB": a size written the way people read it. */
export function formatBytes(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB']
  let value = bytes
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  const rounded = Number.isInteger(value) ? String(value) : value.toFixed(1)
  return `${rounded} ${units[unit]}`
}

/** "1 to 5,000 s": the range a number parameter accepts. */
export function rangeText(descriptor: ToolParameterDescriptor): string | undefined {
  const { min, max, unit } = descriptor
  const suffix = unit ? ` ${unit}` : ''
  if (min !== undefined && max !== undefined) return `${formatNumber(min)} to ${formatNumber(max)}${suffix}`
  if (min !== undefined) return `At least ${formatNumber(min)}${suffix}`
  if (max !== undefined) return `At most ${formatNumber(max)}${suffix}`
  return undefined
}
