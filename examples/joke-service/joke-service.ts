/**
 * The seed's joke service: a joke about `args.topic` in `config.style`, for `user`. Deterministic
 * (a small table per style, picked by topic) so tests can assert what it says.
 *
 * - `config.style`: `pun` (the default, as the seed) or `dad`; anything else is an `invalid-config` error.
 * - `args.topic`: required; the topic `missing` throws `not-found`, to show the error convention.
 * - `args.stream` or `config.stream` `true`: the joke comes in 3 streamed parts (greeting, setup,
 *   punchline) whose concatenation is the unstreamed joke. `pauseMs` (args or config, ≤ 60000)
 *   waits that long before each later part — a slow stream, to see progress and cancel it.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { DynamicToolService, type InvokeContext, ToolServiceError } from '../../src-tool-service'

interface Joke {
  setup: string
  punchline: string
}

type Style = 'pun' | 'dad'

const LABELS: Record<Style, string> = { pun: 'pun', dad: 'dad joke' }

const JOKES: Record<Style, Record<string, Joke>> = {
  pun: {
    programming: { setup: 'Why do programmers prefer dark mode?', punchline: 'Because light attracts bugs.' },
    animals: { setup: 'What do you call a bear with no teeth?', punchline: 'A gummy bear.' },
    food: { setup: 'I used to be a baker,', punchline: "but I couldn't make enough dough." },
    space: { setup: 'How do you throw a party in space?', punchline: 'You planet.' },
    music: { setup: "What is a skeleton's favourite instrument?", punchline: 'The trom-bone.' },
  },
  dad: {
    programming: { setup: 'Why did the developer go broke?', punchline: 'Because he used up all his cache.' },
    animals: { setup: 'What do you call a fish with no eyes?', punchline: 'A fsh.' },
    food: { setup: 'Why did the cookie go to the doctor?', punchline: 'Because it felt crummy.' },
    space: { setup: "I'm reading a book about anti-gravity.", punchline: "It's impossible to put down." },
    music: { setup: "Why couldn't the string quartet find their composer?", punchline: 'He was Haydn.' },
  },
}

/** For a topic the table does not have. */
function fallback(style: Style, topic: string): Joke {
  return style === 'pun'
    ? { setup: `I tried to make a pun about ${topic},`, punchline: 'but every version fell flat.' }
    : { setup: `I'd tell you a joke about ${topic},`, punchline: "but I'm a dad, not a comedian." }
}

/** The joke in its three parts; joined, they are the whole answer. */
export function jokeParts(user: string, style: Style, topic: string): [string, string, string] {
  const joke = JOKES[style][topic.toLowerCase()] ?? fallback(style, topic)
  const greeting = `Hey ${user || 'there'}! Here's a ${LABELS[style]} about ${topic} for you:\n\n`
  return [greeting, `${joke.setup} `, joke.punchline]
}

export function tellJoke(user: string, style: Style, topic: string): string {
  return jokeParts(user, style, topic).join('')
}

function styleOf(config: Record<string, unknown>): Style {
  const style = config.style ?? 'pun'
  if (style === 'pun' || style === 'dad') return style
  throw new ToolServiceError(
    'invalid-config',
    `Unknown joke style ${JSON.stringify(style)}: use "pun" or "dad"`,
  )
}

function pauseOf(config: Record<string, unknown>, args: Record<string, unknown>): number {
  const pause = args.pauseMs ?? config.pauseMs ?? 0
  return typeof pause === 'number' && Number.isFinite(pause) ? Math.min(Math.max(pause, 0), 60_000) : 0
}

export class JokeService extends DynamicToolService {
  override async invoke(
    user: string,
    config: Record<string, unknown>,
    args: Record<string, unknown>,
    { signal }: InvokeContext,
  ): Promise<string | AsyncIterable<string>> {
    const style = styleOf(config)
    const topic = typeof args.topic === 'string' ? args.topic.trim() : ''
    if (!topic) throw new ToolServiceError('invalid-arguments', 'Give a `topic` (a non-empty string)')
    if (topic.toLowerCase() === 'missing') throw new ToolServiceError('not-found', 'No joke about missing')
    const parts = jokeParts(user, style, topic)
    if (args.stream !== true && config.stream !== true) return parts.join('')
    const pauseMs = pauseOf(config, args)
    return (async function* () {
      for (const [index, part] of parts.entries()) {
        // Stop at once when cancelled (the SDK would drop the rest anyway).
        if (index > 0 && pauseMs > 0) await sleep(pauseMs, undefined, { signal }).catch(() => {})
        if (signal.aborted) return
        yield part
      }
    })()
  }
}
