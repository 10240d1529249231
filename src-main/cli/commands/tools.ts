import { resolve } from 'node:path'
import type { Command } from 'commander'
import type { ToolSettingsDescriptor } from '../../../src-shared/tools'
import { LOCAL_USER } from '../../app/create-atelier'
import { printJson, withAtelier } from '../open-atelier'
import { loadServedTools } from '../served-tools'

export function registerToolsCommand(program: Command): void {
  program
    .command('tools')
    .description('list every registered tool with its effective settings')
    .option('--json', 'print the full list as JSON')
    .option('--cwd <dir>', "with a trusted project's own custom tools")
    .action((options: { json?: boolean; cwd?: string }, command: Command) =>
      withAtelier(command, async (atelier) => {
        const { tools } = atelier
        await loadServedTools(atelier, options.cwd === undefined ? null : resolve(options.cwd))
        const list = tools.settings.list(LOCAL_USER)
        if (options.json) {
          // A custom tool says where its module is, at the top, as scripts look for it.
          return printJson({
            tools: list.tools.map((tool) =>
              tool.source.kind === 'custom' ? { ...tool, path: tool.source.module } : tool,
            ),
          })
        }
        for (const tool of list.tools) process.stdout.write(`${describe(tool)}\n`)
      }),
    )
}

function describe(tool: ToolSettingsDescriptor): string {
  const state = tool.enabled ? 'on ' : 'off'
  const origin = tool.source.kind === 'builtin' ? '' : ` [${Object.values(tool.source).join(':')}]`
  const parameters = Object.entries(tool.parameters)
    .map(([name, value]) => `${name}=${JSON.stringify(value)}`)
    .join(' ')
  const warning = tool.invalidSavedSettings
    ? `\n      ! saved settings are invalid, defaults in force: ${tool.invalidSavedSettings.message}`
    : ''
  return `${state}  ${tool.name}${origin}  ${tool.title}${parameters ? `  (${parameters})` : ''}${warning}`
}
