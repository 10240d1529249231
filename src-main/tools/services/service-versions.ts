/**
 * Versions of announced services. What the person enables is pinned by a hash of the service
 * descriptor and its tools in one canonical form — keys sorted, tools by name, the ttl left out —
 * so a renewal of the same thing is the same version, and anything else a service announces under
 * that id is another version, listed field by field against the one enabled.
 */
import { createHash } from 'node:crypto'
import type { DescriptorChange, ServiceAnnouncement } from '../../../src-shared/tool-services'
import type { ServiceVersion } from '../../db/tool-services-repository'

interface VersionedDescriptor {
  service: Record<string, unknown>
  tools: Record<string, unknown>[]
}

/** The version an announcement is: what enabling it pins. */
export function versionOf({ service, tools }: ServiceAnnouncement): ServiceVersion {
  const sorted = [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  const descriptor = canonicalJson({ service, tools: sorted })
  return { version: createHash('sha256').update(descriptor).digest('hex'), descriptor }
}

/**
 * What differs between the version enabled and the one announced now: each service field, each
 * tool added or gone, each field of a tool in both — in the order of their names.
 */
export function changesSince(enabled: ServiceVersion, now: ServiceVersion): DescriptorChange[] {
  const before = JSON.parse(enabled.descriptor) as VersionedDescriptor
  const after = JSON.parse(now.descriptor) as VersionedDescriptor
  const changes = fieldChanges('', before.service, after.service)
  const toolsBefore = byName(before.tools)
  const toolsAfter = byName(after.tools)
  for (const name of sortedKeys(toolsBefore, toolsAfter)) {
    const was = toolsBefore[name]
    const is = toolsAfter[name]
    if (was && is) changes.push(...fieldChanges(`tools.${name}.`, was, is))
    else changes.push(change(`tools.${name}`, was, is))
  }
  return changes
}

function fieldChanges(
  prefix: string,
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): DescriptorChange[] {
  return sortedKeys(before, after)
    .filter((key) => canonicalJson(before[key]) !== canonicalJson(after[key]))
    .map((key) => change(`${prefix}${key}`, before[key], after[key]))
}

function change(field: string, before: unknown, after: unknown): DescriptorChange {
  return { field, ...(before !== undefined && { before }), ...(after !== undefined && { after }) }
}

function byName(tools: Record<string, unknown>[]): Record<string, Record<string, unknown>> {
  return Object.fromEntries(tools.map((tool) => [String(tool.name), tool]))
}

function sortedKeys(...objects: Record<string, unknown>[]): string[] {
  return [...new Set(objects.flatMap((object) => Object.keys(object)))].sort()
}

/** JSON with every object's keys sorted, so equal values have one text whatever order they came in. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  )
}
