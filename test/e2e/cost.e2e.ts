import { describe, expect, it } from 'vitest'
import { conversation, screenshot, send, settingsSection, turnOver, useChatApp } from './support'

/** At $2 / $0.50 / $8 per million: 600 × 2 + 400 × 0.5 + 100 × 8 = 2,200 millionths of a dollar. */
const USAGE = { inputTokens: 1000, cachedTokens: 400, outputTokens: 100 }

/**
 * What a chat cost, in Chromium against the web host and the real services: a price stated for the
 * fake provider's model, a response with known usage, and where the figure shows.
 */
describe('the cost of a chat on screen', () => {
  const { open } = useChatApp()

  it('shows a priced response’s cost under it, in the header and in Settings → Usage; the price in Providers', async () => {
    const { page, app, fake, chat } = await open()
    const [provider] = app.atelier.providers.list()
    app.atelier.prices.set({
      providerId: provider?.id ?? '',
      model: 'm',
      price: { input: 2, cachedInput: 0.5, output: 8 },
    })
    fake.enqueue({ text: 'Hello.', usage: USAGE })

    await send(page, 'Say hello')
    await turnOver(page)

    const answer = conversation(page).getByRole('toolbar', { name: 'Answer actions' })
    expect(await answer.textContent()).toContain('1,000 in · 100 out · 400 cached · $0.0022')
    expect(await page.locator('.chat-usage').textContent()).toBe('Chat usage: $0.0022')

    const usage = await settingsSection(page, 'Usage')
    const byChat = usage.getByRole('table', { name: 'Usage by chat' })
    await byChat.waitFor()
    const title = app.atelier.chats.get(chat.id).title
    expect(await byChat.getByRole('row', { name: title }).getByRole('cell').allTextContents()).toEqual([
      '1,000',
      '400',
      '100',
      '$0.0022',
    ])
    await screenshot(page, 'settings-usage')

    const providers = await settingsSection(page, 'Providers')
    await providers.getByText('Prices (1)').click()
    const prices = providers.getByRole('table', { name: `Prices of ${provider?.name}` })
    expect(await prices.getByRole('row', { name: /^m / }).getByRole('cell').allTextContents()).toEqual([
      '$2',
      '$0.5',
      '$8',
      expect.stringContaining('Reset'),
    ])
  })

  it('shows tokens only for a model without a price', async () => {
    const { page, fake } = await open()
    fake.enqueue({ text: 'Hello.', usage: USAGE })

    await send(page, 'Say hello')
    await turnOver(page)

    const answer = conversation(page).getByRole('toolbar', { name: 'Answer actions' })
    expect(await answer.textContent()).toContain('1,000 in · 100 out · 400 cached')
    expect(await answer.textContent()).not.toContain('$')
    expect(await page.locator('.chat-usage').textContent()).toBe('Chat usage: 1.1k tokens')
  })
})
