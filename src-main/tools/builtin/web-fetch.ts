/**
 * web_fetch: reads one web page for the model. The request goes through the web module's safe GET
 * (address rules on every hop, redirects capped, a download cap, nothing of the person's sent);
 * the page comes back as Markdown of its main content, text and JSON as they are, other files
 * described. The person decides per domain (`web_fetch(domain:docs.python.org)`).
 */
import { type Static, Type } from '@sinclair/typebox'
import type { ToolDisplay } from '../../../src-shared/tools'
import { defineTool } from '../define-tool'
import { registerTool } from '../registry'
import { clampIntegerSetting, integerParameter, TIMEOUT_SECONDS } from '../settings-policy'
import type { ToolContext, ToolOutput } from '../types'
import { AddressRules, bareHost } from '../web/address-rules'
import { fenceFor, formatBytes, type PageContent, pageContent } from '../web/page-content'
import { parseWebUrl, safeGet, type WebResponse } from '../web/safe-get'

const Parameters = Type.Object(
  {
    url: Type.String({
      minLength: 1,
      maxLength: 8192,
      description:
        'The absolute http or https URL of the page, e.g. https://docs.python.org/3/library/json.html',
    }),
    prompt: Type.Optional(
      Type.String({
        maxLength: 2000,
        description: 'What you are looking for on the page; shown to the user with the call.',
      }),
    ),
  },
  { additionalProperties: false },
)
type Parameters = Static<typeof Parameters>

/** The download cap in MiB: a page is rarely more, and the result cap keeps only 100,000 characters anyway. */
const MAX_DOWNLOAD_MIB = { min: 1, max: 50, fallback: 5 }
const MIB = 1024 * 1024

/** How much of what the model read the card previews: enough to recognise the page. */
const PREVIEW_CHARS = 4000

function allowedHostsOf(context: ToolContext): string[] {
  const value = context.settings.parameters.allowedHosts
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []
}

/**
 * Refuses, before anyone is asked, a URL that is not http(s) or whose host is refused without a
 * lookup (an address, localhost). A name is resolved only once the call runs.
 */
async function check(args: Parameters, context: ToolContext): Promise<void> {
  const url = parseWebUrl(args.url)
  new AddressRules(allowedHostsOf(context)).assertWithoutLookup(url.hostname)
}

async function execute(args: Parameters, context: ToolContext): Promise<ToolOutput> {
  const maxBytes = clampIntegerSetting(context.settings.parameters.maxDownloadMiB, MAX_DOWNLOAD_MIB) * MIB
  const response = await safeGet(args.url, {
    allowedHosts: allowedHostsOf(context),
    maxBytes,
    signal: context.signal,
    accept: 'text/html, application/xhtml+xml, text/markdown, text/plain, application/json;q=0.9, */*;q=0.8',
  })
  const page = await pageContent(response, context.signal)
  return {
    content: resultText(args, response, page, maxBytes),
    // An error page is still shown: it often says what went wrong.
    isError: response.status >= 400,
    truncated: response.truncated,
    display: pageDisplay(response, page),
  }
}

/**
 * A head the model can cite from (title, final URL, type, size), then the page. A cut at the
 * download cap is said in the head: the executor's result cap keeps the start of a long result.
 */
function resultText(args: Parameters, response: WebResponse, page: PageContent, maxBytes: number): string {
  const head = [
    ...(page.title ? [`Title: ${page.title}`] : []),
    `URL: ${response.url}`,
    ...(response.redirects.length > 0 ? [`Redirected from: ${response.redirects[0]}`] : []),
    ...(response.status >= 400 ? [`Status: HTTP ${response.status} ${response.statusText}`.trim()] : []),
    `Type: ${page.mediaType}, ${formatBytes(response.body.length)}`,
    ...(response.truncated
      ? [`Cut: the page is larger than the ${formatBytes(maxBytes)} download cap; only its start was read.`]
      : []),
    ...(args.prompt ? [`Looking for: ${args.prompt}`] : []),
  ]
  return `${head.join('\n')}\n\n${page.text}`
}

function pageDisplay(response: WebResponse, page: PageContent): ToolDisplay {
  const start = page.text.slice(0, PREVIEW_CHARS)
  const more = page.text.length > PREVIEW_CHARS ? '\n\n…' : ''
  // Text and JSON are shown as they are, not read as Markdown.
  const preview = page.form === 'text' ? fenced(start, page.mediaType) : start + more
  return {
    kind: 'web-page',
    url: response.url,
    ...(page.title && { title: page.title }),
    status: response.status,
    mediaType: page.mediaType,
    bytes: response.body.length,
    truncated: response.truncated,
    preview,
  }
}

function fenced(text: string, mediaType: string): string {
  const fence = fenceFor(text)
  const language = /json/.test(mediaType) ? 'json' : ''
  return `${fence}${language}\n${text}\n${fence}`
}

export const webFetchTool = defineTool({
  name: 'web_fetch',
  description:
    'Fetches one web page (http or https) and returns its main content as Markdown with absolute links; ' +
    'plain text and JSON come back as they are, PDFs and images only described. Use it to read documentation, ' +
    'changelogs, issues and error threads. Private and local network addresses are refused.',
  parameters: Parameters,
  settings: {
    title: 'Fetch web pages',
    description:
      'Lets the model read a web page as Markdown. Private, loopback and cloud metadata addresses are refused unless listed in Allowed hosts.',
    category: 'web',
    enabledByDefault: true,
    canDisable: true,
    defaultParameters: {
      timeoutSeconds: TIMEOUT_SECONDS.fallback,
      maxDownloadMiB: MAX_DOWNLOAD_MIB.fallback,
      allowedHosts: [],
    },
    parameterDescriptors: [
      integerParameter(
        'timeoutSeconds',
        'Timeout',
        'How long one fetch may take, redirects included.',
        TIMEOUT_SECONDS,
        's',
      ),
      integerParameter(
        'maxDownloadMiB',
        'Download cap',
        'The most of a page that is downloaded; the rest is cut, and the model is told.',
        MAX_DOWNLOAD_MIB,
        'MiB',
      ),
      {
        name: 'allowedHosts',
        type: 'string-list',
        label: 'Allowed hosts',
        description:
          'Host names, addresses or CIDR blocks (intranet.example, 10.1.0.0/16) that may be fetched although they are private or local.',
      },
    ],
  },
  // It reaches another machine, and what it sends (the URL) can carry what the model knows.
  kind: 'network',
  describe: (args) => {
    let host: string | undefined
    try {
      host = bareHost(new URL(args.url).hostname)
    } catch {
      // An unparsable URL fails the check stage; it is described by its text alone.
    }
    return { summary: args.url, locations: [], ...(host && { host }) }
  },
  check,
  execute,
})

registerTool(webFetchTool)
