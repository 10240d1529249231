import { type Command, InvalidArgumentError } from 'commander'
import {
  type ChatSearchResult,
  DEFAULT_SEARCH_RESULTS,
  MAX_SEARCH_RESULTS,
} from '../../../src-shared/contract'
import { printJson, withAtelier } from '../open-atelier'

const ROLE_WORDS: Record<ChatSearchResult['role'], string> = {
  user: 'prompt',
  assistant: 'answer',
  tool: 'tool result',
}

/** `atelier chats search QUERY`: the same search as the app's Ctrl/Cmd+K. */
export function addChatSearchCommand(chats: Command): void {
  chats
    .command('search <query...>')
    .description(
      "search every chat's prompts, answers and tool calls (arguments and results) for all the words given, the last one as a prefix; best match first",
    )
    .option(
      '--limit <n>',
      `at most this many results (1 to ${MAX_SEARCH_RESULTS})`,
      parseLimit,
      DEFAULT_SEARCH_RESULTS,
    )
    .option('--json', 'print the results as JSON (the snippet as pieces, each marked when it matched)')
    .action((words: string[], options: { limit: number; json?: boolean }, command: Command) =>
      withAtelier(command, ({ chatSearch }) => {
        const results = chatSearch.find({ query: words.join(' '), limit: options.limit })
        if (options.json) return printJson(results)
        process.stdout.write(results.length === 0 ? 'No message matches.\n' : results.map(describe).join(''))
      }),
    )
}

/** Two lines a result: where it is, then its snippet with each match in [brackets]. */
function describe(result: ChatSearchResult): string {
  const when = new Date(result.createdAt).toISOString().slice(0, 16).replace('T', ' ')
  const snippet = result.snippet.map((piece) => (piece.match ? `[${piece.text}]` : piece.text)).join('')
  return `${result.chatTitle} (${result.chatId}) · ${ROLE_WORDS[result.role]} ${result.messageId} · ${when}\n  ${snippet}\n`
}

function parseLimit(value: string): number {
  const limit = Number(value)
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_SEARCH_RESULTS) {
    throw new InvalidArgumentError(`expected a whole number from 1 to ${MAX_SEARCH_RESULTS}`)
  }
  return limit
}
