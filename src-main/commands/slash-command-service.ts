/**
 * Slash commands of a chat: listing them for the composer's `/` menu and expanding a typed
 * `/name arguments` into the prompt a turn sends. The built-ins come first and cannot be shadowed
 * (`/clear` always clears); then a trusted project's files (`.atelier/commands/`, then
 * `.claude/commands/`), then the person's (`~/.atelier/commands/`) — the nearer file wins, as the
 * nearer AGENTS.md does. A project's files are its own words to the model, so they load only in a
 * folder the person trusts, the same trust that lets its custom tools run.
 */
import { join } from 'node:path'
import { parseSlashText, type SlashCommand } from '../../src-shared/commands'
import type { Chat } from '../../src-shared/contract'
import { AtelierError } from '../../src-shared/errors'
import { projectFolder } from '../agent/tool-projection'
import type { FolderTrust } from '../tools/custom/folder-trust'
import { type CommandFile, expandBody, readCommandFolder, usesArguments } from './command-files'

/** Where a project keeps its commands, nearest first. */
export const PROJECT_COMMAND_FOLDERS = ['.atelier/commands', '.claude/commands']
/** Where the person keeps theirs, under the home folder. */
export const USER_COMMAND_FOLDER = '.atelier/commands'

const INIT_PROMPT = `Write an AGENTS.md for this project: the instructions a coding agent reads before it works here.

First explore the folder: its README and docs, the build and package files, the test setup, the lint and format settings, the layout of the source, and any instruction files already here (AGENTS.md, CLAUDE.md, GEMINI.md, .cursorrules). Read what you need; do not guess.

Then write AGENTS.md at the folder's root with write_file (if one exists, improve it rather than start over). Keep it short and concrete — what an agent cannot see at a glance:
- what the project is, in a sentence or two;
- the commands to build, test (one test file too), lint and format;
- how the code is laid out, and where new code of each kind goes;
- the conventions to follow (naming, style, error handling, tests) and anything to avoid.

No generic advice, nothing made up. When it is written, say in a few lines what it covers.`

const BUILT_INS: readonly (SlashCommand & { prompt?: string })[] = [
  {
    name: 'init',
    description: 'Explore the folder and write an AGENTS.md for it (you approve the write)',
    source: 'built-in',
    runs: 'prompt',
    takesArguments: false,
    prompt: INIT_PROMPT,
  },
  {
    name: 'compact',
    description: 'Summarize the conversation so far to free the context',
    source: 'built-in',
    runs: 'compact',
    takesArguments: false,
  },
  {
    name: 'undo',
    description: "Set the folder back to how it was before the last turn's changes",
    source: 'built-in',
    runs: 'undo',
    takesArguments: false,
  },
  {
    name: 'clear',
    description: 'Start a new chat in the same folder',
    source: 'built-in',
    runs: 'clear',
    takesArguments: false,
  },
  {
    name: 'plan',
    description: 'Switch to plan mode: the agent explores, changes nothing and proposes a plan',
    source: 'built-in',
    runs: 'plan',
    takesArguments: false,
  },
]

/** A prompt made from a command, with what its front matter asks of the turn. */
export interface ExpandedCommand {
  command: SlashCommand
  prompt: string
  /** The agent profile, by name, the turn runs with. */
  agent?: string
  model?: string
}

export interface SlashCommandDeps {
  chat(id: string): Chat
  trust: Pick<FolderTrust, 'of'>
  /** The person's home folder, where `~/.atelier/commands/` is. */
  home: string
}

export class SlashCommandService {
  constructor(private readonly deps: SlashCommandDeps) {}

  /** The commands a chat offers, built-ins first; reads the command folders as they are now. */
  list({ chatId }: { chatId: string }): SlashCommand[] {
    return [...BUILT_INS.map(({ prompt: _prompt, ...command }) => command), ...this.files(chatId).map(listed)]
  }

  /**
   * The prompt `text` makes when it starts with a command's `/name`; null when it names none (it is
   * sent as typed). A built-in action is not a prompt: asking for it here is refused.
   */
  expand({ chatId, text }: { chatId: string; text: string }): ExpandedCommand | null {
    const typed = parseSlashText(text)
    if (!typed) return null
    const builtIn = BUILT_INS.find((command) => command.name === typed.name)
    if (builtIn) {
      const { prompt, ...command } = builtIn
      if (prompt === undefined) throw doneByTheApp(command.name)
      return { command, prompt: expandBody(prompt, typed.arguments) }
    }
    const file = this.files(chatId).find((each) => each.name === typed.name)
    if (!file) return null
    return {
      command: listed(file),
      prompt: expandBody(file.body, typed.arguments),
      ...(file.agent && { agent: file.agent }),
      ...(file.model && { model: file.model }),
    }
  }

  /** The chat's command files, nearest first, one per name; a project's only when it is trusted. */
  private files(chatId: string): (CommandFile & { source: 'user' | 'project' })[] {
    const project = projectFolder(this.deps.chat(chatId))
    const trusted = project !== null && this.deps.trust.of(project) !== undefined
    const found = [
      ...(trusted && project
        ? PROJECT_COMMAND_FOLDERS.flatMap((folder) =>
            readCommandFolder(join(project, folder)).map((file) => ({ ...file, source: 'project' as const })),
          )
        : []),
      ...readCommandFolder(join(this.deps.home, USER_COMMAND_FOLDER)).map((file) => ({
        ...file,
        source: 'user' as const,
      })),
    ]
    const seen = new Set(BUILT_INS.map((command) => command.name))
    return found.filter((file) => !seen.has(file.name) && seen.add(file.name))
  }
}

/** The refusal of a built-in action (`/compact`, `/clear`, `/undo`, `/plan`) asked for as a prompt. */
export function doneByTheApp(name: string): AtelierError {
  // Headless, plan mode is a flag of the run rather than a command.
  const instead = name === 'plan' ? ' (headless: `atelier run --approval plan`)' : ''
  return new AtelierError(
    'unsupported',
    `/${name} is done by the app, not sent to the model: send “/${name}” alone in the chat's message box${instead}.`,
    { command: name },
  )
}

function listed(file: CommandFile & { source: 'user' | 'project' }): SlashCommand {
  return {
    name: file.name,
    // A file without a description is named by its first line, as the menu has room for.
    description: file.description ?? firstLine(file.body),
    source: file.source,
    runs: 'prompt',
    takesArguments: usesArguments(file.body),
    file: file.path,
  }
}

function firstLine(body: string): string {
  const line = body.split('\n', 1)[0]?.trim() ?? ''
  return line.length > 100 ? `${line.slice(0, 99)}…` : line
}
