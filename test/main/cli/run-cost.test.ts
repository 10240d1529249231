/** `atelier run --json` (the built CLI): each `usage` event carries the response's cost where its model has a price. */
import { realpathSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { createAtelier } from '../../../src-main/app/create-atelier'
import type { TurnEvent } from '../../../src-shared/agent'
import type { Usage } from '../../../src-shared/usage'
import { FAKE_ENV } from '../../support/agent-harness'
import { useTempDirs } from '../../support/temp-dir'
import { atelierWith, fakeRunArgs, useFakeProviders } from './built-cli'

/** At $2 / $0.50 / $8 per million: 600 × 2 + 400 × 0.5 + 100 × 8 = $0.0022. */
const USAGE = { inputTokens: 1000, cachedTokens: 400, outputTokens: 100 }

function usageEvents(stdout: string): Usage[] {
  return stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as TurnEvent)
    .flatMap((event) => (event.type === 'usage' ? [event.usage] : []))
}

describe('atelier run --json usage events (built CLI)', { timeout: 120_000 }, () => {
  const tempDir = useTempDirs()
  const startFake = useFakeProviders()

  it('carry costUsd at the price stated for the provider’s model, and only tokens without one', async () => {
    const fake = await startFake()
    const project = realpathSync(tempDir())
    const dataDir = tempDir()
    const app = createAtelier({ dataDir, env: {} })
    const provider = app.providers.create({
      kind: 'openai-chat',
      name: 'Fake',
      baseUrl: fake.baseUrlFor('openai-chat'),
    })
    app.prices.set({ providerId: provider.id, model: 'm', price: { input: 2, cachedInput: 0.5, output: 8 } })
    await app.close()
    fake.enqueue({ text: 'Priced.', usage: USAGE }, { text: 'Unpriced.', usage: USAGE })

    const priced = await atelierWith(FAKE_ENV, dataDir, ...fakeRunArgs(fake, project, 'Hello', '--json'))
    expect(priced.code, priced.stderr).toBe(0)
    const [usage] = usageEvents(priced.stdout)
    expect(usage?.costUsd).toBeCloseTo(0.0022, 12)

    const unpriced = await atelierWith(
      FAKE_ENV,
      dataDir,
      ...fakeRunArgs(fake, project, 'Hello', '--json').map((arg) => (arg === 'm' ? 'other-model' : arg)),
    )
    expect(unpriced.code, unpriced.stderr).toBe(0)
    expect(usageEvents(unpriced.stdout)).toEqual([USAGE])
  })
})
