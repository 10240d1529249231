import { existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { Checkpoint, RestoreOutcome } from '../../../src-shared/checkpoints'
import { type FakeProvider, startFakeProvider } from '../../support/fake-provider'
import { useTempDirs } from '../../support/temp-dir'
import { atelier, fakeRunArgs } from './built-cli'

describe('atelier checkpoints', { timeout: 120_000 }, () => {
  const tempDir = useTempDirs()
  const cleanups: (() => unknown)[] = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup()
  })

  it('lists a turn that changed the folder, shows its diff, and restores it (and redoes)', async () => {
    const fake: FakeProvider = await startFakeProvider()
    cleanups.push(() => fake.close())
    const dataDir = tempDir()
    const project = realpathSync(tempDir())
    writeFileSync(join(project, 'notes.txt'), 'keep\n')
    fake.enqueue(
      {
        toolCalls: [
          {
            id: 'w',
            name: 'write_file',
            arguments: JSON.stringify({ path: 'plan.md', content: '# Plan\n' }),
          },
        ],
      },
      { text: 'Written.' },
    )
    const run = await atelier(
      dataDir,
      ...fakeRunArgs(fake, project, 'write a plan', '--approval', 'full-auto', '--chat', 'C'),
    )
    expect(run.code, run.stderr).toBe(0)
    expect(existsSync(join(project, 'plan.md'))).toBe(true)

    const listed = await atelier(dataDir, 'checkpoints', 'list', '--chat', 'C', '--json')
    const [checkpoint] = JSON.parse(listed.stdout) as Checkpoint[]
    expect(checkpoint).toMatchObject({ kind: 'turn', added: 1, modified: 0, deleted: 0, undoneBy: null })

    const diff = await atelier(dataDir, 'checkpoints', 'diff', checkpoint?.id ?? '')
    expect(diff.stdout).toContain('added plan.md (write_file)')
    expect(diff.stdout).toContain('+# Plan')

    const restored = await atelier(
      dataDir,
      'checkpoints',
      'restore',
      checkpoint?.id ?? '',
      '--files-only',
      '--json',
    )
    const outcome = JSON.parse(restored.stdout) as RestoreOutcome
    expect(outcome.restored).toEqual(['plan.md'])
    expect(existsSync(join(project, 'plan.md'))).toBe(false)
    expect(readFileSync(join(project, 'notes.txt'), 'utf8')).toBe('keep\n')

    const redo = await atelier(dataDir, 'checkpoints', 'restore', outcome.checkpointId ?? '')
    expect(redo.stdout).toContain('Restored 1: plan.md')
    expect(readFileSync(join(project, 'plan.md'), 'utf8')).toBe('# Plan\n')

    const check = await atelier(dataDir, 'checkpoints', 'check')
    expect(check).toMatchObject({ code: 0, stdout: 'The checkpoint store is sound.\n' })
  })

  it('refuses --files-only with --conversation-only, and an unknown checkpoint, with a clear error', async () => {
    const dataDir = tempDir()
    const both = await atelier(dataDir, 'checkpoints', 'restore', 'x', '--files-only', '--conversation-only')
    expect(both.code).toBe(1)
    expect(both.stderr).toContain('not both')
    const unknown = await atelier(dataDir, 'checkpoints', 'diff', 'nope')
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain('No checkpoint with id "nope"')
  })
})
