import { join } from 'node:path'
import type { Command } from 'commander'
import { DATABASE_FILE } from '../../app/create-atelier'
import { resolveDataDir } from '../../app/data-dir'
import { startFresh } from '../../db/start-fresh'

export function registerDatabaseCommand(program: Command): void {
  const database = program.command('database').description('the database in the data folder')
  database
    .command('start-fresh')
    .description(
      'begin a new, empty database when the one there is damaged or empty: it is moved aside (onto the copy kept of it), never deleted',
    )
    .action((_options: unknown, command: Command) => {
      const { dataDir } = command.optsWithGlobals<{ dataDir?: string }>()
      const file = join(resolveDataDir(dataDir), DATABASE_FILE)
      const setAside = startFresh(file)
      process.stdout.write(
        setAside
          ? `Started a fresh database at ${file}. The one that was there is at ${setAside}.\n`
          : `The database at ${file} opens as it is: nothing was changed.\n`,
      )
    })
}
