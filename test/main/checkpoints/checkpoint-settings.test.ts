import { randomBytes } from 'node:crypto'
import { realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createAtelier } from '../../../src-main/app/create-atelier'
import type { EventPayload } from '../../../src-shared/contract'
import { useTempDirs } from '../../support/temp-dir'

const DAY = 86_400_000
const SHELL = { tool: 'bash', kind: 'execute', source: { kind: 'builtin' }, locations: [] } as const

describe('checkpoint settings', () => {
  const tempDir = useTempDirs()

  function setUp() {
    const folder = realpathSync(tempDir())
    writeFileSync(join(folder, 'a.txt'), 'a')
    const atelier = createAtelier({ dataDir: tempDir() })
    const chat = atelier.chats.create({ workingDir: folder, mode: 'agent' })
    /** A turn whose one shell call writes `path`. */
    const turn = async (id: string, path: string, text: string | Buffer) => {
      const recorder = atelier.checkpoints.forTurn(chat, id)
      await recorder?.around({ ...SHELL, id: `${id}-call` }, new AbortController().signal, async () =>
        writeFileSync(join(folder, path), text),
      )
      await recorder?.finish()
    }
    return { folder, atelier, chat, turn }
  }

  it('records nothing in a folder where checkpoints are off, or when they are off everywhere', async () => {
    const { folder, atelier, chat, turn } = setUp()
    atelier.preferences.update({
      checkpoints: { ...atelier.preferences.get().checkpoints, offFolders: [folder] },
    })
    await turn('t1', 'b.txt', 'b')
    atelier.preferences.update({
      checkpoints: { ...atelier.preferences.get().checkpoints, offFolders: [], enabled: false },
    })
    await turn('t2', 'c.txt', 'c')
    expect(atelier.checkpoints.list({ chatId: chat.id }).checkpoints).toEqual([])
    atelier.preferences.update({ checkpoints: { ...atelier.preferences.get().checkpoints, enabled: true } })
    await turn('t3', 'd.txt', 'd')
    expect(atelier.checkpoints.list({ chatId: chat.id }).checkpoints).toHaveLength(1)
    await atelier.close()
  })

  it('drops checkpoints past the retention days, then the oldest past the size, and the objects only they held', async () => {
    const { atelier, chat, turn } = setUp()
    await turn('old', 'old.txt', 'o'.repeat(100_000))
    await turn('mid', 'mid.txt', 'm'.repeat(100_000))
    await turn('new', 'new.txt', 'n')
    const [old] = atelier.checkpoints.list({ chatId: chat.id }).checkpoints
    const now = (old?.createdAt ?? 0) + 31 * DAY
    // The oldest is past 30 days; the rest are young.
    atelier.db
      .prepare('UPDATE checkpoints SET created_at = created_at + ? WHERE id != ?')
      .run(30 * DAY, old?.id ?? '')
    const first = atelier.checkpoints.prune(now)
    expect(first.removed).toBe(1)
    expect(atelier.checkpoints.list({ chatId: chat.id }).checkpoints.map((c) => c.id)).not.toContain(old?.id)
    expect(atelier.checkpoints.check()).toEqual([])
    await atelier.close()
  })

  it('drops the oldest checkpoints while a folder keeps more than the retention size', async () => {
    const { atelier, chat, turn } = setUp()
    const mib = 1024 * 1024
    atelier.preferences.update({
      checkpoints: {
        ...atelier.preferences.get().checkpoints,
        maxFileBytes: 8 * mib,
        retentionBytes: 16 * mib,
      },
    })
    // Random bytes do not deflate: each turn keeps another 7 MiB version of the file. The first
    // version goes only with the second checkpoint too, which starts from it.
    for (const name of ['one', 'two', 'three']) await turn(name, 'big.bin', randomBytes(7 * mib))
    const { removed } = atelier.checkpoints.prune()
    expect(removed).toBe(2)
    const left = atelier.checkpoints.list({ chatId: chat.id }).checkpoints
    expect(left.map((checkpoint) => checkpoint.turnId)).toEqual(['three'])
    expect(atelier.checkpoints.check()).toEqual([])
    await atelier.close()
  })

  it('takes the first snapshot of a bound folder in the background and says how far it got', async () => {
    const { folder, atelier } = setUp()
    for (let i = 0; i < 50; i++) writeFileSync(join(folder, `f${i}.txt`), `${i}`)
    const progress: EventPayload<'checkpoints.progress'>[] = []
    atelier.events.subscribe((event, payload) => {
      if (event === 'checkpoints.progress') progress.push(payload as EventPayload<'checkpoints.progress'>)
    })
    atelier.checkpoints.warm(folder)
    await atelier.checkpoints.snapshot(folder)
    expect(progress.at(-1)).toMatchObject({ folder, files: 51, done: true })
    await atelier.close()
  })
})
