import { type Static, Type } from '@sinclair/typebox'
import { defineTool } from '../define-tool'
import { ToolArgumentError } from '../errors'
import { registerTool } from '../registry'

const Parameters = Type.Object(
  {
    timezone: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: 'IANA time zone, e.g. America/Sao_Paulo or Europe/Berlin. Default: the computer’s own.',
      }),
    ),
    locale: Type.Optional(
      Type.String({
        minLength: 2,
        maxLength: 35,
        description: 'BCP 47 locale for the localized text, e.g. pt-BR or en-GB. Default: en-US.',
      }),
    ),
  },
  { additionalProperties: false },
)
type Parameters = Static<typeof Parameters>

export interface CurrentDateTime {
  /** The instant in UTC, ISO 8601. */
  utc: string
  timezone: string
  locale: string
  /** The date and time as a person in that zone and locale would write it. */
  localized: string
  /** The zone's offset from UTC at this instant, e.g. -03:00. */
  offset: string
}

function zoneFormatter(locale: string, timeZone: string | undefined): Intl.DateTimeFormat {
  try {
    Intl.getCanonicalLocales(locale)
  } catch {
    throw new ToolArgumentError(
      `"${locale}" is not a BCP 47 locale; use a tag such as en-US or pt-BR`,
      'locale',
    )
  }
  try {
    return new Intl.DateTimeFormat(locale, { timeZone, dateStyle: 'full', timeStyle: 'long' })
  } catch {
    throw new ToolArgumentError(
      `"${timeZone}" is not an IANA time zone; use a name such as Europe/Berlin`,
      'timezone',
    )
  }
}

/** "GMT-03:00" → "-03:00"; plain "GMT" (UTC itself) → "+00:00". */
function offsetOf(instant: Date, timeZone: string): string {
  const name = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' })
    .formatToParts(instant)
    .find((part) => part.type === 'timeZoneName')?.value
  const offset = name?.replace('GMT', '') ?? ''
  return offset === '' ? '+00:00' : offset
}

export function currentDateTime(
  { timezone, locale = 'en-US' }: Parameters,
  now = new Date(),
): CurrentDateTime {
  const formatter = zoneFormatter(locale, timezone)
  const { timeZone, locale: resolvedLocale } = formatter.resolvedOptions()
  return {
    utc: now.toISOString(),
    // The name as asked: ICU may answer with an older alias (Asia/Kolkata → Asia/Calcutta).
    timezone: timezone ?? timeZone,
    locale: resolvedLocale,
    localized: formatter.format(now),
    offset: offsetOf(now, timeZone),
  }
}

export const getCurrentDatetimeTool = defineTool({
  name: 'get_current_datetime',
  description:
    'Returns the current date and time: the UTC instant (ISO 8601), the same moment localized for a time zone ' +
    'and locale, and that zone’s UTC offset. Use it whenever the answer depends on today’s date or the time.',
  parameters: Parameters,
  settings: {
    title: 'Current date and time',
    description: 'Lets the model read the clock, in any time zone and locale.',
    category: 'system',
    enabledByDefault: true,
    canDisable: true,
    defaultParameters: {},
    parameterDescriptors: [],
  },
  // It reads the clock and nothing else.
  kind: 'read',
  describe: (args) => ({
    summary: [args.timezone, args.locale].filter(Boolean).join(', ') || 'now',
    locations: [],
  }),
  execute: async (args) => currentDateTime(args),
})

registerTool(getCurrentDatetimeTool)
