import { resolve } from 'node:path'
import type { Command } from 'commander'
import type { CustomToolFileInfo, CustomToolsInfo } from '../../../src-shared/custom-tools'
import { printJson, withAtelier } from '../open-atelier'

export function registerCustomToolsCommand(program: Command): void {
  const customTools = program
    .command('custom-tools')
    .description(
      'your own tool modules: ~/.atelier/tools, a trusted project’s .atelier/tools, configured paths',
    )

  customTools
    .command('list')
    .description(
      'every tool file found: loaded tools, load errors, name conflicts, untrusted project folders',
    )
    .option('--cwd <dir>', 'the project folder (default: the current directory)')
    .option('--json', 'as JSON')
    .action((options: { cwd?: string; json?: boolean }, command: Command) =>
      withAtelier(command, async ({ customTools }) => {
        // Loading is what the command is asked for: how each file loads is its answer.
        const info = await customTools.load(resolve(options.cwd ?? process.cwd()))
        if (options.json) return printJson(info)
        process.stdout.write(describe(info))
      }),
    )

  customTools
    .command('env <folder> [names...]')
    .description(
      'the variables a tool folder’s modules get besides PATH, HOME, LANG… (names or PREFIX*); none given: show them',
    )
    .option('--clear', 'pass none: the allowlist alone')
    .action((folder: string, names: string[], options: { clear?: boolean }, command: Command) =>
      withAtelier(command, ({ customTools: service }) => {
        const path = resolve(folder)
        const passed =
          names.length > 0 || options.clear
            ? service.setEnvironment(path, names).names
            : service.environmentOf(path)
        process.stdout.write(
          passed.length === 0 ? 'passed: the allowlist alone\n' : `passed: ${passed.join(' ')}\n`,
        )
      }),
    )

  const folders = program
    .command('folders')
    .description(
      'project folders trusted to run their own custom tools (.atelier/tools, .claude/tools, .codex/tools)',
    )

  folders
    .command('trust <dir>')
    .description(
      'let the project’s tool folders load as they are now (their code runs with your permissions); again after a change to confirm it',
    )
    .action((dir: string, _options: unknown, command: Command) =>
      withAtelier(command, ({ customTools }) => {
        const { folder } = customTools.trust(resolve(dir))
        process.stdout.write(`trusted ${folder}\n`)
      }),
    )

  folders
    .command('untrust <dir>')
    .description('stop loading the project’s tool folders')
    .action((dir: string, _options: unknown, command: Command) =>
      withAtelier(command, async ({ customTools }) => {
        const { folder } = await customTools.untrust(resolve(dir))
        process.stdout.write(`no longer trusted: ${folder}\n`)
      }),
    )

  folders
    .command('list')
    .description('the trusted project folders')
    .option('--json', 'as JSON')
    .action((options: { json?: boolean }, command: Command) =>
      withAtelier(command, ({ customTools }) => {
        const trusted = customTools.trustedFolders()
        if (options.json) return printJson(trusted)
        process.stdout.write(trusted.length === 0 ? 'no folder is trusted\n' : `${trusted.join('\n')}\n`)
      }),
    )
}

function describe(info: CustomToolsInfo): string {
  const skipped = info.skippedPaths.map(({ path, reason }) => `skipped    ${path}: ${reason}`)
  if (info.folders.length === 0) return `${['no custom tool files found', ...skipped].join('\n')}\n`
  const lines = info.folders.flatMap((folder) => [
    `${folder.path}  (${folder.origin}${folder.trusted ? '' : ', not trusted'}${folder.environment.length > 0 ? `, passed: ${folder.environment.join(' ')}` : ''})`,
    ...folder.files.map((file) => `  ${describeFile(file)}`),
  ])
  lines.push(...skipped)
  if (info.trustNeeded) {
    lines.push(
      '',
      info.trustNeeded.changedSinceTrusted
        ? `Tool files changed since you trusted the folder do not run until you trust it again: atelier folders trust ${info.trustNeeded.folder}`
        : `The project's tool files do not run until you trust the folder: atelier folders trust ${info.trustNeeded.folder}`,
    )
  }
  return `${lines.join('\n')}\n`
}

function describeFile(file: CustomToolFileInfo): string {
  const tools = file.tools.map((tool) => tool.name).join(', ')
  switch (file.status) {
    case 'loaded':
      return `loaded     ${file.path}: ${tools || 'no tools'}`
    case 'failed': {
      const place = file.error?.line !== undefined ? `:${file.error.line}:${file.error.column ?? 1}` : ''
      return `failed     ${file.path}${place}: ${file.error?.message ?? 'did not load'}`
    }
    case 'conflict': {
      const taken = (file.conflicts ?? []).map(({ name, heldBy }) => `${name} is taken by ${heldBy}`)
      return `conflict   ${file.path}: ${taken.join('; ')}${tools ? ` (loaded: ${tools})` : ''}`
    }
    case 'duplicate':
      return `duplicate  ${file.path}: the same file as ${file.duplicateOf}`
    case 'metadata':
      return `metadata   ${file.path} (never run)`
    case 'untrusted':
      return `untrusted  ${file.path} (the project folder is not trusted)`
    case 'changed':
      return `changed    ${file.path} (added or edited since the folder was trusted: not run until you trust it again)`
    case 'pending':
      return `pending    ${file.path}`
  }
}
