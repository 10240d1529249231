import type { MenuOption } from './ComposerMenu'

/** An `@` being typed: where it starts and what follows it up to the caret. */
export interface Mention {
  /** The index of the `@`. */
  start: number
  query: string
}

/**
 * The mention the caret is at the end of: an `@` at the start or after a space, then no space up to
 * the caret. An e-mail address (`a@b`) is not one.
 */
export function mentionAt(text: string, caret: number): Mention | null {
  const before = text.slice(0, caret)
  const match = /(^|\s)@([^\s@]*)$/.exec(before)
  if (!match) return null
  const query = match[2] ?? ''
  return { start: caret - query.length - 1, query }
}

/** The text with the mention replaced by `@path ` and where the caret goes after it. */
export function fileMention(text: string, mention: Mention, path: string): { text: string; caret: number } {
  const end = mention.start + 1 + mention.query.length
  const inserted = `@${path} `
  const rest = text.slice(end).replace(/^ /, '')
  return { text: text.slice(0, mention.start) + inserted + rest, caret: mention.start + inserted.length }
}

/** A file of the folder as an option of the `@` menu: its name, then the folder it is in. */
export function fileOption(path: string): MenuOption {
  const slash = path.lastIndexOf('/')
  return {
    key: path,
    content: (
      <>
        <span className="prompt-menu-command">{path.slice(slash + 1)}</span>
        {slash > 0 && <span className="prompt-menu-description">{path.slice(0, slash)}</span>}
      </>
    ),
  }
}
