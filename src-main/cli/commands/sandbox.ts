import { delimiter, resolve } from 'node:path'
import { type Command, InvalidArgumentError } from 'commander'
import type { SandboxInfo, SandboxSettings } from '../../../src-shared/sandbox'
import { printJson, withAtelier } from '../open-atelier'
import { splitAssignment } from './settings'

const SWITCHES = ['enabled', 'network', 'runUnasked', 'escapeInFullAuto', 'customTools'] as const

export function registerSandboxCommand(program: Command): void {
  const sandbox = program
    .command('sandbox')
    .description('the sandbox every command of the agent runs in: what this machine has, and its policy')
  sandbox
    .command('status')
    .description('print whether the sandbox works here (and why not, and what to do), and the policy')
    .option('--json', 'print it as JSON')
    .action((options: { json?: boolean }, command: Command) =>
      withAtelier(command, async ({ sandbox }) => {
        const info = await sandbox.info()
        if (options.json) printJson(info)
        else process.stdout.write(describe(info))
      }),
    )
  sandbox
    .command('set <assignments...>')
    .description(
      `change the policy, e.g. \`network=true\` or \`writablePaths=~/cache${delimiter}/srv/out\` (${SWITCHES.join(', ')}: true or false)`,
    )
    .action((assignments: string[], _options: unknown, command: Command) =>
      withAtelier(command, ({ preferences }) => {
        const changed = parseSandboxAssignments(assignments, preferences.get().sandbox)
        printJson(preferences.update({ sandbox: changed }).sandbox)
      }),
    )
}

/** `NAME=VALUE` pairs over the current settings: the switches take true or false, `writablePaths` a path list. */
export function parseSandboxAssignments(assignments: string[], current: SandboxSettings): SandboxSettings {
  const next = { ...current }
  for (const assignment of assignments) {
    const [name, text] = splitAssignment(assignment)
    if (name === 'writablePaths') {
      next.writablePaths = text === '' ? [] : text.split(delimiter).map((path) => resolve(path))
      continue
    }
    if (!(SWITCHES as readonly string[]).includes(name)) {
      throw new InvalidArgumentError(
        `unknown setting "${name}": one of ${SWITCHES.join(', ')}, writablePaths`,
      )
    }
    if (text !== 'true' && text !== 'false') throw new InvalidArgumentError(`${name} must be true or false`)
    next[name as (typeof SWITCHES)[number]] = text === 'true'
  }
  return next
}

/** The status as a person reads it in a terminal. */
function describe(info: SandboxInfo): string {
  const { settings } = info
  const where = info.available
    ? `available: ${info.kind} (${info.executable}), probe ${Math.round(info.probeMs ?? 0)} ms`
    : `not available: ${info.reason}${info.fix ? `\n  ${info.fix}` : ''}`
  const lines = [
    `Sandbox: ${where}`,
    `Commands run sandboxed: ${settings.enabled ? (info.available ? 'yes' : 'no — not available here') : 'no — off in the settings'}`,
    `Network: ${settings.network ? 'on' : 'off'}`,
    `Writable: the chat's folder (its protected paths read-only) and a private temp folder${settings.writablePaths.map((path) => `, ${path}`).join('')}`,
    `Sandboxed commands run without asking (ask, accept-edits): ${settings.runUnasked ? 'yes' : 'no'}`,
    `Leaving the sandbox in full-auto asks: ${settings.escapeInFullAuto ? 'no' : 'yes'}`,
    `Custom tools' programs (api.exec) sandboxed: ${settings.customTools ? 'yes' : 'no'}`,
  ]
  return `${lines.join('\n')}\n`
}
