import { afterEach, describe, expect, it } from 'vitest'
import { type Atelier, createAtelier } from '../../../src-main/app/create-atelier'
import { costOf, defaultPrice } from '../../../src-shared/prices'
import { useTempDirs } from '../../support/temp-dir'

describe('PriceService', () => {
  const tempDir = useTempDirs()
  const opened: Atelier[] = []
  afterEach(() => {
    for (const atelier of opened.splice(0)) atelier.close()
  })
  const open = () => {
    const atelier = createAtelier({ dataDir: tempDir(), env: {} })
    opened.push(atelier)
    return atelier
  }

  describe('priceFor', () => {
    it('prices a well-known model (a dated snapshot too) by default at the vendor’s own endpoint only', () => {
      const { prices } = open()
      const official = { id: 'openai-responses', config: { kind: 'openai-responses' as const } }
      expect(prices.priceFor({ ...official, model: 'gpt-4.1-2025-04-14' })).toEqual({
        input: 2,
        cachedInput: 0.5,
        output: 8,
      })
      const proxy = { kind: 'openai-chat' as const, baseUrl: 'http://127.0.0.1:4000/v1' }
      expect(prices.priceFor({ id: 'x', config: proxy, model: 'gpt-4.1' })).toBeUndefined()
      expect(prices.priceFor({ ...official, model: 'llama3.2' })).toBeUndefined()
    })

    it('takes the person’s price over the default, until it is reset', () => {
      const { prices, providers } = open()
      const provider = providers.create({ kind: 'gemini', name: 'Gemini' })
      const resolved = { id: provider.id, config: { kind: 'gemini' as const }, model: 'gemini-2.5-flash' }
      const own = { input: 1, cachedInput: 0.1, output: 3 }
      prices.set({ providerId: provider.id, model: 'gemini-2.5-flash', price: own })
      expect(prices.priceFor(resolved)).toEqual(own)
      const entries = prices.list({ providerId: provider.id })
      expect(entries.find((entry) => entry.model === 'gemini-2.5-flash')).toEqual({
        model: 'gemini-2.5-flash',
        price: own,
        source: 'custom',
      })
      expect(entries.filter((entry) => entry.model === 'gemini-2.5-flash')).toHaveLength(1)
      prices.reset({ providerId: provider.id, model: 'gemini-2.5-flash' })
      expect(prices.priceFor(resolved)).toMatchObject({ input: 0.3, output: 2.5 })
    })

    it('lists no defaults for a provider at another server', () => {
      const { prices, providers } = open()
      const local = providers.create({
        kind: 'openai-chat',
        name: 'Ollama',
        baseUrl: 'http://127.0.0.1:11434/v1',
      })
      expect(prices.list({ providerId: local.id })).toEqual([])
    })
  })
})

describe('costOf', () => {
  it('costs a prompt past Gemini 2.5 Pro’s long-context threshold at the higher price', () => {
    const price = defaultPrice('gemini', 'models/gemini-2.5-pro')
    if (!price) throw new Error('no default for gemini-2.5-pro')
    expect(costOf({ inputTokens: 100_000, outputTokens: 1000 }, price)).toBeCloseTo(0.135, 12)
    expect(costOf({ inputTokens: 300_000, outputTokens: 1000 }, price)).toBeCloseTo(0.765, 12)
  })
})
