import { afterEach, describe, expect, it } from 'vitest'
import { type Atelier, createAtelier, LOCAL_USER } from '../../../src-main/app/create-atelier'
import { ToolRegistry } from '../../../src-main/tools/registry'
import { useTempDirs } from '../../support/temp-dir'
import { recordingTool } from '../../support/test-tools'

describe('ToolSettingsService', () => {
  const tempDir = useTempDirs()
  const opened: Atelier[] = []
  afterEach(() => {
    for (const atelier of opened.splice(0)) atelier.close()
  })

  function open(dataDir = tempDir()) {
    const registry = new ToolRegistry()
    const search = recordingTool('search', async () => 'found')
    registry.register(search.tool)
    registry.register(recordingTool('core', undefined, { canDisable: false }).tool)
    const atelier = createAtelier({ dataDir, registry })
    opened.push(atelier)
    return { atelier, dataDir, search }
  }

  const saveRaw = (atelier: Atelier, tool: string, parameters: string, enabled: number | null = null) =>
    atelier.db
      .prepare('INSERT OR REPLACE INTO user_tool_settings VALUES (?, ?, ?, ?, 0)')
      .run(LOCAL_USER, tool, enabled, parameters)

  const run = (atelier: Atelier, name: string) =>
    atelier.tools.executor.execute(
      { name, arguments: { pattern: 'x' } },
      { user: LOCAL_USER, workingDirectory: null, mode: 'chat', restrict: false },
    )

  describe('list', () => {
    it('describes every tool with metadata, source and effective state', () => {
      const { atelier } = open()
      const [core, search] = atelier.tools.settings.list(LOCAL_USER).tools
      expect(core).toMatchObject({
        name: 'core',
        canDisable: false,
        enabled: true,
        source: { kind: 'builtin' },
      })
      expect(search).toMatchObject({
        name: 'search',
        title: 'Test search',
        category: 'system',
        enabled: true,
        parameters: { maxResults: 100, timeoutSeconds: 30, mode: 'fast', roots: [] },
      })
      expect(search?.parameterDescriptors.map((d) => d.name)).toContain('maxResults')
      expect(search).not.toHaveProperty('invalidSavedSettings')
    })
  })

  describe('update', () => {
    it('persists enabled state and parameters across a reopen', () => {
      const first = open()
      first.atelier.tools.settings.update(LOCAL_USER, 'search', {
        enabled: false,
        parameters: { maxResults: 7 },
      })
      first.atelier.tools.settings.update(LOCAL_USER, 'search', { parameters: { mode: 'thorough' } })
      first.atelier.close()
      opened.splice(opened.indexOf(first.atelier), 1)
      const { atelier } = open(first.dataDir)
      expect(atelier.tools.settings.get(LOCAL_USER, 'search')).toMatchObject({
        enabled: false,
        parameters: { maxResults: 7, mode: 'thorough' },
      })
    })

    it('refuses an unknown parameter with invalid_parameters and saves nothing', () => {
      const { atelier } = open()
      expect(() =>
        atelier.tools.settings.update(LOCAL_USER, 'search', { parameters: { colour: 'red' } }),
      ).toThrowError(
        expect.objectContaining({
          code: 'invalid_parameters',
          data: expect.objectContaining({ parameter: 'colour' }),
        }),
      )
      expect(() =>
        atelier.tools.settings.update(LOCAL_USER, 'search', {
          enabled: false,
          parameters: { maxResults: 0 },
        }),
      ).toThrowError(
        expect.objectContaining({ code: 'invalid_parameters', message: expect.stringMatching(/at least 1/) }),
      )
      expect(atelier.tools.settings.get(LOCAL_USER, 'search')).toMatchObject({
        enabled: true,
        parameters: { maxResults: 100 },
      })
    })

    it('refuses to disable a tool that cannot be disabled', () => {
      const { atelier } = open()
      expect(() => atelier.tools.settings.update(LOCAL_USER, 'core', { enabled: false })).toThrowError(
        expect.objectContaining({ code: 'cannot_disable' }),
      )
    })

    it('refuses an unknown tool', () => {
      const { atelier } = open()
      expect(() => atelier.tools.settings.update(LOCAL_USER, 'nope', { enabled: true })).toThrowError(
        expect.objectContaining({ code: 'unknown_tool' }),
      )
    })

    it('carries its refusals over the contract as { code, message, data }', async () => {
      const { atelier } = open()
      expect(
        await atelier.dispatch('tools.update', { name: 'search', parameters: { maxResults: 'many' } }),
      ).toMatchObject({
        ok: false,
        error: {
          code: 'invalid_parameters',
          data: { tool: 'search', parameter: 'maxResults', rule: 'type' },
        },
      })
      expect(await atelier.dispatch('tools.update', { name: 'search', enabled: 'no' })).toMatchObject({
        ok: false,
        error: { code: 'validation_failed' },
      })
      expect(await atelier.dispatch('tools.update', { name: 'search', enabled: false })).toMatchObject({
        ok: true,
        value: { name: 'search', enabled: false },
      })
    })
  })

  describe('saved settings that are corrupt', () => {
    it.each([
      ['broken JSON', '{"maxResults": 5'],
      ['JSON that is not an object', '[1, 2]'],
      ['an out-of-range value', '{"maxResults": 999999}'],
      ['a value of the wrong type', '{"mode": 3}'],
      ['a parameter that no longer exists', '{"retired": true}'],
    ])(
      'puts the defaults in force, flags them in list, and the tool still runs (%s)',
      async (_case, stored) => {
        const { atelier, search } = open()
        saveRaw(atelier, 'search', stored, 1)
        const described = atelier.tools.settings.get(LOCAL_USER, 'search')
        expect(described.parameters).toEqual({ maxResults: 100, timeoutSeconds: 30, mode: 'fast', roots: [] })
        expect(described.invalidSavedSettings?.message).toEqual(expect.any(String))
        expect(await run(atelier, 'search')).toMatchObject({ isError: false, content: 'found' })
        expect(search.calls[0]?.context.settings.parameters).toEqual(described.parameters)
      },
    )

    it('keeps the saved on/off choice while the parameters are corrupt', async () => {
      const { atelier, search } = open()
      saveRaw(atelier, 'search', 'not json', 0)
      expect(atelier.tools.settings.get(LOCAL_USER, 'search')).toMatchObject({ enabled: false })
      expect(await run(atelier, 'search')).toMatchObject({ isError: true, errorType: 'not_enabled' })
      expect(search.calls).toEqual([])
    })

    it('lets an update repair them', () => {
      const { atelier } = open()
      saveRaw(atelier, 'search', '{"maxResults": -1}')
      const repaired = atelier.tools.settings.update(LOCAL_USER, 'search', {
        parameters: { mode: 'thorough' },
      })
      expect(repaired.invalidSavedSettings).toBeUndefined()
      expect(repaired.parameters).toMatchObject({ maxResults: 100, mode: 'thorough' })
    })
  })
})
