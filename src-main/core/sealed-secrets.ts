/**
 * How every setting that holds a secret keeps it at rest — MCP servers' environment values and
 * headers, their OAuth client secrets, keys and credentials, the credentials in an MCP server's or
 * the broker's URL, the broker's secret: sealed with the data folder's key (`LocalSecretStore`),
 * kept sealed as it is while unchanged, and opened with one wording when it no longer can be.
 */
import { AtelierError, errorMessage } from '../../src-shared/errors'
import { MASKED_VALUE } from '../../src-shared/secrets'
import type { LocalSecretStore } from './local-secret-store'

/**
 * A URL as stored: what listings show, and the URL itself sealed when it carries credentials —
 * its userinfo (`postgres://u:PASS@…`, `nats://TOKEN@…`) or a query value whose name looks like one
 * (`?api_key=…`, `&sig=…`).
 */
export interface SealedUrl {
  /** The URL with each credential reading `MASKED_VALUE`: all of it, when it carries none. */
  shown: string
  /** The URL as typed, sealed; absent when it carries no credentials. */
  sealed?: Buffer
}

/** What a URL setting is: named in a refusal, and whether it holds several URLs. */
export interface UrlSetting {
  what: string
  /** Several URLs separated by commas (a NATS cluster), each with its own credentials. */
  list?: boolean
}

/** A remote MCP server's URL. */
export const MCP_URL: UrlSetting = { what: 'the URL' }
/** The tool services broker's URL: one server, or several of a cluster. */
export const BROKER_URL: UrlSetting = { what: "the broker's URL", list: true }

/**
 * Query parameters that carry a credential, by name. A parameter's value, unlike an environment
 * value, is mostly harmless (`?project=…`), and a URL is shown to be read: the short words count
 * only as a whole part of the name (`sig`, `x-pat`, not `path`).
 */
const CREDENTIAL_PARAMETER =
  /token|secret|passw|pwd|key|auth|credential|cookie|session|signature|(^|[_.-])(sig|pat|jwt|dsn|code|pass)([_.-]|$)/i

export class SealedSecrets {
  constructor(private readonly store: LocalSecretStore) {}

  /**
   * `value` sealed. `kept` (the seal stored before) comes back instead while it still opens to this
   * very value: a digest of seals — a launch approval — stands while nothing changed.
   */
  seal(value: string, kept?: Buffer): Buffer {
    if (kept && this.openOrNothing(kept) === value) return kept
    return this.store.seal(value)
  }

  /**
   * The sealed value. When it cannot be opened (the key file is gone or was replaced), throws
   * `secret_unreadable` naming `what` it was, and `remedy`: where the person types it again.
   */
  open(sealed: Buffer, what: string, remedy: string): string {
    try {
      return this.store.unseal(sealed)
    } catch (error) {
      const reason = AtelierError.isInstance(error) ? (error.data as { reason?: string })?.reason : undefined
      throw new AtelierError(
        'secret_unreadable',
        `The stored value of ${what} cannot be decrypted (${reason ?? errorMessage(error)}): ${remedy}.`,
        { name: what },
      )
    }
  }

  /**
   * `typed` as stored: its credentials masked for listings, and it sealed when it had any. A
   * credential typed as `MASKED_VALUE` keeps the one of `kept` (the URL stored before) in its place;
   * one with nothing to keep — or whose seal no longer opens — is refused (`secret_missing`).
   */
  sealUrl(typed: string, kept: SealedUrl | undefined, setting: UrlSetting): SealedUrl {
    const masked = urlsIn(typed, setting).some(readsMasked)
    const before = kept?.sealed ? this.openOrNothing(kept.sealed) : kept?.shown
    const url = masked ? withKeptCredentials(typed, before, setting) : typed
    const shown = urlsIn(url, setting).map(maskCredentials).join(',')
    return shown === url ? { shown } : { shown, sealed: this.seal(url, kept?.sealed) }
  }

  /** The URL as typed, its seal opened (see `open`): for a connection only. */
  openUrl(url: SealedUrl, what: string, remedy: string): string {
    return url.sealed ? this.open(url.sealed, what, remedy) : url.shown
  }

  /** The sealed value, or undefined when it no longer opens: for what can be had again (a token, by signing in). */
  openOrNothing(sealed: Buffer): string | undefined {
    try {
      return this.store.unseal(sealed)
    } catch {
      return undefined
    }
  }
}

/** A URL cut where its credentials sit; the rest is kept as typed, byte for byte. */
interface UrlParts {
  /** `scheme://`, or the whole text when it is no URL. */
  start: string
  userinfo: string | null
  /** Host, port and path. */
  place: string
  /** Name and value of each query parameter (a null value: the parameter has no `=`); null without a query. */
  query: [string, string | null][] | null
  fragment: string
}

const URL_PARTS = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)([^?#]*)(?:\?([^#]*))?(#.*)?$/is

function partsOf(url: string): UrlParts {
  const match = URL_PARTS.exec(url)
  if (!match) return { start: url, userinfo: null, place: '', query: null, fragment: '' }
  const [, start = '', authority = '', path = '', query, fragment = ''] = match
  const at = authority.lastIndexOf('@')
  return {
    start,
    userinfo: at < 0 ? null : authority.slice(0, at),
    place: authority.slice(at + 1) + path,
    query:
      query === undefined
        ? null
        : query.split('&').map((pair) => {
            const equals = pair.indexOf('=')
            return equals < 0 ? [pair, null] : [pair.slice(0, equals), pair.slice(equals + 1)]
          }),
    fragment,
  }
}

function urlOf({ start, userinfo, place, query, fragment }: UrlParts): string {
  const search =
    query && `?${query.map(([name, value]) => (value === null ? name : `${name}=${value}`)).join('&')}`
  return `${start}${userinfo === null ? '' : `${userinfo}@`}${place}${search ?? ''}${fragment}`
}

function isCredentialParameter(name: string): boolean {
  try {
    return CREDENTIAL_PARAMETER.test(decodeURIComponent(name))
  } catch {
    return CREDENTIAL_PARAMETER.test(name)
  }
}

/** The URLs of a setting: one, or each of a comma-separated list. */
function urlsIn(text: string, { list }: UrlSetting): string[] {
  return list ? text.split(',') : [text]
}

function maskCredentials(url: string): string {
  const parts = partsOf(url)
  return urlOf({
    ...parts,
    userinfo: parts.userinfo ? MASKED_VALUE : parts.userinfo,
    query:
      parts.query?.map(([name, value]) => [
        name,
        value && isCredentialParameter(name) ? MASKED_VALUE : value,
      ]) ?? null,
  })
}

/** Whether a credential of the URL reads `MASKED_VALUE`: sent back from a listing. */
function readsMasked(url: string): boolean {
  const { userinfo, query } = partsOf(url)
  return userinfo === MASKED_VALUE || (query ?? []).some(([, value]) => value === MASKED_VALUE)
}

/**
 * `typed` with each masked credential taken from `stored`: from the stored URL of the same host
 * (a list may be reordered), else of the same place in the list.
 */
function withKeptCredentials(typed: string, stored: string | undefined, setting: UrlSetting): string {
  const before = stored === undefined ? [] : urlsIn(stored, setting).map(partsOf)
  return urlsIn(typed, setting)
    .map((url, index) => {
      const parts = partsOf(url)
      const kept = before.find((each) => each.place === parts.place) ?? before[index]
      const keptValue = (name: string, occurrence: number) =>
        kept?.query?.filter(([each]) => each === name)[occurrence]?.[1] ??
        missing(`The parameter ${name}`, setting)
      const seen = new Map<string, number>()
      return urlOf({
        ...parts,
        userinfo:
          parts.userinfo === MASKED_VALUE
            ? (kept?.userinfo ?? missing('The user and password', setting))
            : parts.userinfo,
        query:
          parts.query?.map(([name, value]) => {
            const occurrence = seen.get(name) ?? 0
            seen.set(name, occurrence + 1)
            return [name, value === MASKED_VALUE ? keptValue(name, occurrence) : value]
          }) ?? null,
      })
    })
    .join(',')
}

function missing(part: string, { what }: UrlSetting): never {
  throw new AtelierError('secret_missing', `${part} in ${what} has no stored value to keep: type it.`, {
    name: part,
  })
}
