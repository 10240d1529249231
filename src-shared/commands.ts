/**
 * Slash commands as every layer sees them: what the composer's `/` menu lists, and how a typed
 * `/name arguments` is read. Listing and expanding them is `src-main/commands/`'s job.
 */
import { type Static, Type } from '@sinclair/typebox'

/**
 * The built-ins the app carries out itself rather than send as a prompt: `compact` compacts the
 * chat now, `clear` opens a new chat in the same folder, `undo` undoes the last turn's changes,
 * `plan` switches the chat to plan mode.
 */
export const SLASH_ACTIONS = ['compact', 'clear', 'undo', 'plan'] as const
export type SlashAction = (typeof SLASH_ACTIONS)[number]

export const SlashCommand = Type.Object({
  /** Typed after the slash: `/name`. */
  name: Type.String(),
  description: Type.String(),
  /** `built-in`; `user`: the person's `~/.atelier/commands/`; `project`: a trusted project's. */
  source: Type.Union([Type.Literal('built-in'), Type.Literal('user'), Type.Literal('project')]),
  /** `prompt`: its text goes to the model as a turn's prompt; an action: the app does it. */
  runs: Type.Union([Type.Literal('prompt'), ...SLASH_ACTIONS.map((action) => Type.Literal(action))]),
  /** Its text uses `$ARGUMENTS` or `$1…$9`: choosing it fills `/name ` for the person to complete. */
  takesArguments: Type.Boolean(),
  /** The Markdown file it comes from; absent for a built-in. */
  file: Type.Optional(Type.String()),
})
export type SlashCommand = Static<typeof SlashCommand>

/** A command's name: a letter or digit, then letters, digits, `.`, `_` or `-`. */
export const COMMAND_NAME = /^[A-Za-z0-9][\w.-]*$/

/** `/name arguments` read from the start of a prompt, or null when the prompt is not one. */
export function parseSlashText(text: string): { name: string; arguments: string } | null {
  const match = /^\/([A-Za-z0-9][\w.-]*)(?:\s+([\s\S]*))?$/.exec(text.trim())
  if (!match) return null
  return { name: match[1] as string, arguments: (match[2] ?? '').trim() }
}

/** The built-in action a prompt names (`/compact`, `/clear`, `/undo`, `/plan`, nothing after), or null. */
export function slashActionOf(text: string): SlashAction | null {
  const parsed = parseSlashText(text)
  if (parsed?.arguments !== '') return null
  return SLASH_ACTIONS.find((action) => action === parsed.name) ?? null
}
