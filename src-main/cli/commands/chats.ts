import { readFileSync, writeFileSync } from 'node:fs'
import { type Command, Option } from 'commander'
import type { ChatMessage, MessagePart } from '../../../src-shared/agent'
import type { Chat } from '../../../src-shared/contract'
import { AtelierError } from '../../../src-shared/errors'
import type { Atelier } from '../../app/create-atelier'
import { printJson, withAtelier } from '../open-atelier'
import { describeOutcome } from './checkpoints'

/** Characters of a message shown on its line in `show`. */
const LINE_LENGTH = 100

/**
 * `atelier chats`: the chats of the data folder — list, show, export, import, rename, pin, archive,
 * remove, fork. Returns the `chats` command, for the subcommands kept in files of their own
 * (`atelier chats search`) to be added to.
 */
export function registerChatsCommand(program: Command): Command {
  const chats = program
    .command('chats')
    .description('the chats: list, show, export and import them, rename, pin, archive, remove and fork them')
  chats
    .command('list')
    .description('the chats, pinned first, then newest first; archived ones only with --archived')
    .option('--archived', 'list the archived chats instead')
    .option('--json', 'print them as JSON')
    .action((options: { archived?: boolean; json?: boolean }, command: Command) =>
      withAtelier(command, ({ chats: service }) => {
        const listed = service.list().filter((chat) => chat.archived === (options.archived === true))
        if (options.json) return printJson(listed)
        if (listed.length === 0) return write(options.archived ? 'No archived chats.' : 'No chats.')
        write(listed.map(chatLine).join('\n'))
      }),
    )
  chats
    .command('show <id>')
    .description('a chat: its settings, where it was forked from, its forks, and each message with its id')
    .option('--json', 'print the chat and its conversation as JSON')
    .action((id: string, options: { json?: boolean }, command: Command) =>
      withAtelier(command, ({ chats: service, agent }) => {
        const chat = service.get(id)
        const forks = service.forksOf(id)
        const { messages, turns } = agent.view({ id })
        if (options.json) return printJson({ chat, forks, turns, messages })
        const lines = [
          chatLine(chat),
          `${chat.mode} mode · ${chat.workingDir ?? 'no folder'} · ${chat.model ?? 'the default model'}`,
          ...(chat.forkedFrom
            ? [`Forked from ${chat.forkedFrom.chatId} at message ${chat.forkedFrom.messageId ?? '(none)'}`]
            : []),
          ...forks.map((fork) => `Fork: ${fork.id}  ${fork.title}`),
        ]
        for (const turn of turns) {
          lines.push('', `turn ${turn.id}  ${turn.status}${turn.error ? `: ${turn.error}` : ''}`)
          for (const message of messages.filter((each) => each.turnId === turn.id)) {
            lines.push(`  ${message.id}  ${messageLine(message)}`)
          }
        }
        write(lines.join('\n'))
      }),
    )
  chats
    .command('export <id>')
    .description('a chat as a file: JSON (lossless, for `chats import`) or Markdown (to read)')
    .addOption(new Option('--format <format>', 'the file format').choices(['md', 'json']).default('md'))
    .option('-o, --output <file>', 'write it to this file (default: print it)')
    .action((id: string, options: { format: 'md' | 'json'; output?: string }, command: Command) =>
      withAtelier(command, async ({ chatFiles }) => {
        const file = await chatFiles.export({ id, format: options.format === 'md' ? 'markdown' : 'json' })
        if (options.output) writeFileSync(options.output, file.text)
        else process.stdout.write(file.text)
      }),
    )
  chats
    .command('import <file>')
    .description('a new chat from a JSON export; a file that is not one changes nothing')
    .option('--json', 'print the new chat as JSON')
    .action((path: string, options: { json?: boolean }, command: Command) =>
      withAtelier(command, async ({ chatFiles }) => {
        const chat = await chatFiles.importText(readFileSync(path, 'utf8'))
        if (options.json) printJson(chat)
        else write(`Imported as ${chat.id}  ${chat.title}`)
      }),
    )
  chats
    .command('rename <id> <title>')
    .description("change a chat's title")
    .action((id: string, title: string, _options: unknown, command: Command) =>
      withAtelier(command, ({ chats: service }) => {
        if (!title.trim())
          throw new AtelierError('invalid_parameters', 'A title needs at least one character.')
        write(chatLine(service.rename({ id, title: title.slice(0, 200) })))
      }),
    )
  for (const [name, description, change] of LIST_STATES) {
    chats
      .command(`${name} <id>`)
      .description(description)
      .action((id: string, _options: unknown, command: Command) =>
        withAtelier(command, (atelier) => write(chatLine(change(atelier, id)))),
      )
  }
  chats
    .command('remove <id>')
    .description('delete a chat and its whole conversation')
    .action((id: string, _options: unknown, command: Command) =>
      withAtelier(command, ({ chats: service }) => {
        service.delete({ id })
        write(`Removed ${id}.`)
      }),
    )
  chats
    .command('fork <id>')
    .description(
      'a new chat with the conversation through the turn of a message (--at: a message id from `chats show`, or a turn id); the whole conversation without --at',
    )
    .option('--at <message>', 'the message (or turn) to fork at; its whole turn is copied')
    .option(
      '--restore-files',
      'also set the folder back to how it was when that turn ended, from its checkpoints',
    )
    .option('--json', 'print the fork (and what was restored) as JSON')
    .action(
      (id: string, options: { at?: string; restoreFiles?: boolean; json?: boolean }, command: Command) =>
        withAtelier(command, async ({ agent, checkpoints }) => {
          const at = options.at
          const isMessage =
            at !== undefined && agent.view({ id }).messages.some((message) => message.id === at)
          const forked = await checkpoints.fork({
            id,
            ...(at !== undefined && (isMessage ? { messageId: at } : { turnId: at })),
            ...(options.restoreFiles && { restoreFiles: true }),
          })
          if (options.json) return printJson(forked)
          write(`Forked as ${forked.chat.id}  ${forked.chat.title}`)
          if (forked.restore) process.stdout.write(describeOutcome(forked.restore))
        }),
    )
  return chats
}

/** The commands that pin, unpin, archive and unarchive a chat. */
const LIST_STATES: [string, string, (atelier: Atelier, id: string) => Chat][] = [
  ['pin', 'list a chat first', ({ chats }, id) => chats.pin({ id, pinned: true })],
  ['unpin', 'list a chat among the others again', ({ chats }, id) => chats.pin({ id, pinned: false })],
  ['archive', 'keep a chat, out of the list', ({ chats }, id) => chats.archive({ id, archived: true })],
  [
    'unarchive',
    'bring an archived chat back to the list',
    ({ chats }, id) => chats.archive({ id, archived: false }),
  ],
]

function write(text: string): void {
  process.stdout.write(`${text}\n`)
}

function chatLine(chat: Chat): string {
  const marks = [
    ...(chat.pinned ? ['pinned'] : []),
    ...(chat.archived ? ['archived'] : []),
    ...(chat.forkedFrom ? [`fork of ${chat.forkedFrom.chatId}`] : []),
  ]
  const updated = new Date(chat.updatedAt).toISOString()
  return `${chat.id}  ${updated}  ${chat.title}${marks.length > 0 ? `  [${marks.join(', ')}]` : ''}`
}

/** A message on one line: who, and the start of what it says or does. */
function messageLine(message: ChatMessage): string {
  const text = message.parts.map(partText).filter(Boolean).join(' ').replace(/\s+/g, ' ').trim()
  const who = message.role === 'user' ? 'you' : message.role === 'assistant' ? 'answer' : 'tool'
  return `${who}: ${text.length > LINE_LENGTH ? `${text.slice(0, LINE_LENGTH - 1)}…` : text}`
}

function partText(part: MessagePart): string {
  switch (part.type) {
    case 'text':
      return part.text
    case 'tool_call':
      return `[${part.name}]`
    case 'tool_result':
      return `[${part.name}${part.isError ? ' failed' : ''}] ${part.content}`
    case 'attachment':
      return `[attached ${part.attachment.name}]`
    default:
      return ''
  }
}
