/**
 * Plans through the built CLI: `--approval plan` reads, prints the plan it proposes on stdout and
 * exits 0 with nothing changed; a live plan's changes go to stderr as a checklist, and `--json`
 * carries them as the calls' results.
 */
import { existsSync, realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { TurnEvent } from '../../../src-shared/agent'
import { FAKE_ENV } from '../../support/agent-harness'
import { useTempDirs } from '../../support/temp-dir'
import { atelierWith, fakeRunArgs, useFakeProviders } from './built-cli'

const PLAN = '# Plan\n\n1. Write hello.txt\n2. Say what changed'

describe('plans in atelier run (built CLI)', { timeout: 120_000 }, () => {
  const tempDir = useTempDirs()
  const startFake = useFakeProviders()

  async function setUp() {
    const fake = await startFake()
    return { fake, project: realpathSync(tempDir()), dataDir: tempDir() }
  }

  it('prints the proposed plan and exits 0 without executing anything in --approval plan', async () => {
    const { fake, project, dataDir } = await setUp()
    writeFileSync(join(project, 'notes.md'), 'Say hello.\n')
    fake.enqueue(
      { toolCalls: [{ name: 'read_file', arguments: JSON.stringify({ path: 'notes.md' }) }] },
      { toolCalls: [{ name: 'propose_plan', arguments: JSON.stringify({ plan: PLAN }) }] },
      // Never reached: the run ends with the plan.
      {
        toolCalls: [{ name: 'write_file', arguments: JSON.stringify({ path: 'hello.txt', content: 'hi' }) }],
      },
    )
    const { code, stdout, stderr } = await atelierWith(
      FAKE_ENV,
      dataDir,
      ...fakeRunArgs(fake, project, 'greet', '--approval', 'plan'),
    )

    expect(stderr).not.toContain('Stopped.')
    expect(code).toBe(0)
    expect(stdout).toContain(PLAN)
    expect(stderr).toContain('✓ read_file')
    expect(existsSync(join(project, 'hello.txt'))).toBe(false)
    expect(fake.requestsOf('openai-chat')).toHaveLength(2)
  })

  it('prints each plan change as a checklist on stderr, and --json carries it as the call result', async () => {
    const { fake, project, dataDir } = await setUp()
    const steps = [
      { step: 'Read the notes', status: 'completed' },
      { step: 'Answer', status: 'in_progress' },
    ]
    const script = () =>
      fake.enqueue(
        { toolCalls: [{ name: 'update_plan', arguments: JSON.stringify({ steps }) }] },
        { text: 'Hello.' },
      )
    script()
    const person = await atelierWith(FAKE_ENV, dataDir, ...fakeRunArgs(fake, project, 'hi'))
    expect(person.code).toBe(0)
    expect(person.stderr).toContain('✓ update_plan')
    expect(person.stderr).toContain('  [x] Read the notes\n  [>] Answer\n')

    script()
    const json = await atelierWith(FAKE_ENV, dataDir, ...fakeRunArgs(fake, project, 'hi', '--json'))
    const events = json.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as TurnEvent)
    const ended = events.find((event) => event.type === 'tool_call' && event.call.result)
    expect(ended?.type === 'tool_call' && ended.call.result?.display).toEqual({ kind: 'plan', steps })
  })
})
