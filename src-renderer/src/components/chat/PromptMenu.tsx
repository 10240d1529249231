import type { McpPromptInfo } from '../../../../src-shared/mcp-catalog'
import type { MenuOption } from './ComposerMenu'

export interface PromptChoice {
  server: string
  prompt: McpPromptInfo
}

export const promptCommand = ({ server, prompt }: PromptChoice) => `/${server}:${prompt.name}`

/** One MCP prompt as an option of the `/` menu: its command, what it does, its arguments. */
export function promptOption(choice: PromptChoice): MenuOption {
  const description = choice.prompt.description ?? choice.prompt.title
  return {
    key: promptCommand(choice),
    content: (
      <>
        <span className="prompt-menu-command">{promptCommand(choice)}</span>
        {description && <span className="prompt-menu-description">{description}</span>}
        {choice.prompt.arguments.length > 0 && (
          <span className="prompt-menu-arguments">
            {choice.prompt.arguments
              .map((argument) => (argument.required ? argument.name : `${argument.name}?`))
              .join(' ')}
          </span>
        )}
      </>
    ),
  }
}
