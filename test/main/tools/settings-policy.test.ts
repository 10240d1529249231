import { describe, expect, it } from 'vitest'
import {
  clampIntegerSetting,
  getDefaultToolSettings,
  getSafeEffectiveToolSettings,
  getStringSetting,
  getToolDefinitionsForTools,
  mergeToolSettings,
  normalizeToolParameters,
} from '../../../src-main/tools/settings-policy'
import { recordingTool } from '../../support/test-tools'

const { tool } = recordingTool('search')

describe('settings policy', () => {
  describe('getDefaultToolSettings', () => {
    it('returns the metadata defaults', () => {
      expect(getDefaultToolSettings(tool)).toEqual({
        enabled: true,
        parameters: { maxResults: 100, timeoutSeconds: 30, mode: 'fast', roots: [] },
      })
      expect(
        getDefaultToolSettings(recordingTool('shell', undefined, { enabledByDefault: false }).tool).enabled,
      ).toBe(false)
    })
  })

  describe('mergeToolSettings', () => {
    it('layers defaults < saved < overrides', () => {
      const merged = mergeToolSettings(
        tool,
        { enabled: false, parameters: { maxResults: 50, mode: 'thorough' } },
        { parameters: { maxResults: 7 } },
      )
      expect(merged).toEqual({
        enabled: false,
        parameters: { maxResults: 7, timeoutSeconds: 30, mode: 'thorough', roots: [] },
      })
      expect(mergeToolSettings(tool, { enabled: false }, { enabled: true }).enabled).toBe(true)
    })

    it('keeps a tool that cannot be disabled on, whatever was saved', () => {
      const locked = recordingTool('locked', undefined, { canDisable: false, enabledByDefault: false }).tool
      expect(mergeToolSettings(locked, { enabled: false }).enabled).toBe(true)
    })
  })

  describe('normalizeToolParameters', () => {
    it.each([
      [{ nope: 1 }, 'nope', 'unknown', /"nope" is not a parameter of search \(parameters: maxResults, /],
      [{ maxResults: '50' }, 'maxResults', 'type', /search\.maxResults must be a whole number \(got "50"\)/],
      [{ maxResults: 1.5 }, 'maxResults', 'type', /whole number/],
      [{ maxResults: 0 }, 'maxResults', 'min', /at least 1 \(got 0\)/],
      [{ maxResults: 5001 }, 'maxResults', 'max', /at most 5000/],
      [{ ratio: Number.NaN }, 'ratio', 'type', /must be a number/],
      [{ mode: 'slow' }, 'mode', 'allowed_values', /one of fast, thorough/],
      [{ roots: ['a', 3] }, 'roots', 'type', /list of text values/],
      [{ verbose: 'yes' }, 'verbose', 'type', /true or false/],
      [{ label: 5 }, 'label', 'type', /must be text/],
    ])('rejects %j, naming %s and the %s rule', (parameters, parameter, rule, message) => {
      expect(() => normalizeToolParameters(tool, parameters)).toThrowError(
        expect.objectContaining({
          name: 'ToolParameterError',
          parameter,
          rule,
          message: expect.stringMatching(message),
        }),
      )
    })

    it('accepts values at the bounds and copies lists', () => {
      const roots = ['/a']
      const normalized = normalizeToolParameters(tool, { maxResults: 5000, ratio: 0, roots, verbose: false })
      expect(normalized).toMatchObject({ maxResults: 5000, ratio: 0, roots: ['/a'], verbose: false })
      expect(normalized.roots).not.toBe(roots)
    })
  })

  describe('getToolDefinitionsForTools', () => {
    it('leaves out disabled tools and builds definitions from settings', () => {
      const built = recordingTool('built').tool
      built.buildDefinition = (settings) => ({
        ...built.definition,
        description: `At most ${settings.parameters.maxResults} results.`,
      })
      const definitions = getToolDefinitionsForTools([
        { tool, settings: { enabled: false, parameters: {} } },
        { tool: built, settings: { enabled: true, parameters: { maxResults: 9 } } },
      ])
      expect(definitions.map((d) => [d.name, d.description])).toEqual([['built', 'At most 9 results.']])
    })
  })

  describe('getSafeEffectiveToolSettings', () => {
    it('falls back to the defaults, keeping the on/off choice, when saved values are invalid', () => {
      const result = getSafeEffectiveToolSettings(tool, { enabled: false, parameters: { maxResults: -3 } })
      expect(result.settings).toEqual({ enabled: false, parameters: getDefaultToolSettings(tool).parameters })
      expect(result.invalid?.message).toMatch(/maxResults must be at least 1/)
    })

    it('reports nothing when the saved values are fine', () => {
      expect(getSafeEffectiveToolSettings(tool, { parameters: { maxResults: 3 } }).invalid).toBeUndefined()
    })
  })

  describe('stored value coercions', () => {
    it('clamps integers and replaces non-numbers', () => {
      const range = { min: 5, max: 600, fallback: 30 }
      expect(clampIntegerSetting(1, range)).toBe(5)
      expect(clampIntegerSetting(900, range)).toBe(600)
      expect(clampIntegerSetting(42.6, range)).toBe(43)
      expect(clampIntegerSetting('42', range)).toBe(30)
      expect(clampIntegerSetting(Number.POSITIVE_INFINITY, range)).toBe(30)
    })

    it('keeps strings and replaces anything else', () => {
      expect(getStringSetting('x', 'd')).toBe('x')
      expect(getStringSetting(3, 'd')).toBe('d')
      expect(getStringSetting(undefined, 'd')).toBe('d')
    })
  })
})
