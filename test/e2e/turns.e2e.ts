import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import type { TurnEvent } from '../../src-shared/agent'
import { type FakeProvider, startFakeProvider } from '../support/fake-provider'
import { useTempDirs } from '../support/temp-dir'
import { startApp, useBrowser } from './support'

/**
 * A turn driven from the renderer's `window.atelier` in Chromium, over the web host's WebSocket,
 * against the local fake provider: the same path the chat window takes.
 */
describe('agent turns from the renderer, over the web host', () => {
  const tempDir = useTempDirs()
  const { browser, cleanups } = useBrowser()
  let fake: FakeProvider

  async function open(): Promise<{ page: Page; chatId: string }> {
    fake = await startFakeProvider()
    const app = await startApp(tempDir())
    const context = await browser().newContext()
    cleanups.push(
      () => fake.close(),
      app.stop,
      () => context.close(),
    )
    const page = await context.newPage()
    await page.goto(app.host.url)
    await page.getByRole('navigation', { name: 'Chats' }).waitFor()
    const chatId = await page.evaluate(async (baseUrl) => {
      const api = window.atelier
      if (!api) throw new Error('no window.atelier')
      const provider = await api.providers.create({
        kind: 'openai-chat',
        name: 'Local',
        baseUrl,
        defaultModel: 'm',
      })
      const chat = await api.chats.create({})
      await api.chats.configure({ id: chat.id, provider: provider.id })
      return chat.id
    }, fake.baseUrlFor('openai-chat'))
    return { page, chatId }
  }

  /** Starts a turn in the page and collects its events until it ends; `stopAfterText` presses stop. */
  function runInPage(page: Page, chatId: string, prompt: string, stopAfterText = false) {
    return page.evaluate(
      ({ chatId, prompt, stopAfterText }) =>
        new Promise<TurnEvent[]>((resolve, reject) => {
          const api = window.atelier
          if (!api) return reject(new Error('no window.atelier'))
          const events: TurnEvent[] = []
          const unsubscribe = api.turns.onEvent(({ chatId: id, event }) => {
            if (id !== chatId) return
            events.push(event)
            if (
              stopAfterText &&
              event.type === 'text_delta' &&
              events.filter((e) => e.type === 'text_delta').length === 1
            ) {
              void api.turns.stop({ chatId })
            }
            if (event.type === 'turn_completed' || event.type === 'turn_error') {
              unsubscribe()
              resolve(events)
            }
          })
          api.turns.start({ chatId, prompt }).catch(reject)
        }),
      { chatId, prompt, stopAfterText },
    )
  }

  it('streams a turn to the page and keeps the conversation', async () => {
    const { page, chatId } = await open()
    fake.enqueue({ text: 'Hello from the model.' })
    const events = await runInPage(page, chatId, 'Say hello')

    expect(events[0]).toMatchObject({ type: 'turn_started', chatId })
    const text = events.flatMap((e) => (e.type === 'text_delta' ? [e.text] : [])).join('')
    expect(text).toBe('Hello from the model.')
    expect(events.at(-1)).toMatchObject({ type: 'turn_completed', status: 'completed' })
    const saved = await page.evaluate((id) => window.atelier?.chats.messages({ id }), chatId)
    expect(saved?.messages.map((m) => m.role)).toEqual(['user', 'assistant'])
    expect(saved?.turns).toEqual([expect.objectContaining({ status: 'completed' })])
    // The chat took its title from the prompt, and the sidebar shows it.
    await page
      .getByRole('navigation', { name: 'Chats' })
      .getByRole('button', { name: 'Say hello', exact: true })
      .waitFor()
  })

  it('stops a streaming turn from the page', async () => {
    const { page, chatId } = await open()
    fake.enqueue({ text: 'word '.repeat(500), chunkSize: 5, delayMs: 20 })
    const events = await runInPage(page, chatId, 'Write a lot', true)

    expect(events.at(-1)).toMatchObject({ type: 'turn_completed', status: 'stopped' })
    expect(events.filter((e) => e.type === 'text_delta').length).toBeLessThan(100)
  })

  it('answers a second prompt during a turn with a readable error', async () => {
    const { page, chatId } = await open()
    fake.enqueue({ text: 'slow '.repeat(100), chunkSize: 5, delayMs: 10 })
    const error = await page.evaluate(async (id) => {
      const api = window.atelier
      await api?.turns.start({ chatId: id, prompt: 'first' })
      return api?.turns.start({ chatId: id, prompt: 'second' }).catch((e: unknown) => e)
    }, chatId)
    expect(error).toMatchObject({ code: 'turn_running', message: expect.stringContaining('Stop it first') })
    await page.evaluate((id) => window.atelier?.turns.stop({ chatId: id }), chatId)
  })
})
