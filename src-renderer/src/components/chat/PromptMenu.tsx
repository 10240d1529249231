import type { McpPromptInfo } from '../../../../src-shared/mcp-catalog'

export interface PromptChoice {
  server: string
  prompt: McpPromptInfo
}

export const promptCommand = ({ server, prompt }: PromptChoice) => `/${server}:${prompt.name}`

/** The options of the `/` menu whose command contains what follows the slash. */
export function matchingPrompts(choices: readonly PromptChoice[], query: string): PromptChoice[] {
  const needle = query.toLowerCase()
  return choices.filter((choice) => promptCommand(choice).slice(1).toLowerCase().includes(needle))
}

export const promptOptionId = (listId: string, index: number) => `${listId}-option-${index}`

/**
 * The `/` menu: the MCP servers' prompts as a listbox under the composer. The textarea keeps focus
 * and drives it (↑/↓ move, Enter chooses, Escape closes), pointing at the active option with
 * `aria-activedescendant`.
 */
export function PromptMenu({
  id,
  choices,
  active,
  status,
  onChoose,
}: {
  id: string
  choices: readonly PromptChoice[]
  active: number
  /** Said instead of options while they load, when they could not, or when none match. */
  status: string | null
  onChoose(choice: PromptChoice): void
}) {
  return (
    <div className="prompt-menu">
      {status && (
        <p className="prompt-menu-status" role="status">
          {status}
        </p>
      )}
      <div id={id} role="listbox" aria-label="MCP prompts" className="prompt-menu-list">
        {choices.map((choice, index) => (
          // biome-ignore lint/a11y/useKeyWithClickEvents: the textarea drives the listbox from the keyboard
          <div
            key={promptCommand(choice)}
            id={promptOptionId(id, index)}
            role="option"
            // Focus stays in the textarea (aria-activedescendant); -1 only makes the option focusable.
            tabIndex={-1}
            aria-selected={index === active}
            className="prompt-menu-option"
            // The textarea keeps focus, so the keyboard goes on working after a click.
            onMouseDown={(event) => event.preventDefault()}
            onClick={() => onChoose(choice)}
          >
            <span className="prompt-menu-command">{promptCommand(choice)}</span>
            {(choice.prompt.description ?? choice.prompt.title) && (
              <span className="prompt-menu-description">
                {choice.prompt.description ?? choice.prompt.title}
              </span>
            )}
            {choice.prompt.arguments.length > 0 && (
              <span className="prompt-menu-arguments">
                {choice.prompt.arguments
                  .map((argument) => (argument.required ? argument.name : `${argument.name}?`))
                  .join(' ')}
              </span>
            )}
          </div>
        ))}
      </div>
    </div>
  )
}
