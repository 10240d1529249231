import type { SlashCommand } from '../../../../src-shared/commands'
import { fuzzyScore } from '../../../../src-shared/fuzzy'
import type { MenuOption } from './ComposerMenu'
import { type PromptChoice, promptCommand, promptOption } from './PromptMenu'

/** One line of the `/` menu: a slash command (built-in or from a file), or an MCP server's prompt. */
export type SlashChoice =
  | { kind: 'command'; command: SlashCommand }
  | { kind: 'prompt'; choice: PromptChoice }

const typedAs = (choice: SlashChoice) =>
  choice.kind === 'command' ? `/${choice.command.name}` : promptCommand(choice.choice)

const SOURCE_LABELS: Record<SlashCommand['source'], string> = {
  'built-in': 'built-in',
  user: 'yours',
  project: 'project',
}

/**
 * The choices whose command fuzzily matches what follows the slash, best first; with nothing typed,
 * the commands in their order, then the MCP prompts.
 */
export function matchingChoices(choices: readonly SlashChoice[], query: string): SlashChoice[] {
  const needle = query.toLowerCase()
  if (needle === '') return [...choices]
  return choices
    .flatMap((choice, order) => {
      const score = fuzzyScore(typedAs(choice).slice(1).toLowerCase(), needle)
      return score === undefined ? [] : [{ choice, score, order }]
    })
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .map(({ choice }) => choice)
}

/** A choice as an option of the `/` menu: its command, what it does, and where it comes from. */
export function slashOption(choice: SlashChoice): MenuOption {
  if (choice.kind === 'prompt') return promptOption(choice.choice)
  const { command } = choice
  return {
    key: typedAs(choice),
    content: (
      // Spaces between the parts, so the option's name reads "/fix Fix an issue takes arguments yours".
      <>
        <span className="prompt-menu-command">/{command.name}</span>{' '}
        {command.description && <span className="prompt-menu-description">{command.description}</span>}{' '}
        {command.takesArguments && <span className="prompt-menu-arguments">takes arguments</span>}{' '}
        <span className="prompt-menu-source">{SOURCE_LABELS[command.source]}</span>
      </>
    ),
  }
}
