/** What the secret tests look at: the files a copy of the data folder would carry, and a server's environment. */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { type Atelier, DATABASE_FILE, LOCAL_USER } from '../../../../src-main/app/create-atelier'
import { EVERYTHING_SERVER } from '../../../support/mcp-servers'

/** The database's files (main, WAL, shared memory) whose bytes contain `text`, as UTF-8. */
export function databaseFilesHolding(dataDir: string, text: string): string[] {
  return [DATABASE_FILE, `${DATABASE_FILE}-wal`, `${DATABASE_FILE}-shm`].filter((name) => {
    const file = join(dataDir, name)
    return existsSync(file) && readFileSync(file).includes(Buffer.from(text, 'utf8'))
  })
}

/** The reference everything server over stdio, with this environment. */
export function everythingWith(name: string, env: Record<string, string>) {
  return {
    name,
    transport: 'stdio' as const,
    command: process.execPath,
    args: [EVERYTHING_SERVER, 'stdio'],
    env,
  }
}

/**
 * The environment an everything server's process runs with, as its `get-env` tool reports it:
 * the servers are prepared as for a turn, and the tool is called through the executor.
 */
export async function environmentOf(atelier: Atelier, server: string): Promise<Record<string, string>> {
  const statuses = await atelier.mcp.prepare()
  const status = statuses.find((candidate) => candidate.name === server)
  if (!status?.connected) throw new Error(`${server} did not connect: ${status?.error}`)
  const result = await atelier.tools.executor.execute(
    { name: `${server}__get-env`, arguments: {} },
    { user: LOCAL_USER, workingDirectory: null, mode: 'chat', restrict: false },
  )
  if (result.isError) throw new Error(result.content)
  return JSON.parse(result.content) as Record<string, string>
}
