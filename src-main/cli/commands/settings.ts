import { type Command, InvalidArgumentError } from 'commander'
import type { ToolParameterDescriptor, UpdateToolSettingsBody } from '../../../src-shared/tools'
import type { Atelier } from '../../app/create-atelier'
import { LOCAL_USER } from '../../app/create-atelier'
import { printJson, withAtelier } from '../open-atelier'
import { loadServedTools } from '../served-tools'

export function registerSettingsCommand(program: Command): void {
  const settings = program.command('settings').description("read or change a tool's settings")
  settings
    .command('get <tool>')
    .description("print a tool's effective settings and its parameter descriptors as JSON")
    .action((tool: string, _options: unknown, command: Command) =>
      withAtelier(command, async (atelier) => {
        await loadUnlessBuiltIn(atelier, tool)
        printJson(atelier.tools.settings.get(LOCAL_USER, tool))
      }),
    )
  settings
    .command('set <tool> <assignments...>')
    .description(
      'change settings, e.g. `enabled=false` or `maxResults=50`; same validation as the settings panel',
    )
    .action((tool: string, assignments: string[], _options: unknown, command: Command) =>
      withAtelier(command, async (atelier) => {
        await loadUnlessBuiltIn(atelier, tool)
        const { tools } = atelier
        const { parameterDescriptors } = tools.settings.get(LOCAL_USER, tool)
        printJson(
          tools.settings.update(LOCAL_USER, tool, parseAssignments(assignments, parameterDescriptors)),
        )
      }),
    )
}

/** A custom tool or a service's tool is in the registry once loaded or connected; a built-in always is. */
async function loadUnlessBuiltIn(atelier: Atelier, tool: string): Promise<void> {
  if (!atelier.tools.registry.get(tool)) await loadServedTools(atelier, null)
}

/**
 * `NAME=VALUE` pairs read by each parameter's declared type. A value that does not read as that
 * type is passed on as text, so the settings validation reports it with the parameter's rule.
 */
export function parseAssignments(
  assignments: string[],
  descriptors: ToolParameterDescriptor[],
): UpdateToolSettingsBody {
  const body: UpdateToolSettingsBody = {}
  for (const assignment of assignments) {
    const [name, text] = splitAssignment(assignment)
    if (name === 'enabled') {
      if (text !== 'true' && text !== 'false') throw new InvalidArgumentError('enabled must be true or false')
      body.enabled = text === 'true'
      continue
    }
    body.parameters ??= {}
    body.parameters[name] = readValue(text, descriptors.find((d) => d.name === name)?.type)
  }
  return body
}

/** `NAME=VALUE` as its name and its text; anything else is refused. */
export function splitAssignment(assignment: string): [name: string, text: string] {
  const equals = assignment.indexOf('=')
  if (equals < 1) throw new InvalidArgumentError(`expected NAME=VALUE, got "${assignment}"`)
  return [assignment.slice(0, equals), assignment.slice(equals + 1)]
}

function readValue(text: string, type: ToolParameterDescriptor['type'] | undefined): unknown {
  switch (type) {
    case 'integer':
    case 'number':
      return text.trim() !== '' && Number.isFinite(Number(text)) ? Number(text) : text
    case 'boolean':
      return text === 'true' ? true : text === 'false' ? false : text
    case 'string-list':
      if (text.startsWith('[')) {
        try {
          return JSON.parse(text)
        } catch {
          return text
        }
      }
      return text
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean)
    default:
      return text
  }
}
