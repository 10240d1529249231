import { afterEach, describe, expect, it, vi } from 'vitest'
import { type Atelier, createAtelier, LOCAL_USER } from '../../../../src-main/app/create-atelier'
import {
  currentDateTime,
  getCurrentDatetimeTool,
} from '../../../../src-main/tools/builtin/get-current-datetime'
import type { ToolCallScope } from '../../../../src-main/tools/executor'
import { useTempDirs } from '../../../support/temp-dir'

const WINTER = '2026-01-15T12:00:00Z'
const SUMMER = '2026-07-15T12:00:00Z'
const winter = new Date(WINTER)

const scope: ToolCallScope = { user: LOCAL_USER, workingDirectory: null, mode: 'chat', restrict: false }

/** The whole second a result's UTC time names. */
const secondOf = (result: { content: string }) => String(JSON.parse(result.content).utc).slice(0, 19)

describe('getCurrentDatetimeTool', () => {
  afterEach(() => {
    vi.unstubAllEnvs()
  })

  describe('currentDateTime', () => {
    it.each([
      ['America/Sao_Paulo', WINTER, '-03:00'],
      ['Asia/Kolkata', WINTER, '+05:30'],
      ['Asia/Kathmandu', WINTER, '+05:45'],
      ['America/St_Johns', WINTER, '-03:30'],
      ['Europe/Berlin', WINTER, '+01:00'],
      ['Europe/Berlin', SUMMER, '+02:00'],
      ['UTC', WINTER, '+00:00'],
    ])('returns the offset of %s at %s as %s', (timezone, instant, offset) => {
      expect(currentDateTime({ timezone }, new Date(instant)).offset).toBe(offset)
    })

    it('returns the instant itself as ISO 8601 in utc, whatever the zone', () => {
      expect(currentDateTime({ timezone: 'Asia/Tokyo' }, winter).utc).toBe('2026-01-15T12:00:00.000Z')
    })

    it('returns the zone by the name it was asked for, not an older alias', () => {
      expect(currentDateTime({ timezone: 'Europe/Berlin' }, winter).timezone).toBe('Europe/Berlin')
      expect(currentDateTime({ timezone: 'Asia/Kolkata' }, winter).timezone).toBe('Asia/Kolkata')
      expect(currentDateTime({ timezone: 'Asia/Kathmandu' }, winter).timezone).toBe('Asia/Kathmandu')
    })

    it('returns text in the requested locale, at the local time of the zone', () => {
      const result = currentDateTime({ timezone: 'Europe/Berlin', locale: 'pt-BR' }, winter)
      expect(result.locale).toBe('pt-BR')
      expect(result.localized).toContain('janeiro')
      expect(result.localized).toContain('13:00')
    })

    it('returns en-US text when no locale is given', () => {
      const result = currentDateTime({ timezone: 'America/Sao_Paulo' }, winter)
      expect(result.locale).toBe('en-US')
      expect(result.localized).toContain('January')
      expect(result.localized).toContain('9:00')
    })

    it('returns the computer’s own zone when none is given', () => {
      vi.stubEnv('TZ', 'Asia/Tokyo')
      expect(currentDateTime({}, winter)).toMatchObject({ timezone: 'Asia/Tokyo', offset: '+09:00' })
    })
  })

  describe('execute (through the executor)', () => {
    const tempDir = useTempDirs()
    const opened: Atelier[] = []
    afterEach(() => {
      for (const atelier of opened.splice(0)) atelier.close()
    })

    function call(args: unknown) {
      const atelier = createAtelier({ dataDir: tempDir() })
      opened.push(atelier)
      return atelier.tools.executor.execute(
        { name: getCurrentDatetimeTool.definition.name, arguments: args },
        scope,
      )
    }

    it('returns validation_failed for a zone that is not IANA, instead of answering in UTC', async () => {
      const result = await call({ timezone: 'Mars/Base' })
      expect(result).toMatchObject({ isError: true, errorType: 'validation_failed' })
      expect(result.content).toContain('"Mars/Base" is not an IANA time zone')
    })

    it('returns validation_failed for a locale that is not BCP 47', async () => {
      const result = await call({ locale: 'not a locale!!' })
      expect(result).toMatchObject({ isError: true, errorType: 'validation_failed' })
      expect(result.content).toContain('"not a locale!!" is not a BCP 47 locale')
    })

    it('returns validation_failed naming /timezone for a zone that is not text', async () => {
      const result = await call({ timezone: 42 })
      expect(result).toMatchObject({ isError: true, errorType: 'validation_failed' })
      expect(result.content).toContain('/timezone: Expected string (got 42)')
    })

    it('returns validation_failed for an argument the tool does not take', async () => {
      const result = await call({ timezone: 'UTC', format: 'iso' })
      expect(result).toMatchObject({ isError: true, errorType: 'validation_failed' })
      expect(result.content).toContain('/format: Unexpected property')
    })

    it('returns the same as omitted arguments when both are null, as Responses strict mode sends them', async () => {
      vi.stubEnv('TZ', 'Asia/Tokyo')
      // The two calls must fall in one second, or their localized times differ by it: try again then.
      let omitted = await call({})
      let nulls = await call({ timezone: null, locale: null })
      for (let tries = 0; tries < 5 && secondOf(omitted) !== secondOf(nulls); tries++) {
        omitted = await call({})
        nulls = await call({ timezone: null, locale: null })
      }
      expect(nulls.isError).toBe(false)
      const { utc: _, ...rest } = JSON.parse(nulls.content)
      const { utc: __, ...expected } = JSON.parse(omitted.content)
      expect(expected).toMatchObject({ timezone: 'Asia/Tokyo', locale: 'en-US', offset: '+09:00' })
      expect(rest).toEqual(expected)
    })

    it('returns the date and time for arguments sent as JSON text', async () => {
      const result = await call('{"timezone":"Asia/Tokyo","locale":"pt-BR"}')
      expect(result.isError).toBe(false)
      expect(JSON.parse(result.content)).toMatchObject({
        timezone: 'Asia/Tokyo',
        locale: 'pt-BR',
        offset: '+09:00',
        utc: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      })
    })
  })
})
