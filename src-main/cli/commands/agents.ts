import { Value } from '@sinclair/typebox/value'
import { type Command, Option } from 'commander'
import { APPROVAL_MODES, type ApprovalMode, DEFAULT_APPROVAL_MODE } from '../../../src-shared/approvals'
import type { ChatMode } from '../../../src-shared/contract'
import { AtelierError } from '../../../src-shared/errors'
import { type AgentProfile, CreateAgentProfileBody } from '../../../src-shared/providers'
import { DEFAULT_PROFILE } from '../../agent/agent-profiles'
import type { Atelier } from '../../app/create-atelier'
import { printJson, withAtelier } from '../open-atelier'

interface AddOptions {
  tools?: string[]
  mode: ChatMode
  approval: ApprovalMode
  prompt?: string
}

function toolList(value: string): string[] {
  return value
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean)
}

export function registerAgentsCommand(program: Command): void {
  const agents = program
    .command('agents')
    .description('agent profiles: a system prompt, the tools offered and the mode a chat starts in')

  agents
    .command('add <name>')
    .description('add a profile; `atelier run --agent NAME` uses it')
    .option(
      '--tools <names>',
      'the tools it may use, comma-separated, among the enabled ones (default: every enabled tool)',
      toolList,
    )
    .addOption(
      new Option('--mode <mode>', 'the mode its chats start in').choices(['agent', 'chat']).default('agent'),
    )
    .addOption(
      new Option('--approval <mode>', 'the approval mode its chats run in')
        .choices(APPROVAL_MODES)
        .default(DEFAULT_APPROVAL_MODE),
    )
    .option('--prompt <text>', "its system prompt (default: the Default profile's)")
    .action((name: string, options: AddOptions, command: Command) =>
      withAtelier(command, ({ profiles, tools, mcp }) => {
        if (options.tools) assertToolsExist(options.tools, { tools, mcp })
        const body = {
          name,
          systemPrompt: options.prompt ?? DEFAULT_PROFILE.systemPrompt,
          tools: options.tools ?? null,
          defaultMode: options.mode,
          approvalMode: options.approval,
        }
        const invalid = Value.Errors(CreateAgentProfileBody, body).First()
        if (invalid) {
          throw new AtelierError('validation_failed', `Invalid profile: ${invalid.path} ${invalid.message}.`)
        }
        const profile = profiles.create(body)
        process.stdout.write(
          `added ${profile.name}: ${profile.defaultMode} mode, ${profile.approvalMode} approvals, ${toolsOf(profile)}\n`,
        )
      }),
    )

  agents
    .command('list')
    .description('every profile: the built-in Default first, then yours')
    .option('--json', 'as JSON')
    .action((options: { json?: boolean }, command: Command) =>
      withAtelier(command, ({ profiles }) => {
        const list = profiles.list()
        if (options.json) return printJson(list)
        const width = Math.max(...list.map((profile) => profile.name.length))
        for (const profile of list) {
          const origin = `${profile.builtin ? '  (built-in)' : ''}${profile.delegable ? '  (takes tasks)' : ''}`
          process.stdout.write(
            `${profile.name.padEnd(width)}  ${profile.defaultMode.padEnd('agent'.length)}  ${profile.approvalMode.padEnd('accept-edits'.length)}  ${toolsOf(profile)}${origin}\n`,
          )
        }
      }),
    )

  agents
    .command('remove <name>')
    .description('forget a profile; chats that used it go back to Default')
    .action((name: string, _options: unknown, command: Command) =>
      withAtelier(command, ({ profiles }) => {
        profiles.delete({ id: profiles.byName(name).id })
        process.stdout.write(`removed ${name}\n`)
      }),
    )
}

function toolsOf(profile: AgentProfile): string {
  return profile.tools === null ? 'every enabled tool' : profile.tools.join(', ') || 'no tools'
}

/**
 * Every name must be a registered tool, or `server__tool` of a configured MCP server: a server's
 * tools are registered only while it is connected, which is during a turn.
 */
function assertToolsExist(names: string[], { tools, mcp }: Pick<Atelier, 'tools' | 'mcp'>): void {
  const servers = mcp.list().map((server) => `${server.name}__`)
  const unknown = names.filter(
    (name) =>
      !tools.registry.get(name) &&
      !servers.some((prefix) => name.startsWith(prefix) && name.length > prefix.length),
  )
  if (unknown.length > 0) {
    throw new AtelierError(
      'unknown_tool',
      `Unknown tool${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}. \`atelier tools\` lists the tools; an MCP server's are named SERVER__TOOL.`,
      { tools: unknown },
    )
  }
}
