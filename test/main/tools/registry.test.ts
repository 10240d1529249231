import { describe, expect, it } from 'vitest'
import { ToolRegistry } from '../../../src-main/tools/registry'
import { recordingTool } from '../../support/test-tools'

describe('ToolRegistry', () => {
  it('refuses a second tool with the same name', () => {
    const registry = new ToolRegistry()
    registry.register(recordingTool('search').tool)
    expect(() => registry.register(recordingTool('search').tool)).toThrowError(/already registered/)
  })

  it('refuses names providers would reject', () => {
    const registry = new ToolRegistry()
    for (const name of ['has space', 'dots.are.out', '', 'x'.repeat(65), 'ünicode']) {
      expect(() => registry.register(recordingTool(name).tool)).toThrowError(/must match/)
    }
  })

  it('takes run-time entries tagged with their source and lets them go again', () => {
    const registry = new ToolRegistry()
    registry.register(recordingTool('read').tool)
    const remove = registry.register(recordingTool('mcp_echo').tool, { kind: 'mcp', server: 'everything' })
    expect(registry.list().map((e) => [e.tool.definition.name, e.source])).toEqual([
      ['mcp_echo', { kind: 'mcp', server: 'everything' }],
      ['read', { kind: 'builtin' }],
    ])
    remove()
    expect(registry.get('mcp_echo')).toBeUndefined()
    registry.register(recordingTool('mcp_echo').tool, { kind: 'mcp', server: 'other' })
    expect(registry.get('mcp_echo')?.source).toEqual({ kind: 'mcp', server: 'other' })
  })

  it('keeps run-time additions to a clone out of the original', () => {
    const original = new ToolRegistry()
    original.register(recordingTool('read').tool)
    const copy = original.clone()
    copy.register(recordingTool('extra').tool, { kind: 'custom', module: 'extra.ts' })
    expect(original.list().map((e) => e.tool.definition.name)).toEqual(['read'])
    expect(copy.list().map((e) => e.tool.definition.name)).toEqual(['extra', 'read'])
  })
})
