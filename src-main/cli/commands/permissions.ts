import { resolve } from 'node:path'
import { type Command, Option } from 'commander'
import { type PermissionRule, RULE_ACTIONS, type RuleAction } from '../../../src-shared/approvals'
import { printJson, withAtelier } from '../open-atelier'

interface AddOptions {
  scope: 'project' | 'global'
  cwd?: string
}

export function registerPermissionsCommand(program: Command): void {
  const permissions = program
    .command('permissions')
    .description(
      'saved approval rules: bash(git status*), edit_file(src/**), everything__* — allow, ask or deny',
    )

  permissions
    .command('list')
    .description('every saved rule, with where it holds, where it came from and when it was last used')
    .option('--json', 'as JSON')
    .action((options: { json?: boolean }, command: Command) =>
      withAtelier(command, ({ approvals }) => {
        const rules = approvals.list()
        if (options.json) return printJson(rules)
        if (rules.length === 0) return void process.stdout.write('no rules saved\n')
        for (const rule of rules) process.stdout.write(`${describeRule(rule)}\n`)
      }),
    )

  permissions
    .command('add <rule> <action>')
    .description('save a rule; deny beats ask beats allow')
    .addOption(
      new Option('--scope <scope>', 'project: only in the --cwd folder; global: everywhere')
        .choices(['project', 'global'])
        .default('global'),
    )
    .option('--cwd <dir>', 'the project folder of a project rule (default: the current directory)')
    .action((rule: string, action: string, options: AddOptions, command: Command) =>
      withAtelier(command, ({ approvals }) => {
        if (!(RULE_ACTIONS as readonly string[]).includes(action)) {
          command.error(`action must be one of ${RULE_ACTIONS.join(', ')}, not "${action}"`)
        }
        const saved = approvals.add(
          {
            rule,
            action: action as RuleAction,
            scope: options.scope,
            ...(options.scope === 'project' && { folder: resolve(options.cwd ?? process.cwd()) }),
          },
          'cli',
        )
        process.stdout.write(`added ${describeRule(saved)}\n`)
      }),
    )

  permissions
    .command('remove <id>')
    .description('forget a rule (`permissions list` shows the ids)')
    .action((id: string, _options: unknown, command: Command) =>
      withAtelier(command, ({ approvals }) => {
        approvals.remove({ id })
        process.stdout.write(`removed ${id}\n`)
      }),
    )
}

function describeRule(rule: PermissionRule): string {
  const where =
    rule.scope === 'global'
      ? 'everywhere'
      : rule.scope === 'project'
        ? `in ${rule.folder}`
        : `in chat ${rule.chatId}`
  const used =
    rule.lastUsedAt === null ? 'never used' : `last used ${new Date(rule.lastUsedAt).toISOString()}`
  return `${rule.id}  ${rule.action.padEnd(5)}  ${rule.rule}  (${where}; from ${rule.source}; ${used})`
}
