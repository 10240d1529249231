import { fileURLToPath } from 'node:url'
import { type Command, InvalidArgumentError } from 'commander'
import { createAtelier } from '../../app/create-atelier'
import { resolveDataDir } from '../../app/data-dir'
import { startWebHost } from '../../web/web-host'

/** The built renderer sits beside the built CLI: out/main/cli.js → out/renderer. */
const RENDERER_DIR = fileURLToPath(new URL('../renderer', import.meta.url))

export function registerWebCommand(program: Command): void {
  program
    .command('web')
    .description('serve the Atelier UI to a browser on 127.0.0.1, behind a random token')
    .option('-p, --port <port>', 'port to listen on (default: any free port)', parsePort, 0)
    .action(async (options: { port: number }, command: Command) => {
      const { dataDir } = command.optsWithGlobals<{ dataDir?: string }>()
      // A person watches in the browser: custom tools get a UI (hasUI, pending actions).
      const atelier = createAtelier({ dataDir: resolveDataDir(dataDir), hasUI: true })
      const host = await startWebHost({ atelier, rendererDir: RENDERER_DIR, port: options.port })
      process.stdout.write(
        `Atelier is running at ${host.url}\nData: ${atelier.dataDir}\nPress Ctrl+C to stop.\n`,
      )
      const stop = async () => {
        await host.close()
        await atelier.close()
        process.exit(0)
      }
      process.once('SIGINT', stop)
      process.once('SIGTERM', stop)
    })
}

function parsePort(value: string): number {
  const port = Number(value)
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new InvalidArgumentError('expected a whole number from 0 to 65535')
  }
  return port
}
