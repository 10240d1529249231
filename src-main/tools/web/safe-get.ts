/**
 * One GET the way Atelier's web tools make it: http and https only, every hop's address checked by
 * the address rules and pinned for its connection, redirects followed a few times and each one
 * checked again, the body cut at a size cap, and nothing of the person's sent along — no cookies,
 * no credentials, a fixed User-Agent that names Atelier.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http'
import { request as httpsRequest } from 'node:https'
import type { LookupFunction } from 'node:net'
import { pipeline, type Readable, type Transform } from 'node:stream'
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib'
import packageJson from '../../../package.json'
import { errorMessage } from '../../../src-shared/errors'
import { ToolArgumentError, ToolError } from '../errors'
import { AddressRules, type HostResolver } from './address-rules'

/** Sites see who asks: one fixed string, the same for every person, so it says nothing about them. */
export const USER_AGENT = `Mozilla/5.0 (compatible; Atelier/${packageJson.version}; web_fetch)`

/** The most redirects one request follows; a sixth is refused. */
export const MAX_REDIRECTS = 5

const REDIRECTS = new Set([301, 302, 303, 307, 308])

export interface SafeGetOptions {
  /** Host names, addresses and CIDR blocks let through although the address rules refuse them. */
  allowedHosts: readonly string[]
  /** The most bytes of the (decoded) body kept; the rest is not downloaded. */
  maxBytes: number
  signal: AbortSignal
  /** What the caller would rather receive (`Accept`). */
  accept?: string
  /** Resolves host names; the OS resolver by default. */
  resolve?: HostResolver
}

export interface WebResponse {
  /** The URL the body came from, after redirects. */
  url: string
  /** The URLs that redirected, in order, the asked one first; empty when none did. */
  redirects: string[]
  status: number
  statusText: string
  /** The Content-Type header as sent; empty when none was. */
  contentType: string
  body: Buffer
  /** The body went on past `maxBytes` and was cut there. */
  truncated: boolean
}

/**
 * The URL a web tool may request: absolute, http or https, with no user name or password (a
 * credential in a URL would be sent to whoever the page is). Throws a message the model can act on.
 */
export function parseWebUrl(text: string): URL {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw new ToolArgumentError(
      `"${text}" is not an absolute URL; give one like https://example.com/page`,
      'url',
    )
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ToolArgumentError(`Only http and https URLs can be fetched, not ${url.protocol}`, 'url')
  if (url.username || url.password)
    throw new ToolArgumentError(
      'URLs with a user name or password are refused: no credentials are sent',
      'url',
    )
  return url
}

/** GETs `url`, following at most MAX_REDIRECTS redirects, each hop checked before it connects. */
export async function safeGet(url: string, options: SafeGetOptions): Promise<WebResponse> {
  const rules = new AddressRules(options.allowedHosts)
  const lookup = rules.pinnedLookup(options.resolve)
  const redirects: string[] = []
  let current = parseWebUrl(url)
  for (;;) {
    rules.assertWithoutLookup(current.hostname)
    const response = await send(current, lookup, options)
    const location = response.headers.location
    if (!REDIRECTS.has(response.statusCode ?? 0) || !location)
      return read(current, redirects, response, options)
    response.destroy()
    redirects.push(current.href)
    if (redirects.length > MAX_REDIRECTS)
      throw new ToolError(
        'execution_failed',
        `Too many redirects: more than ${MAX_REDIRECTS}, the last to ${location}. Not followed.`,
        { redirects },
      )
    current = redirectTarget(location, current)
  }
}

/** Where a redirect points, held to the rules of an asked URL; its failure is the page's, not the model's. */
function redirectTarget(location: string, from: URL): URL {
  try {
    return parseWebUrl(new URL(location, from).href)
  } catch (error) {
    throw new ToolError(
      'execution_failed',
      `The page redirected to ${location}, which is not followed: ${errorMessage(error)}`,
    )
  }
}

function send(url: URL, lookup: LookupFunction, options: SafeGetOptions): Promise<IncomingMessage> {
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest
  return new Promise((resolve, reject) => {
    const outgoing = request(url, {
      method: 'GET',
      // A connection of its own, never a pooled one opened for another host's checks.
      agent: false,
      lookup,
      signal: options.signal,
      headers: {
        'User-Agent': USER_AGENT,
        Accept: options.accept ?? '*/*',
        'Accept-Encoding': 'gzip, deflate, br',
      },
    })
    outgoing.on('response', resolve)
    outgoing.on('error', (error) => {
      if (ToolError.isInstance(error) || options.signal.aborted) reject(error)
      else reject(new ToolError('execution_failed', `Could not fetch ${url.href}: ${errorMessage(error)}`))
    })
    outgoing.end()
  })
}

async function read(
  url: URL,
  redirects: string[],
  response: IncomingMessage,
  options: SafeGetOptions,
): Promise<WebResponse> {
  const chunks: Buffer[] = []
  let size = 0
  let truncated = false
  let body: Readable = response
  try {
    body = decoded(response)
    for await (const chunk of body) {
      const buffer = chunk as Buffer
      if (size + buffer.length > options.maxBytes) {
        chunks.push(buffer.subarray(0, options.maxBytes - size))
        size = options.maxBytes
        truncated = true
        break
      }
      chunks.push(buffer)
      size += buffer.length
    }
  } catch (error) {
    if (options.signal.aborted) throw error
    throw new ToolError('execution_failed', `Reading ${url.href} failed: ${errorMessage(error)}`)
  } finally {
    // Past the cap nothing more is downloaded: the connection goes.
    body.destroy()
    response.destroy()
  }
  return {
    url: url.href,
    redirects,
    status: response.statusCode ?? 0,
    statusText: response.statusMessage ?? '',
    contentType: response.headers['content-type'] ?? '',
    body: Buffer.concat(chunks, size),
    truncated,
  }
}

/** The body as the server meant it: compressed bodies inflated, so the cap counts what is kept. */
function decoded(response: IncomingMessage): Readable {
  const encoding = (response.headers['content-encoding'] ?? 'identity').trim().toLowerCase()
  switch (encoding) {
    case 'identity':
    case '':
      return response
    case 'gzip':
    case 'x-gzip':
      return inflated(response, createGunzip())
    case 'deflate':
      return inflated(response, createInflate())
    case 'br':
      return inflated(response, createBrotliDecompress())
    default:
      throw new ToolError(
        'execution_failed',
        `The server sent the body in an encoding Atelier does not read: ${encoding}`,
      )
  }
}

/** The response through a decompressor; a connection that breaks mid-body fails the read, not hangs it. */
function inflated(response: IncomingMessage, decompressor: Transform): Readable {
  // The error reaches the reader through the decompressor, which pipeline destroys with it.
  return pipeline(response, decompressor, () => {})
}
