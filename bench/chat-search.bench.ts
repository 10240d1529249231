/**
 * Chat search (`chats.search`) over 100,000 messages (2,000 in quick mode) in a real SQLite file,
 * written through the conversation repository so the index's triggers do the work they do in use:
 * 1,000 chats of 25 turns, each turn a prompt, an answer calling a tool, the tool's result and a
 * final answer. The text is this checkout's own: prompts and answers are sentences of docs/*.md,
 * the calls' arguments name its files, and their results are runs of lines of its source files.
 *
 * The queries vary as a person's do: a rare word, a common one, two words, a word half typed (a
 * prefix), an identifier; each is timed alone, and the note gives the median and the 95th
 * percentile against the issue's target. The reference is the search an index spares: every
 * message scanned with `LIKE` for the query's first word, the newest first.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Atelier } from '../src-main/app/create-atelier'
import { ChatsRepository } from '../src-main/db/chats-repository'
import { ConversationRepository } from '../src-main/db/conversation-repository'
import { DEFAULT_SEARCH_RESULTS } from '../src-shared/contract'
import { type Benchmark, type BenchmarkResult, median, sized, withBenchAtelier } from './measure'

const CHATS = sized(1000, 20)
const TURNS_PER_CHAT = 25
/** A turn's messages: prompt, answer with a call, the call's result, final answer. */
const MESSAGES_PER_TURN = 4
const QUERIES = sized(300, 20)
/** A `LIKE` scan reads every message: a few are enough to time it. */
const REFERENCE_QUERIES = sized(10, 2)
/** The issue's goal for a search of 100,000 messages. */
const TARGET_MS = 50
const REPO = fileURLToPath(new URL('..', import.meta.url))

/** A small, seeded generator: the same messages and queries on every run. */
function random(seed: number): () => number {
  let state = seed
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31
    return state / 2 ** 31
  }
}

function filesUnder(folder: string, extension: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith(extension))
    .map((path) => join(folder, path))
    .sort()
}

/** The checkout's prose (sentences of its docs) and code (lines of its sources), to write messages with. */
function corpus() {
  const sentences = filesUnder(join(REPO, 'docs'), '.md')
    .flatMap((file) => readFileSync(file, 'utf8').split(/(?<=[.?!])\s+/))
    .map((sentence) => sentence.replace(/\s+/g, ' ').trim())
    .filter((sentence) => sentence.length > 20)
  const sources = filesUnder(join(REPO, 'src-main'), '.ts').map((file) => ({
    path: file.slice(REPO.length),
    lines: readFileSync(file, 'utf8').split('\n'),
  }))
  return { sentences, sources }
}

function pick<T>(items: readonly T[], next: () => number): T {
  return items[Math.floor(next() * items.length)] as T
}

/** Fills the database with CHATS chats through the repositories; returns every word written. */
function fill(atelier: Atelier): string[] {
  const { sentences, sources } = corpus()
  const next = random(39)
  const chats = new ChatsRepository(atelier.db)
  const conversation = new ConversationRepository(atelier.db)
  const prose = (count: number) => Array.from({ length: count }, () => pick(sentences, next)).join(' ')
  const words: string[] = []
  atelier.db.transaction(() => {
    for (let chat = 0; chat < CHATS; chat++) {
      const id = `chat-${chat}`
      chats.insert({
        id,
        title: prose(1).slice(0, 60),
        mode: 'agent',
        workingDir: REPO,
        provider: null,
        model: null,
        agent: null,
        approvalMode: null,
        pinned: false,
        archived: false,
        createdAt: chat,
        updatedAt: chat,
      })
      for (let turn = 0; turn < TURNS_PER_CHAT; turn++) {
        const prompt = prose(1 + Math.floor(next() * 2))
        words.push(...prompt.split(/\W+/))
        const { turn: begun } = conversation.beginTurn(id, prompt)
        const source = pick(sources, next)
        const from = Math.floor(next() * source.lines.length)
        const callId = `call-${chat}-${turn}`
        const args = JSON.stringify({ path: source.path, offset: from, limit: 60 })
        conversation.append(id, begun.id, 'assistant', [
          { type: 'text', text: prose(1) },
          { type: 'tool_call', id: callId, name: 'read_file', arguments: args },
        ])
        const content = source.lines.slice(from, from + 20 + Math.floor(next() * 60)).join('\n')
        conversation.append(id, begun.id, 'tool', [
          { type: 'tool_result', callId, name: 'read_file', content, isError: false },
        ])
        conversation.append(id, begun.id, 'assistant', [
          { type: 'text', text: prose(2 + Math.floor(next() * 4)) },
        ])
        conversation.endTurn(begun.id, 'completed')
      }
    }
  })()
  return words.filter((word) => word.length > 2)
}

/** Queries of every kind a person types, drawn from the words written (most common to rarest). */
function queries(words: readonly string[]): string[] {
  const counts = new Map<string, number>()
  for (const word of words) counts.set(word, (counts.get(word) ?? 0) + 1)
  const byFrequency = [...counts.keys()].sort((a, b) => (counts.get(b) ?? 0) - (counts.get(a) ?? 0))
  const next = random(26)
  const common = byFrequency.slice(0, 50)
  const rare = byFrequency.slice(-Math.max(50, byFrequency.length / 2))
  const kinds = [
    () => pick(common, next),
    () => pick(rare, next),
    () => `${pick(common, next)} ${pick(byFrequency, next)}`,
    () => pick(byFrequency, next).slice(0, 3),
    () => `${pick(byFrequency, next)} `,
    () => pick(['conversation', 'checkpoint', 'AtelierError', 'readFileSync', 'the chat'], next),
  ]
  return Array.from({ length: QUERIES }, (_, index) => (kinds[index % kinds.length] as () => string)())
}

function percentile(values: readonly number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN
}

function timed(run: () => unknown): number {
  const start = process.hrtime.bigint()
  run()
  return Number(process.hrtime.bigint() - start) / 1e6
}

const benchmark: Benchmark = () =>
  withBenchAtelier(async (atelier) => {
    const words = fill(atelier)
    const messages = CHATS * TURNS_PER_CHAT * MESSAGES_PER_TURN
    const asked = queries(words)
    // The first search reads the index from the disk; a person's first search does too, but a run
    // of them measures the search, not the page cache.
    atelier.chatSearch.find({ query: pick(asked, random(1)) })
    let found = 0
    const ours = asked.map((query) =>
      timed(() => {
        found += atelier.chatSearch.find({ query, limit: DEFAULT_SEARCH_RESULTS }).length
      }),
    )
    const scan = atelier.db.prepare(
      'SELECT id FROM messages WHERE parts LIKE ? ORDER BY created_at DESC LIMIT ?',
    )
    const reference = asked
      .slice(0, REFERENCE_QUERIES)
      .map((query) => timed(() => scan.all(`%${query.trim().split(' ')[0]}%`, DEFAULT_SEARCH_RESULTS)))
    const size = atelier.db
      .prepare<[], { bytes: number }>(
        "SELECT sum(pgsize) AS bytes FROM dbstat WHERE name LIKE 'message_search%'",
      )
      .get()
    const row: BenchmarkResult = {
      name: `search ${messages.toLocaleString('en')} messages (${asked.length} queries)`,
      ours: { label: 'chats.search, median', msPerOp: median(ours) },
      reference: { label: 'LIKE scan, median', msPerOp: median(reference) },
      note: [
        `median ${median(ours).toFixed(1)} ms, p95 ${percentile(ours, 0.95).toFixed(1)} ms, max ${Math.max(...ours).toFixed(1)} ms (target ≤ ${TARGET_MS} ms)`,
        `${(found / asked.length).toFixed(1)} results a query`,
        `index ${((size?.bytes ?? 0) / 2 ** 20).toFixed(0)} MiB`,
      ].join('; '),
    }
    return [row]
  })

export default benchmark
