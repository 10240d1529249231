import { type ChildProcess, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { createAtelier } from '../../../src-main/app/create-atelier'
import { useTempDirs } from '../../support/temp-dir'

const WRITER = fileURLToPath(new URL('../../fixtures/commit-writer.ts', import.meta.url))
const ROUNDS = 20

function startWriter(dataDir: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', WRITER, dataDir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk
  })
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk
  })
  const ready = new Promise<void>((resolve, reject) => {
    const poll = setInterval(() => {
      if (output.startsWith('ready\n')) resolve()
      else if (child.exitCode !== null) reject(new Error(`writer exited early: ${stderr}`))
      else return
      clearInterval(poll)
    }, 5)
  })
  /** Ids whose line arrived whole: a line cut by the kill was never reported committed. */
  const committed = () => output.split('\n').slice(1, -1)
  return { child, ready, committed }
}

function killHard(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve())
    child.kill('SIGKILL')
  })
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('database durability', () => {
  const tempDir = useTempDirs()

  it('keeps every reported commit and an intact file when the writer is SIGKILLed at random moments', async () => {
    const dataDir = tempDir()
    const reported = new Set<string>()
    for (let round = 0; round < ROUNDS; round++) {
      const writer = startWriter(dataDir)
      // Every fourth round dies at any point of its life, opening and migrating included.
      if (round % 4 === 3) await sleep(Math.random() * 800)
      else {
        await writer.ready
        await sleep(Math.random() * 250)
      }
      await killHard(writer.child)
      for (const id of writer.committed()) reported.add(id)

      const atelier = createAtelier({ dataDir })
      try {
        expect(atelier.db.pragma('integrity_check', { simple: true })).toBe('ok')
        const present = new Set(atelier.chats.list().map((chat) => chat.id))
        const missing = [...reported].filter((id) => !present.has(id))
        expect(missing, `round ${round}: committed rows lost`).toEqual([])
      } finally {
        atelier.close()
      }
    }
    // The test means nothing unless the writer really committed rows before dying.
    expect(reported.size).toBeGreaterThan(ROUNDS * 10)
  }, 180_000)
})
