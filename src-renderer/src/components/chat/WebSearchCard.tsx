import { useId } from 'react'
import type { WebSource } from '../../../../src-shared/agent'
import { ChatIcon } from './ChatIcon'
import type { CitationsView, WebSearchView } from './conversation'
import { useDisclosure } from './useDisclosure'

/** A page's name as a link reads it: its title, else its host. */
function pageName({ url, title }: WebSource): string {
  if (title) return title
  try {
    return new URL(url).host
  } catch {
    return url
  }
}

function PageLink({ source }: { source: WebSource }) {
  return (
    <a href={source.url} target="_blank" rel="noreferrer" title={source.url}>
      {pageName(source)}
    </a>
  )
}

/**
 * A search the provider ran itself, as one line like a tool call's — what it searched for and how
 * many pages it found — that opens to the pages.
 */
export function WebSearchCard({ search, cardKey }: { search: WebSearchView; cardKey: string }) {
  const bodyId = useId()
  const { open, toggle } = useDisclosure(cardKey, { attention: false, pinned: false })
  const { queries, sources } = search
  const found = sources.length === 1 ? '1 page' : `${sources.length} pages`
  return (
    <section className="tool-card web-search-card" aria-label="Web search by the provider">
      <div className="tool-card-head">
        <button
          type="button"
          className="tool-line"
          aria-expanded={open}
          aria-controls={bodyId}
          disabled={sources.length === 0}
          onClick={toggle}
        >
          <span className="tool-line-chevron" aria-hidden="true">
            <ChatIcon name="chevron-down" size={13} />
          </span>
          <span className="tool-card-icon">
            <ChatIcon name="globe" size={15} />
          </span>
          <span className="tool-card-name">Searched the web</span>
          <span className="tool-card-summary">{queries.map((query) => `“${query}”`).join(', ')}</span>
          {sources.length > 0 && (
            <span className="tool-line-outcome">
              <span aria-hidden="true"> · </span>
              {found}
            </span>
          )}
        </button>
      </div>
      <ul id={bodyId} className="web-search-pages" hidden={!open}>
        {sources.map((source) => (
          <li key={source.url}>
            <PageLink source={source} />
          </li>
        ))}
      </ul>
    </section>
  )
}

/** The pages a response cites, as links under its text, each once. */
export function Citations({ citations }: { citations: CitationsView }) {
  return (
    <nav className="citations" aria-label="Sources">
      <span className="citations-label">Sources</span>
      <ol>
        {citations.sources.map((source) => (
          <li key={source.url}>
            <PageLink source={source} />
          </li>
        ))}
      </ol>
    </nav>
  )
}
