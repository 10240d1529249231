/**
 * The joke service, runnable:
 *
 *   npm run example:joke -- --nats nats://127.0.0.1:4222   serve over NATS, announcing itself
 *   npm run example:joke -- --stdio                        serve NDJSON on stdin/stdout
 *
 * Over NATS it serves the queues of joke-service.json and announces that service with the tools
 * tell-joke.json and tell-dad-joke.json (ttl 30 s). Credentials, when the broker needs them, come
 * from NATS_TOKEN, or NATS_USER and NATS_PASS; NATS_QUEUE_GROUP overrides the queue group.
 */
import { readFileSync } from 'node:fs'
import type { NatsServiceDescriptor, ToolDescriptor } from '../../src-tool-service'
import { JokeService } from './joke-service'

const USAGE = 'usage: main.ts --nats URL | --stdio'

function readJson<T>(file: string): T {
  return JSON.parse(readFileSync(new URL(file, import.meta.url), 'utf8')) as T
}

function log(message: string) {
  process.stderr.write(`[joke-service] ${message}\n`)
}

async function main(argv: string[]): Promise<number> {
  const service = new JokeService()
  if (argv.includes('--stdio')) {
    const handle = service.serveStdio()
    const stop = () => void handle.close().then(() => process.exit(0))
    process.once('SIGTERM', stop)
    process.once('SIGINT', stop)
    await handle.done
    return 0
  }
  const at = argv.indexOf('--nats')
  const url = at >= 0 ? argv[at + 1] : undefined
  if (!url || url.startsWith('--')) {
    process.stderr.write(`${USAGE}\n`)
    return 2
  }
  const descriptor = readJson<NatsServiceDescriptor>('./joke-service.json')
  const tools = [
    readJson<ToolDescriptor>('./tell-joke.json'),
    readJson<ToolDescriptor>('./tell-dad-joke.json'),
  ]
  const env = process.env
  const handle = await service.serveNats({
    servers: url,
    requestQueue: descriptor['request-queue'],
    responseQueue: descriptor['response-queue'],
    ...(env.NATS_QUEUE_GROUP ? { queueGroup: env.NATS_QUEUE_GROUP } : {}),
    ...(env.NATS_TOKEN ? { token: env.NATS_TOKEN } : {}),
    ...(env.NATS_USER ? { user: env.NATS_USER, pass: env.NATS_PASS ?? '' } : {}),
    announce: { service: descriptor, tools, ttlSeconds: 30 },
  })
  log(
    `serving ${descriptor.id} on ${url}: requests on ${descriptor['request-queue']}, ` +
      `responses on ${descriptor['response-queue']}; tools ${tools.map((tool) => tool.name).join(', ')}`,
  )
  await new Promise<void>((resolve) => {
    process.once('SIGTERM', resolve)
    process.once('SIGINT', resolve)
  })
  log('stopping')
  await handle.close()
  return 0
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (error: unknown) => {
    log(`failed: ${error instanceof Error ? error.message : String(error)}`)
    process.exitCode = 1
  },
)
