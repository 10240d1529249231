import type { ToolDisplay } from '../../../../src-shared/tools'
import { formatBytes } from '../settings/tool-values'
import { MarkdownText } from './MarkdownText'

type WebPageDisplay = Extract<ToolDisplay, { kind: 'web-page' }>

/** "12.5 KiB, cut at the download cap": how much of the page came back. */
export function webPageSize(display: WebPageDisplay): string {
  return `${formatBytes(display.bytes)}${display.truncated ? ', cut at the download cap' : ''}`
}

/**
 * A page web_fetch read: its title, linking to the URL it came from after redirects, that URL,
 * its type and size, and the start of what the model read, rendered as the answers are (links open
 * outside the app, images stay links, raw HTML is dropped).
 */
export function WebPageView({ display }: { display: WebPageDisplay }) {
  return (
    <div className="web-page">
      <p className="web-page-title">
        <a href={display.url} target="_blank" rel="noreferrer">
          {display.title ?? display.url}
        </a>
      </p>
      <p className="web-page-meta">
        <code className="web-page-url" title={display.url}>
          {display.url}
        </code>
        <span>
          {display.mediaType} · {webPageSize(display)}
        </span>
      </p>
      <section
        className="web-page-preview"
        aria-label={`Preview of ${display.title ?? display.url}`}
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
        tabIndex={0}
      >
        <MarkdownText text={display.preview} />
      </section>
    </div>
  )
}
