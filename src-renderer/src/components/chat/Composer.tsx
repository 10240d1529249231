import { type FormEvent, type KeyboardEvent, type RefObject, useEffect, useId, useState } from 'react'
import type { McpServerPrompts } from '../../../../src-shared/mcp-catalog'
import { errorMessage } from '../../errors'
import { AttachmentChips } from './AttachmentChips'
import { useApi } from './api-context'
import type { ComposerAttachment } from './attachments'
import { ChatIcon } from './ChatIcon'
import { PromptArgumentsDialog } from './PromptArgumentsDialog'
import { matchingPrompts, type PromptChoice, PromptMenu, promptOptionId } from './PromptMenu'
import { ResourceDialog } from './ResourceDialog'

interface ComposerProps {
  value: string
  onChange(value: string): void
  onSend(): void
  onStop(): void
  running: boolean
  textarea: RefObject<HTMLTextAreaElement | null>
  placeholder: string
  /** MCP resources to send with the message. */
  attachments: readonly ComposerAttachment[]
  onAttachmentsChange(attachments: ComposerAttachment[]): void
}

/**
 * Where the person writes. Enter sends, Shift+Enter breaks the line, Esc stops a running turn.
 * While a turn runs, Stop takes Send's place and the box stays open for the next prompt. A `/` at
 * the start opens the MCP servers' prompts; the paperclip attaches a server's resource.
 */
export function Composer({
  value,
  onChange,
  onSend,
  onStop,
  running,
  textarea,
  placeholder,
  attachments,
  onAttachmentsChange,
}: ComposerProps) {
  const api = useApi()
  const hintId = useId()
  const menuId = useId()
  const empty = value.trim() === ''
  const [picking, setPicking] = useState(false)
  const [prompts, setPrompts] = useState<McpServerPrompts[] | { error: string }>()
  const [active, setActive] = useState(0)
  const [dismissed, setDismissed] = useState(false)
  const [asking, setAsking] = useState<PromptChoice>()
  const [promptError, setPromptError] = useState<string>()

  // `/` then a command with no space yet: the menu of prompts.
  const query = /^\/\S*$/.test(value) ? value.slice(1) : null
  const menuOpen = query !== null && !dismissed && !asking
  const choices =
    prompts && !('error' in prompts)
      ? matchingPrompts(
          prompts.flatMap(({ server, prompts }) => prompts.map((prompt) => ({ server, prompt }))),
          query ?? '',
        )
      : []
  const activeIndex = Math.min(active, Math.max(choices.length - 1, 0))

  // The servers' prompts are asked for each time the menu opens, so a server added meanwhile is in it.
  const opening = query !== null && !dismissed
  useEffect(() => {
    if (!opening) return
    let live = true
    setPrompts(undefined)
    api.mcp.prompts({}).then(
      (value) => live && setPrompts(value),
      (failure: unknown) => live && setPrompts({ error: errorMessage(failure) }),
    )
    return () => {
      live = false
    }
  }, [api, opening])

  useEffect(() => {
    if (query === null) setDismissed(false)
  }, [query])

  const fill = (text: string) => {
    setAsking(undefined)
    setPromptError(undefined)
    onChange(text)
    textarea.current?.focus()
  }

  const choose = (choice: PromptChoice) => {
    setActive(0)
    if (choice.prompt.arguments.length > 0) {
      setAsking(choice)
      return
    }
    api.mcp.getPrompt({ server: choice.server, name: choice.prompt.name }).then(
      ({ text }) => fill(text),
      (failure: unknown) => setPromptError(errorMessage(failure)),
    )
  }

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (menuOpen && !event.nativeEvent.isComposing) {
      if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
        event.preventDefault()
        const step = event.key === 'ArrowDown' ? 1 : -1
        if (choices.length > 0) setActive((activeIndex + step + choices.length) % choices.length)
        return
      }
      if (event.key === 'Escape') {
        event.preventDefault()
        setDismissed(true)
        return
      }
      const chosen = choices[activeIndex]
      if (event.key === 'Enter' && !event.shiftKey && chosen) {
        event.preventDefault()
        choose(chosen)
        return
      }
    }
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault()
      if (!running && !empty) onSend()
    } else if (event.key === 'Escape' && running) {
      event.preventDefault()
      onStop()
    }
  }

  const onSubmit = (event: FormEvent) => {
    event.preventDefault()
    if (!running && !empty) onSend()
  }

  const menuStatus =
    prompts === undefined
      ? 'Asking the MCP servers for their prompts…'
      : 'error' in prompts
        ? `The prompts could not be listed: ${prompts.error}`
        : choices.length === 0
          ? query
            ? `No MCP prompt matches “/${query}”.`
            : 'No MCP server offers prompts.'
          : null

  return (
    <>
      <form className="composer" onSubmit={onSubmit} aria-label="Compose a message">
        <AttachmentChips
          attachments={attachments}
          label="Attached resources"
          onRemove={(removed) => {
            onAttachmentsChange(attachments.filter((attachment) => attachment !== removed))
            textarea.current?.focus()
          }}
        />
        {menuOpen && (
          <PromptMenu
            id={menuId}
            choices={choices}
            active={activeIndex}
            status={menuStatus}
            onChoose={choose}
          />
        )}
        {promptError && (
          <p className="inline-error composer-error" role="alert">
            The prompt could not be used: {promptError}
          </p>
        )}
        <div className="composer-box">
          <button
            type="button"
            className="icon-button composer-attach"
            aria-label="Attach resource"
            title="Attach an MCP server's resource"
            onClick={() => setPicking(true)}
          >
            <ChatIcon name="paperclip" />
          </button>
          <textarea
            ref={textarea}
            className="composer-input"
            aria-label="Message"
            aria-describedby={hintId}
            aria-controls={menuOpen ? menuId : undefined}
            aria-activedescendant={
              menuOpen && choices.length > 0 ? promptOptionId(menuId, activeIndex) : undefined
            }
            placeholder={placeholder}
            rows={1}
            value={value}
            onChange={(event) => {
              setActive(0)
              setPromptError(undefined)
              onChange(event.target.value)
            }}
            onKeyDown={onKeyDown}
          />
          <div className="composer-actions">
            {running ? (
              <button type="button" className="composer-stop" onClick={onStop} title="Stop (Esc)">
                <ChatIcon name="stop" size={14} />
                Stop
              </button>
            ) : (
              <button type="submit" className="composer-send" disabled={empty} title="Send (Enter)">
                Send
                <ChatIcon name="send" size={14} />
              </button>
            )}
          </div>
        </div>
        <p id={hintId} className="composer-hint">
          <kbd>Enter</kbd> to send · <kbd>Shift</kbd>+<kbd>Enter</kbd> for a new line · <kbd>/</kbd> for
          prompts
          {running ? (
            <>
              {' '}
              · <kbd>Esc</kbd> to stop
            </>
          ) : null}
        </p>
      </form>
      {/* Outside the form: a dialog's own form (the prompt's arguments) cannot nest in it. */}
      {picking && (
        <ResourceDialog
          attached={attachments}
          onAttach={(attachment) => onAttachmentsChange([...attachments, attachment])}
          onClose={() => setPicking(false)}
        />
      )}
      {asking && (
        <PromptArgumentsDialog choice={asking} onFilled={fill} onClose={() => setAsking(undefined)} />
      )}
    </>
  )
}
