import { type KeyboardEvent, useEffect, useId, useRef, useState } from 'react'
import type { AtelierApi } from '../../../src-shared/api'
import type { ChatSearchResult } from '../../../src-shared/contract'
import { errorMessage } from '../errors'
import { Modal } from './chat/Modal'
import '../chat-search.css'

/** How long typing pauses before the search runs: one search a word, not one a key. */
const TYPING_PAUSE_MS = 120

const ROLE_WORDS: Record<ChatSearchResult['role'], string> = {
  user: 'Prompt',
  assistant: 'Answer',
  tool: 'Tool result',
}

type Search =
  | { kind: 'idle' }
  | { kind: 'searching' }
  | { kind: 'found'; query: string; results: ChatSearchResult[] }
  | { kind: 'failed'; message: string }

/**
 * Ctrl/Cmd+K: every chat's prompts, answers and tool calls searched as the person types. The box
 * keeps the keyboard; the arrows move through the results and Enter opens the one chosen at its
 * message.
 */
export function ChatSearchDialog({
  api,
  onOpen,
  onClose,
}: {
  api: AtelierApi
  onOpen(result: ChatSearchResult): void
  onClose(): void
}) {
  const [query, setQuery] = useState('')
  const [search, setSearch] = useState<Search>({ kind: 'idle' })
  const [active, setActive] = useState(0)
  const listId = useId()
  const optionId = (index: number) => `${listId}-${index}`
  /** Counts searches started: an answer to an older one (slower than the next) is dropped. */
  const latest = useRef(0)
  const box = useRef<HTMLInputElement>(null)

  // Here, not `autoFocus`: the box can take focus only once the dialog is open, which the Modal's
  // own effect (run before this one) does.
  useEffect(() => box.current?.focus(), [])

  useEffect(() => {
    const asked = ++latest.current
    if (!query.trim()) {
      setSearch({ kind: 'idle' })
      return
    }
    // The last results stay while the next word is typed, rather than the list blinking empty.
    setSearch((current) => (current.kind === 'found' ? current : { kind: 'searching' }))
    const timer = setTimeout(() => {
      api.chats.search({ query }).then(
        ({ results }) => {
          if (asked !== latest.current) return
          setSearch({ kind: 'found', query, results })
          setActive(0)
        },
        (failure: unknown) => {
          if (asked === latest.current) setSearch({ kind: 'failed', message: errorMessage(failure) })
        },
      )
    }, TYPING_PAUSE_MS)
    return () => clearTimeout(timer)
  }, [api, query])

  const results = search.kind === 'found' ? search.results : []
  // The chosen result stays in view as the arrows move past the list's edge.
  useEffect(() => {
    document.getElementById(optionId(active))?.scrollIntoView({ block: 'nearest' })
  })

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    // Escape in a search field would only empty it: here it closes the dialog, as everywhere else.
    if (event.key === 'Escape') {
      event.preventDefault()
      onClose()
      return
    }
    if (results.length === 0) return
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault()
      const step = event.key === 'ArrowDown' ? 1 : -1
      setActive((current) => (current + step + results.length) % results.length)
    } else if (event.key === 'Enter') {
      event.preventDefault()
      const chosen = results[active]
      if (chosen) onOpen(chosen)
    }
  }

  return (
    <Modal title="Search chats" onClose={onClose} className="chat-search">
      <input
        type="search"
        className="chat-search-box"
        aria-label="Search chats"
        placeholder="Words from a prompt, an answer or a tool's output"
        ref={box}
        value={query}
        onChange={(event) => setQuery(event.target.value)}
        onKeyDown={onKeyDown}
        aria-controls={listId}
        aria-activedescendant={results.length > 0 ? optionId(active) : undefined}
      />
      <p className="chat-search-status muted" role="status">
        {statusText(search)}
      </p>
      <div id={listId} role="listbox" aria-label="Results" className="chat-search-results">
        {results.map((result, index) => (
          // biome-ignore lint/a11y/useKeyWithClickEvents: the arrows and Enter in the search box choose
          <div
            key={result.messageId}
            id={optionId(index)}
            role="option"
            // Focus stays in the box (aria-activedescendant); -1 only makes the option focusable.
            tabIndex={-1}
            aria-selected={index === active}
            className="chat-search-result"
            onClick={() => onOpen(result)}
            onMouseMove={() => setActive(index)}
          >
            <span className="chat-search-result-head">
              <span className="chat-search-result-title">{result.chatTitle}</span>
              <span className="muted">
                {ROLE_WORDS[result.role]} · {new Date(result.createdAt).toLocaleDateString()}
              </span>
            </span>
            <span className="chat-search-snippet">
              {result.snippet.map((piece, at) =>
                // biome-ignore lint/suspicious/noArrayIndexKey: pieces have no identity beyond their place
                piece.match ? <mark key={at}>{piece.text}</mark> : <span key={at}>{piece.text}</span>,
              )}
            </span>
          </div>
        ))}
      </div>
    </Modal>
  )
}

function statusText(search: Search): string {
  switch (search.kind) {
    case 'idle':
      return "Type to search every chat's prompts, answers and tool calls."
    case 'searching':
      return 'Searching…'
    case 'failed':
      return `The search failed: ${search.message}`
    case 'found':
      if (search.results.length === 0) return `No message has “${search.query.trim()}”.`
      return search.results.length === 1 ? '1 message found.' : `${search.results.length} messages found.`
  }
}
