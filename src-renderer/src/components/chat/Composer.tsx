import {
  type ClipboardEvent,
  type Dispatch,
  type DragEvent,
  type FormEvent,
  type KeyboardEvent,
  type ReactNode,
  type RefObject,
  type SetStateAction,
  useEffect,
  useId,
  useRef,
  useState,
} from 'react'
import { IMAGE_MIME_TYPES } from '../../../../src-shared/attachments'
import type { SlashCommand } from '../../../../src-shared/commands'
import type { FolderFiles } from '../../../../src-shared/contract'
import type { McpServerPrompts } from '../../../../src-shared/mcp-catalog'
import { errorMessage } from '../../errors'
import { AttachMenu } from './AttachMenu'
import { AttachmentChips } from './AttachmentChips'
import { useApi } from './api-context'
import type { ComposerAttachment } from './attachments'
import { ChatIcon } from './ChatIcon'
import { ComposerMenu, menuOptionId } from './ComposerMenu'
import { fileMention, fileOption, mentionAt } from './file-mentions'
import { PromptArgumentsDialog } from './PromptArgumentsDialog'
import type { PromptChoice } from './PromptMenu'
import { imageFiles, readImage } from './pasted-images'
import { usePromptHistory } from './prompt-history'
import { ResourceDialog } from './ResourceDialog'
import { matchingChoices, type SlashChoice, slashOption } from './SlashMenu'

interface ComposerProps {
  value: string
  onChange(value: string): void
  onSend(): void
  /** A command chosen in the `/` menu that needs nothing more: `/name`, to run at once. */
  onCommand(text: string): void
  onStop(): void
  running: boolean
  textarea: RefObject<HTMLTextAreaElement | null>
  placeholder: string
  /** What goes with the message: MCP resources, files named with `@`, pasted images. */
  attachments: readonly ComposerAttachment[]
  /** A state setter, given updates: an image's read can end after the attachments changed. */
  onAttachmentsChange: Dispatch<SetStateAction<ComposerAttachment[]>>
  chatId: string
  /** The chat's bound folder, whose files `@` mentions; null: `@` is only a character. */
  folder: string | null
  /** The chat's earlier prompts, oldest first, for ↑. */
  history: readonly string[]
  /** The message box takes the keyboard when shown (a chat just made). */
  autoFocus?: boolean
  /** Controls of the toolbar under the box, after the paperclip (the provider and model). */
  toolbar?: ReactNode
}

/**
 * Where the person writes. Enter sends, Shift+Enter breaks the line, Esc stops a running turn.
 * While a turn runs, Stop takes Send's place and the box stays open for the next prompt. A `/` at
 * the start opens the slash commands (built-ins, the person's and a trusted project's) and the MCP
 * servers' prompts, fuzzily filtered; a command that takes arguments fills `/name ` to be finished,
 * any other runs at once. `@` opens a search of the chat's folder's files; the paperclip's
 * menu attaches a file of the folder (the `@` search), images from disk or a server's resource; an
 * image pasted or dropped goes with the message; ↑ recalls the chat's earlier prompts. Under the box,
 * a toolbar: the paperclip, what the pane puts there (the provider and model), Send.
 */
export function Composer({
  value,
  onChange,
  onSend,
  onCommand,
  onStop,
  running,
  textarea,
  placeholder,
  attachments,
  onAttachmentsChange,
  chatId,
  folder,
  history,
  autoFocus = false,
  toolbar,
}: ComposerProps) {
  const api = useApi()
  const hintId = useId()
  const menuId = useId()
  const empty = value.trim() === ''
  const [picking, setPicking] = useState(false)
  const [prompts, setPrompts] = useState<McpServerPrompts[] | { error: string }>()
  const [commands, setCommands] = useState<SlashCommand[] | { error: string }>()
  const [active, setActive] = useState(0)
  /** The menu Escape closed, by its key: it stays closed while that key holds. */
  const [dismissedAt, setDismissedAt] = useState<string | null>(null)
  const [asking, setAsking] = useState<PromptChoice>()
  const [promptError, setPromptError] = useState<string>()
  const [caret, setCaret] = useState(0)
  const [files, setFiles] = useState<FolderFiles | { error: string }>()
  const [attachError, setAttachError] = useState<string>()
  const [dropping, setDropping] = useState(false)
  const recall = usePromptHistory(history, value, onChange)
  const imageInput = useRef<HTMLInputElement>(null)

  // `/` then a command with no space yet: the menu of commands and prompts.
  const query = /^\/\S*$/.test(value) ? value.slice(1) : null
  // `@` then a path with no space yet, right before the caret, in a chat with a folder: its files.
  const mention = folder ? mentionAt(value, caret) : null
  // A command's key is all that is typed, so typing on after Escape opens the menu again; a mention's
  // is where it starts, so it stays closed until the mention is left.
  const menuKey = query ?? (mention ? `@${mention.start}` : null)
  const dismissed = menuKey !== null && dismissedAt === menuKey
  const fileMenuOpen = mention !== null && query === null && !dismissed && !recall.browsing
  const promptMenuOpen = query !== null && !dismissed && !asking
  const menuOpen = promptMenuOpen || fileMenuOpen
  const fileChoices = fileMenuOpen && files && !('error' in files) ? files.files : []
  const slashChoices = matchingChoices(
    [
      ...(commands && !('error' in commands) ? commands : []).map(
        (command): SlashChoice => ({ kind: 'command', command }),
      ),
      ...(prompts && !('error' in prompts) ? prompts : []).flatMap(({ server, prompts }) =>
        prompts.map((prompt): SlashChoice => ({ kind: 'prompt', choice: { server, prompt } })),
      ),
    ],
    query ?? '',
  )
  const choiceCount = fileMenuOpen ? fileChoices.length : slashChoices.length
  const activeIndex = Math.min(active, Math.max(choiceCount - 1, 0))

  // Commands and the servers' prompts are asked for each time the menu opens, so a command file or
  // a server added meanwhile is in it. The commands come at once; a server may take a while.
  const opening = query !== null && !dismissed
  useEffect(() => {
    if (!opening) return
    let live = true
    setCommands(undefined)
    setPrompts(undefined)
    api.commands.list({ chatId }).then(
      (value) => live && setCommands(value),
      (failure: unknown) => live && setCommands({ error: errorMessage(failure) }),
    )
    api.mcp.prompts({}).then(
      (value) => live && setPrompts(value),
      (failure: unknown) => live && setPrompts({ error: errorMessage(failure) }),
    )
    return () => {
      live = false
    }
  }, [api, chatId, opening])

  // The folder is searched as the mention is typed; an answer to an older query is dropped.
  const mentionQuery = fileMenuOpen ? mention.query : null
  useEffect(() => {
    if (mentionQuery === null) return
    let live = true
    api.folders.files({ chatId, query: mentionQuery }).then(
      (value) => live && setFiles(value),
      (failure: unknown) => live && setFiles({ error: errorMessage(failure) }),
    )
    return () => {
      live = false
    }
  }, [api, chatId, mentionQuery])

  useEffect(() => {
    if (menuKey === null) setDismissedAt(null)
  }, [menuKey])

  const fill = (text: string) => {
    setAsking(undefined)
    setPromptError(undefined)
    onChange(text)
    textarea.current?.focus()
  }

  const chooseFile = (path: string) => {
    if (!mention) return
    setActive(0)
    const { text, caret: after } = fileMention(value, mention, path)
    onChange(text)
    onAttachmentsChange((current) =>
      current.some((item) => item.kind === 'file' && item.path === path)
        ? current
        : [...current, { kind: 'file', path, name: path.split('/').at(-1) ?? path }],
    )
    setCaret(after)
    // The box's own caret follows once React has put the new text in it.
    requestAnimationFrame(() => textarea.current?.setSelectionRange(after, after))
  }

  /** The paperclip's "File from the folder": an `@` at the caret opens the folder's search. */
  const startMention = () => {
    const box = textarea.current
    const at = box?.selectionStart ?? value.length
    const before = value.slice(0, at)
    const inserted = before === '' || /\s$/.test(before) ? '@' : ' @'
    const after = at + inserted.length
    setDismissedAt(null)
    onChange(before + inserted + value.slice(at))
    setCaret(after)
    box?.focus()
    requestAnimationFrame(() => textarea.current?.setSelectionRange(after, after))
  }

  const attachImages = async (images: File[]) => {
    setAttachError(undefined)
    const added: ComposerAttachment[] = []
    for (const file of images) {
      const read = await readImage(file)
      if ('error' in read) setAttachError(read.error)
      else added.push(read)
    }
    if (added.length > 0) onAttachmentsChange((current) => [...current, ...added])
  }

  const onPaste = (event: ClipboardEvent<HTMLTextAreaElement>) => {
    const images = imageFiles(event.clipboardData)
    if (images.length === 0) return
    // An image's bytes go as an attachment; its name (or a copied file's text) stays out of the box.
    event.preventDefault()
    void attachImages(images)
  }

  const onDragOver = (event: DragEvent) => {
    if (!event.dataTransfer.types.includes('Files')) return
    event.preventDefault()
    setDropping(true)
  }

  const onDrop = (event: DragEvent) => {
    setDropping(false)
    const images = imageFiles(event.dataTransfer)
    if (images.length === 0) return
    event.preventDefault()
    void attachImages(images)
    textarea.current?.focus()
  }

  const choose = (slash: SlashChoice) => {
    setActive(0)
    if (slash.kind === 'command') {
      const { name, takesArguments } = slash.command
      if (takesArguments) fill(`/${name} `)
      else onCommand(`/${name}`)
      return
    }
    const { choice } = slash
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
        if (choiceCount > 0) setActive((activeIndex + step + choiceCount) % choiceCount)
        return
      }
      if (event.key === 'Escape') {
        event.preventDefault()
        setDismissedAt(menuKey)
        return
      }
      if ((event.key === 'Enter' && !event.shiftKey) || (event.key === 'Tab' && fileMenuOpen)) {
        const file = fileMenuOpen ? fileChoices[activeIndex] : undefined
        const slash = promptMenuOpen ? slashChoices[activeIndex] : undefined
        if (file !== undefined || slash) {
          event.preventDefault()
          if (file !== undefined) chooseFile(file)
          else if (slash) choose(slash)
          return
        }
      }
    }
    if (
      (event.key === 'ArrowUp' || event.key === 'ArrowDown') &&
      !event.shiftKey &&
      !event.altKey &&
      !event.metaKey &&
      !event.ctrlKey &&
      !event.nativeEvent.isComposing &&
      recall.move(event.key === 'ArrowUp' ? 'up' : 'down', event.currentTarget)
    ) {
      event.preventDefault()
      return
    }
    if (event.key === 'Escape' && recall.leave()) {
      event.preventDefault()
      return
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

  const fileStatus =
    files === undefined
      ? 'Looking through the folder…'
      : 'error' in files
        ? `The folder's files could not be listed: ${files.error}`
        : files.folderMissing
          ? 'The chat’s folder is gone (deleted, moved, or on a drive that is not mounted), so it has no files to mention. Choose a folder in the header.'
          : files.files.length === 0
            ? mention?.query
              ? `No file of the folder matches “@${mention.query}”.`
              : 'The folder has no files to mention.'
            : null
  // The commands show as soon as they come; the servers' prompts may follow.
  const slashStatus =
    commands === undefined && prompts === undefined
      ? 'Loading the commands…'
      : commands !== undefined && 'error' in commands
        ? `The commands could not be listed: ${commands.error}`
        : prompts !== undefined && 'error' in prompts
          ? `The MCP prompts could not be listed: ${prompts.error}`
          : slashChoices.length === 0
            ? prompts === undefined
              ? 'Asking the MCP servers for their prompts…'
              : `No command or MCP prompt matches “/${query}”.`
            : null

  return (
    <>
      <form
        className={`composer${dropping ? ' composer--dropping' : ''}`}
        onSubmit={onSubmit}
        onDragOver={onDragOver}
        // Leaving for one of the form's own children is not leaving the form.
        onDragLeave={(event) => {
          if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setDropping(false)
        }}
        onDrop={onDrop}
        aria-label="Compose a message"
      >
        <AttachmentChips
          attachments={attachments}
          label="Attachments"
          onRemove={(removed) => {
            onAttachmentsChange((current) => current.filter((attachment) => attachment !== removed))
            textarea.current?.focus()
          }}
        />
        {fileMenuOpen && (
          <ComposerMenu
            id={menuId}
            label="Files of the folder"
            options={fileChoices.map(fileOption)}
            active={activeIndex}
            status={fileStatus}
            onChoose={(index) => {
              const file = fileChoices[index]
              if (file !== undefined) chooseFile(file)
            }}
          />
        )}
        {promptMenuOpen && (
          <ComposerMenu
            id={menuId}
            label="Commands"
            options={slashChoices.map(slashOption)}
            active={activeIndex}
            status={slashStatus}
            onChoose={(index) => {
              const slash = slashChoices[index]
              if (slash) choose(slash)
            }}
          />
        )}
        {attachError && (
          <p className="inline-error composer-error" role="alert">
            {attachError}
          </p>
        )}
        {promptError && (
          <p className="inline-error composer-error" role="alert">
            The prompt could not be used: {promptError}
          </p>
        )}
        <div className="composer-box">
          <textarea
            ref={textarea}
            className="composer-input"
            aria-label="Message"
            aria-describedby={hintId}
            aria-controls={menuOpen ? menuId : undefined}
            aria-activedescendant={
              menuOpen && choiceCount > 0 ? menuOptionId(menuId, activeIndex) : undefined
            }
            placeholder={placeholder}
            // biome-ignore lint/a11y/noAutofocus: a chat the person just made is made to be written in
            autoFocus={autoFocus}
            rows={1}
            value={value}
            onChange={(event) => {
              setActive(0)
              setPromptError(undefined)
              recall.typed()
              setCaret(event.target.selectionStart)
              onChange(event.target.value)
            }}
            onSelect={(event) => setCaret(event.currentTarget.selectionStart)}
            onKeyDown={onKeyDown}
            onPaste={onPaste}
          />
          <div className="composer-toolbar">
            <AttachMenu
              choices={[
                {
                  label: 'File from the folder',
                  hint: folder ? 'Search its files, as @ does' : 'Choose a folder for the chat first',
                  disabled: !folder,
                  onChoose: startMention,
                },
                {
                  label: 'Image from disk',
                  hint: 'PNG, JPEG, GIF or WebP',
                  onChoose: () => imageInput.current?.click(),
                },
                {
                  label: 'MCP resource',
                  hint: 'From a connected MCP server',
                  onChoose: () => setPicking(true),
                },
              ]}
            />
            <input
              ref={imageInput}
              type="file"
              accept={IMAGE_MIME_TYPES.join(',')}
              multiple
              hidden
              aria-label="Images to attach"
              onChange={(event) => {
                const chosen = [...(event.target.files ?? [])]
                // Cleared, so choosing the same file again is a change again.
                event.target.value = ''
                textarea.current?.focus()
                if (chosen.length > 0) void attachImages(chosen)
              }}
            />
            {toolbar}
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
        </div>
        <p id={hintId} className="composer-hint">
          <kbd>Enter</kbd> to send · <kbd>Shift</kbd>+<kbd>Enter</kbd> for a new line · <kbd>/</kbd> for
          commands
          {folder ? (
            <>
              {' '}
              · <kbd>@</kbd> for files
            </>
          ) : null}
          {history.length > 0 ? (
            <>
              {' '}
              · <kbd>↑</kbd> for earlier prompts
            </>
          ) : null}
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
          onAttach={(attachment) => onAttachmentsChange((current) => [...current, attachment])}
          onClose={() => setPicking(false)}
        />
      )}
      {asking && (
        <PromptArgumentsDialog choice={asking} onFilled={fill} onClose={() => setAsking(undefined)} />
      )}
    </>
  )
}
