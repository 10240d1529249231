import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Type } from '@sinclair/typebox'
import { describe, expect, it } from 'vitest'
import { createAtelier } from '../../../src-main/app/create-atelier'
import { useAgentFixture } from '../../support/agent-harness'
import { useTempDirs } from '../../support/temp-dir'
import { plainTool } from '../../support/test-tools'

/** A command-like tool that writes a file, then never ends: Atelier goes away under it. */
const scribble = plainTool({
  name: 'scribble',
  description: 'Writes made.txt, then works forever.',
  kind: 'execute',
  parameters: Type.Object({}),
  execute: async (_args, context) => {
    writeFileSync(join(context.workingDirectory ?? '', 'made.txt'), 'half done\n')
    await new Promise(() => {})
  },
})

describe('a turn Atelier went away from', () => {
  const fixture = useAgentFixture()
  const tempDir = useTempDirs()

  it('has its checkpoint ended at the next start, its changes put down to the call cut off, and undoable', async () => {
    const dataDir = tempDir()
    const { atelier, chat, fake, project } = await fixture('openai-chat', [scribble], { dataDir })
    fake.enqueue({ toolCalls: [{ id: 'cut', name: 'scribble', arguments: '{}' }] })
    atelier.agent.begin({ chatId: chat.id, prompt: 'scribble' })
    await expect.poll(() => existsSync(join(project, 'made.txt')), { timeout: 10_000 }).toBe(true)
    await atelier.close()

    const again = createAtelier({ dataDir })
    try {
      await again.checkpoints.resumeRestores()
      const [checkpoint] = again.checkpoints.list({ chatId: chat.id }).checkpoints
      expect(checkpoint).toMatchObject({ kind: 'turn', added: 1 })
      expect(checkpoint?.endedAt).not.toBeNull()
      const { files } = again.checkpoints.changes({ id: checkpoint?.id ?? '' })
      expect(files).toMatchObject([
        { path: 'made.txt', change: 'added', by: [{ callId: 'cut', tool: 'scribble' }] },
      ])
      await again.checkpoints.undo({ id: checkpoint?.id ?? '' })
      expect(existsSync(join(project, 'made.txt'))).toBe(false)
    } finally {
      await again.close()
    }
  })
})
