import { type Command, Option } from 'commander'
import { LOCAL_USER } from '../../app/create-atelier'
import { PROVIDER_KINDS, type ProviderKind, toolDefsForProvider } from '../../providers/tool-mapper'
import { getEnabledToolRuntime } from '../../tools/runtime'
import { printJson, withAtelier } from '../open-atelier'
import { modeOption } from './tool'

export function registerInspectCommand(program: Command): void {
  program
    .command('inspect')
    .description('print the exact tool list (wire format) that a turn would send to a provider')
    .addOption(
      new Option('--provider <kind>', 'the wire format').choices(PROVIDER_KINDS).makeOptionMandatory(),
    )
    .option('--model <model>', 'the model the turn would use')
    .option('--cwd <dir>', 'the working folder the turn would use')
    .addOption(modeOption())
    .action((options: { provider: ProviderKind }, command: Command) =>
      withAtelier(command, ({ tools }) => {
        const { definitions } = getEnabledToolRuntime(tools.registry, tools.settings, LOCAL_USER)
        printJson(toolDefsForProvider(options.provider, definitions))
      }),
    )
}
