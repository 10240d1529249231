import { type ChildProcess, spawn } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach } from 'vitest'
import { waitFor } from './custom-tools'
import { killHard } from './fixture-process'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
/** The example joke service's entry point: `--nats URL` or `--stdio`. */
export const JOKE_SERVICE_MAIN = join(ROOT, 'examples', 'joke-service', 'main.ts')

/**
 * The example joke service over NATS, as `npm run example:joke -- --nats URL` runs it: one process
 * a call, ready once it says it is serving, killed after the test.
 */
export function useJokeServices(): (url: string) => Promise<ChildProcess> {
  const children: ChildProcess[] = []
  afterEach(async () => {
    await Promise.all(children.splice(0).map(killHard))
  })
  return async (url) => {
    const child = spawn(process.execPath, ['--import', 'tsx', JOKE_SERVICE_MAIN, '--nats', url], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    children.push(child)
    let stderr = ''
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk
    })
    await waitFor(() => stderr.includes('serving'), `the joke service (${stderr})`)
    return child
  }
}
