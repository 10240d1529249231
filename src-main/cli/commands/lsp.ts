import type { Command } from 'commander'
import type { LanguageServerInfo, LanguageServerTest } from '../../../src-shared/code-intelligence'
import { printJson, withAtelier } from '../open-atelier'

export function registerLspCommand(program: Command): void {
  const lsp = program
    .command('lsp')
    .description('the language servers behind diagnostics after edits and the code tools')
  lsp
    .command('status')
    .description(
      'print every language server Atelier knows: running, available, missing (with how to install it) or failed',
    )
    .option('--json', 'print it as JSON')
    .action((options: { json?: boolean }, command: Command) =>
      withAtelier(command, ({ languageServers }) => {
        const servers = languageServers.status()
        if (options.json) printJson({ servers })
        else process.stdout.write(describe(servers))
      }),
    )
  lsp
    .command('test <id>')
    .description('start a language server in an empty folder and print what it says it can do')
    .option('--json', 'print it as JSON')
    .action((id: string, options: { json?: boolean }, command: Command) =>
      withAtelier(command, async ({ languageServers }) => {
        const result = await languageServers.test({ id })
        if (options.json) printJson(result)
        else process.stdout.write(describeTest(id, result))
        if (!result.ok) process.exitCode = 1
      }),
    )
}

/** The servers as a person reads them in a terminal: one line each, then how to install the missing ones. */
function describe(servers: LanguageServerInfo[]): string {
  const lines = servers.map((server) => {
    const state = server.enabled ? server.state : 'off'
    const where = server.folders.length > 0 ? ` in ${server.folders.join(', ')}` : ''
    const endings = server.languages.map((language) => `.${language}`).join(' ')
    return `${server.id.padEnd(16)} ${state.padEnd(9)} ${endings}${where}`
  })
  const notes = servers.flatMap((server) => {
    if (server.error) return [`${server.id}: ${server.error}`]
    return server.enabled && server.installHint && server.state === 'missing'
      ? [`${server.id}: ${server.installHint}`]
      : []
  })
  return `${[...lines, ...(notes.length > 0 ? ['', ...notes] : [])].join('\n')}\n`
}

function describeTest(id: string, result: LanguageServerTest): string {
  if (!result.ok) return `${id}: ${result.error}\n`
  const name = result.server ? ` (${result.server})` : ''
  return `${id}${name} started in ${Math.round(result.durationMs)} ms; it can: ${result.capabilities.join(', ')}\n`
}
