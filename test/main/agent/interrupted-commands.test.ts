import { spawn, spawnSync } from 'node:child_process'
import { afterEach, describe, expect, it } from 'vitest'
import { type Atelier, createAtelier } from '../../../src-main/app/create-atelier'
import { processStartTime } from '../../../src-main/core/process-owner'
import { useTempDirs } from '../../support/temp-dir'

/** A pid no process has any more: one that has just exited. */
function deadPid(): number {
  return spawnSync('true').pid as number
}

/** A turn of `owner`'s running a shell call whose command is process `pid`, as stored while it ran. */
function storeRunningCommand(atelier: Atelier, chatId: string, owner: number, pid: number): void {
  const turn = `turn-${owner}`
  atelier.db
    .prepare("INSERT INTO turns (id, chat_id, status, pid, started_at) VALUES (?, ?, 'running', ?, 1)")
    .run(turn, chatId, owner)
  atelier.db
    .prepare(
      `INSERT INTO tool_calls (turn_id, id, chat_id, name, call_index, status, created_at, started_at)
       VALUES (?, 'call_bash', ?, 'bash', 0, 'executing', 2, 2)`,
    )
    .run(turn, chatId)
  atelier.db
    .prepare(
      `INSERT INTO running_commands (chat_id, call_id, pid, process_started, stdout, stderr, started_at)
       VALUES (?, 'call_bash', ?, ?, 'step 1 done', 'warning: slow', 2)`,
    )
    .run(chatId, pid, processStartTime(pid) ?? null)
}

describe('answerInterruptedCommands', () => {
  const tempDir = useTempDirs()
  const kills: (() => void)[] = []
  afterEach(() => {
    for (const kill of kills.splice(0)) kill()
  })

  it('tells of a command that still runs after Atelier died: its process and its output so far', () => {
    const command = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' })
    const pid = command.pid as number
    kills.push(() => process.kill(-pid, 'SIGKILL'))
    const dataDir = tempDir()
    const first = createAtelier({ dataDir })
    const chat = first.chats.create({})
    storeRunningCommand(first, chat.id, deadPid(), pid)
    first.close()

    const second = createAtelier({ dataDir })
    try {
      const { messages, calls } = second.agent.conversation({ id: chat.id })
      expect(calls[0]).toMatchObject({ status: 'failed', errorType: 'interrupted' })
      const result = messages.at(-1)?.parts[0]
      expect(result).toMatchObject({ type: 'tool_result', callId: 'call_bash', errorType: 'interrupted' })
      const content = result?.type === 'tool_result' ? result.content : ''
      expect(content).toContain(`It is still running now (process ${pid})`)
      expect(content).toContain('stdout (its end):\nstep 1 done\n')
      expect(content).toContain('stderr (its end):\nwarning: slow\n')
      // Told once: the record is gone with it.
      expect(second.db.prepare('SELECT count(*) AS n FROM running_commands').get()).toEqual({ n: 0 })
    } finally {
      second.close()
    }
  })

  it('leaves the command of a turn another live process runs alone', () => {
    const dataDir = tempDir()
    const first = createAtelier({ dataDir })
    const chat = first.chats.create({})
    storeRunningCommand(first, chat.id, process.ppid, deadPid())
    first.close()

    const second = createAtelier({ dataDir })
    try {
      expect(second.agent.conversation({ id: chat.id }).messages).toEqual([])
      expect(second.db.prepare('SELECT count(*) AS n FROM running_commands').get()).toEqual({ n: 1 })
    } finally {
      second.close()
    }
  })
})
