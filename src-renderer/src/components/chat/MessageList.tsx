import { useVirtualizer } from '@tanstack/react-virtual'
import { type ReactNode, useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react'
import type { ToolCallState } from '../../../../src-shared/tool-calls'
import { AssistantMessage } from './AssistantMessage'
import { ChangesSummary } from './ChangesSummary'
import { ChatIcon } from './ChatIcon'
import { CompactionMarker } from './CompactionMarker'
import type { Row, ShellChunk } from './conversation'
import { TurnNotice } from './TurnNotice'
import { UserMessage } from './UserMessage'
import { WorkingIndicator } from './WorkingIndicator'

interface MessageListProps {
  rows: Row[]
  /** The conversation's tool calls and their output, by `callKey`. */
  calls: Record<string, ToolCallState>
  output: Record<string, ShellChunk[]>
  /** The turn now running, if any. */
  activeTurnId: string | undefined
  /** Re-sends the latest prompt; absent while a turn runs. */
  onRetry: (() => void) | undefined
  /** Shown instead of the list when there is nothing yet. */
  empty: ReactNode
  /**
   * Changes each time the person sends (or retries): the list goes to the end, where the new prompt
   * is, and follows the stream again, wherever it had been scrolled to.
   */
  follow: number
  /**
   * A row to bring into view and mark (a search result's message), once, when it is in the list;
   * `at` tells one request from the next for the same row.
   */
  reveal?: { key: string; at: number } | undefined
}

/** Within this many pixels of the end counts as "at the end": streaming keeps the view there. */
const STICKY_DISTANCE = 64

const ESTIMATES: Record<Row['kind'], number> = {
  user: 72,
  assistant: 180,
  turn_end: 88,
  start_failure: 88,
  working: 44,
  compaction: 84,
  changes: 52,
}

/**
 * The conversation, virtualized: only the rows near the view are in the DOM, each measured as it
 * renders (heights change while text streams and cards open). It follows the end while something
 * streams, unless the person has scrolled up to read.
 */
export function MessageList({
  rows,
  calls,
  output,
  activeTurnId,
  onRetry,
  empty,
  follow,
  reveal,
}: MessageListProps) {
  const scroller = useRef<HTMLDivElement>(null)
  const sticky = useRef(true)
  const lastTop = useRef(0)
  const [atEnd, setAtEnd] = useState(true)
  /** The empty chat's help goes on below the view: a cue says so (it has no rows to jump to). */
  const [moreBelow, setMoreBelow] = useState(false)
  const isEmpty = rows.length === 0

  const measureMore = useCallback(() => {
    const element = scroller.current
    const hidden = element ? element.scrollHeight - element.scrollTop - element.clientHeight : 0
    setMoreBelow(isEmpty && hidden > 8)
  }, [isEmpty])

  // The help's height changes with the window and with what it teaches (a provider added, say).
  useEffect(() => {
    const element = scroller.current
    measureMore()
    if (!element || !isEmpty) return
    const observer = new ResizeObserver(measureMore)
    observer.observe(element)
    for (const child of element.children) observer.observe(child)
    return () => observer.disconnect()
  }, [isEmpty, measureMore])

  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: (index) => ESTIMATES[rows[index]?.kind ?? 'assistant'],
    getItemKey: (index) => rows[index]?.key ?? index,
    overscan: 6,
    paddingStart: 24,
    paddingEnd: 16,
    useFlushSync: false,
  })

  // While the end is held, a row that changes size above the view needs no correction (the end is
  // taken again anyway), and a correction would scroll up as if the person had.
  virtualizer.shouldAdjustScrollPositionOnItemSizeChange = () => !sticky.current

  const totalSize = virtualizer.getTotalSize()

  const scrollToEnd = useCallback(() => {
    const element = scroller.current
    if (element) element.scrollTop = element.scrollHeight
  }, [])

  // biome-ignore lint/correctness/useExhaustiveDependencies: runs whenever the content grows or changes
  useLayoutEffect(() => {
    if (sticky.current) scrollToEnd()
  }, [totalSize, rows.length, scrollToEnd])

  // A send takes hold of the end again: the prompt lands there, and its stream is followed (until
  // the person scrolls up during it).
  useLayoutEffect(() => {
    if (follow === 0) return
    sticky.current = true
    setAtEnd(true)
    scrollToEnd()
  }, [follow, scrollToEnd])

  // A revealed row lets go of the end, as scrolling up to it would; it waits for its row to load.
  const revealedAt = useRef<number>(undefined)
  const [marked, setMarked] = useState<string>()
  useLayoutEffect(() => {
    if (!reveal || revealedAt.current === reveal.at) return
    const index = rows.findIndex((row) => row.key === reveal.key)
    if (index < 0) return
    revealedAt.current = reveal.at
    sticky.current = false
    setAtEnd(false)
    setMarked(reveal.key)
    virtualizer.scrollToIndex(index, { align: 'center' })
  }, [reveal, rows, virtualizer])

  // Only the person scrolling up lets go of the end: growing content and the list's own
  // adjustments never move the view up, and reaching the end again takes hold of it.
  const onScroll = () => {
    const element = scroller.current
    if (!element) return
    const end = element.scrollHeight - element.scrollTop - element.clientHeight < STICKY_DISTANCE
    if (end) sticky.current = true
    else if (element.scrollTop < lastTop.current) sticky.current = false
    lastTop.current = element.scrollTop
    setAtEnd(sticky.current || end)
    measureMore()
  }

  const render = (row: Row): ReactNode => {
    switch (row.kind) {
      case 'user':
        return <UserMessage message={row.message} />
      case 'assistant':
        return (
          <AssistantMessage
            turnId={row.turnId}
            parts={row.parts}
            calls={calls}
            output={output}
            active={row.turnId === activeTurnId}
            live={row.live}
            usage={row.usage}
            subagentUsage={row.subagentUsage}
            turnUsage={row.turnUsage}
          />
        )
      case 'turn_end': {
        const status = row.turn.status
        const kind = status === 'stopped' ? 'stopped' : status === 'interrupted' ? 'interrupted' : 'failed'
        return (
          <TurnNotice
            kind={kind}
            message={row.turn.error}
            code={row.code}
            latest={row.latest}
            onRetry={row.latest && kind !== 'stopped' ? onRetry : undefined}
          />
        )
      }
      case 'start_failure':
        return (
          <TurnNotice
            kind="refused"
            message={row.failure.message}
            code={row.failure.code}
            latest
            onRetry={onRetry}
          />
        )
      case 'working':
        return <WorkingIndicator label={row.label} />
      case 'compaction':
        return <CompactionMarker compaction={row.compaction} />
      case 'changes':
        return <ChangesSummary turnId={row.turnId} />
    }
  }

  return (
    <div className={`conversation-frame${moreBelow ? ' conversation-frame--more' : ''}`}>
      <div
        ref={scroller}
        className="conversation"
        role="log"
        aria-label="Conversation"
        // biome-ignore lint/a11y/noNoninteractiveTabindex: the scrolling conversation must be reachable by keyboard
        tabIndex={0}
        onScroll={onScroll}
      >
        {rows.length === 0 ? (
          empty
        ) : (
          <div className="conversation-rows" style={{ height: totalSize }}>
            {virtualizer.getVirtualItems().map((item) => {
              const row = rows[item.index]
              if (!row) return null
              return (
                <div
                  key={item.key}
                  data-index={item.index}
                  ref={virtualizer.measureElement}
                  className={`conversation-row conversation-row--${row.kind}${row.key === marked ? ' conversation-row--revealed' : ''}`}
                  style={{ transform: `translateY(${item.start}px)` }}
                >
                  {render(row)}
                </div>
              )
            })}
          </div>
        )}
      </div>
      {moreBelow && (
        <button
          type="button"
          className="jump-to-end"
          onClick={() => {
            const element = scroller.current
            if (element) element.scrollTop = element.scrollHeight
          }}
        >
          <ChatIcon name="down" size={14} />
          More below
        </button>
      )}
      {!atEnd && rows.length > 0 && (
        <button
          type="button"
          className="jump-to-end"
          onClick={() => {
            sticky.current = true
            setAtEnd(true)
            scrollToEnd()
          }}
        >
          <ChatIcon name="down" size={14} />
          Jump to latest
        </button>
      )}
    </div>
  )
}
