import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import type { Compaction } from '../../src-shared/agent'
import { NO_SCRIPTED_RESPONSE } from '../support/fake-provider'
import {
  conversation,
  conversationText,
  type OpenedChat,
  screenshot,
  send,
  settingsSection,
  turnOver,
  useChatApp,
} from './support'

/**
 * Long sessions in Chromium, against the web host, the real services and SQLite, with the fake
 * provider as the model: the header's context gauge, each response's tokens, compactions (real
 * ones, driven by a tiny context window) with their summaries, Compact now, and the settings that
 * shape them.
 */

const gauge = (page: Page) => page.getByRole('meter', { name: 'Context used' })
const compactNow = (page: Page) => page.getByRole('button', { name: 'Compact now', exact: true })
const markers = (page: Page) => conversation(page).getByRole('note', { name: 'Context compacted' })

/** The gauge's figures, as a screen reader reads them. */
async function gaugeValues(page: Page): Promise<{ used: number; window: number; text: string }> {
  const meter = gauge(page)
  await meter.waitFor()
  return {
    used: Number(await meter.getAttribute('aria-valuenow')),
    window: Number(await meter.getAttribute('aria-valuemax')),
    text: (await meter.getAttribute('aria-valuetext')) ?? '',
  }
}

/** The summarization request: no tools, and its own system prompt. */
function summaryRequests(fake: OpenedChat['fake']) {
  return fake
    .requestsOf('openai-chat')
    .filter((request) =>
      String(request.body?.messages?.[0]?.content ?? '').startsWith('You summarize a working session'),
    )
}

function compactionsOf(opened: OpenedChat): Compaction[] {
  return opened.app.atelier.agent.conversation({ id: opened.chat.id }).compactions
}

/** A chat on a profile with no tools and a one-line system prompt, so every request is small and known. */
function plainProfile(opened: OpenedChat): void {
  const profile = opened.app.atelier.profiles.create({
    name: 'Plain',
    systemPrompt: 'You answer briefly.',
    tools: [],
    defaultMode: 'chat',
  })
  opened.app.atelier.chats.configure({ id: opened.chat.id, agent: profile.id })
}

/** A count as the marker writes it: 950, 1.8k, 2k. */
const short = (tokens: number) => (tokens < 1000 ? String(tokens) : `${Number((tokens / 1000).toFixed(1))}k`)

/** `tokens` worth of text (four characters a token, as the estimate counts). */
const filler = (word: string, tokens: number) => `${word} `.repeat(tokens * 4).slice(0, tokens * 4)

describe('long sessions: the context gauge, compaction markers and Compact now', () => {
  const { open } = useChatApp()

  it('moves the gauge after a turn and shows each response’s tokens; Compact now waits for the turn', async () => {
    const { page, fake } = await open()
    const before = await gaugeValues(page)
    expect(before.window).toBe(128_000)
    expect(before.used).toBeGreaterThan(0)
    expect(before.text).toMatch(/ \/ 128k tokens, \d+%; compacts past 80%$/)
    expect(await page.locator('.context-gauge').getAttribute('title')).toContain(
      'Context window a default: the model is not known',
    )

    // The provider's count of the request (about what the estimate says) keeps the estimate as it is.
    const answer = filler('answer', 500)
    fake.enqueue({
      text: answer,
      chunkSize: 400,
      delayMs: 60,
      usage: { inputTokens: before.used + 5, outputTokens: 500 },
    })
    await send(page, 'Write at length')
    await page.getByRole('button', { name: 'Stop', exact: true }).waitFor()
    expect(await compactNow(page).isDisabled()).toBe(true)
    await conversationText(page, (text) => text.includes('Tokens:'))
    await turnOver(page)

    // The committed answer (and the next request) carry about 500 tokens more.
    await expect.poll(async () => (await gaugeValues(page)).used).toBeGreaterThan(before.used + 400)
    expect(await compactNow(page).isDisabled()).toBe(false)
    const usage = conversation(page).locator('.message-usage')
    expect(await usage.textContent()).toBe(
      `Tokens: ${(before.used + 5).toLocaleString('en-US')} in · 500 out`,
    )
    // What SQLite stored shows the same after a reload.
    await page.reload()
    await gauge(page).waitFor()
    expect(await conversation(page).locator('.message-usage').textContent()).toBe(
      `Tokens: ${(before.used + 5).toLocaleString('en-US')} in · 500 out`,
    )
  })

  it('compacts a conversation past a tiny context window: the marker says so and shows the summary', async () => {
    const opened = await open()
    const { page, fake, app } = opened
    plainProfile(opened)
    const [provider] = app.atelier.providers.list()
    if (!provider) throw new Error('no provider')
    app.atelier.providers.update({ id: provider.id, contextWindow: 2000 })
    await expect.poll(async () => (await gaugeValues(page)).window).toBe(2000)
    const base = (await gaugeValues(page)).used
    expect(base).toBeLessThan(200)

    // Turn 1: 600 tokens asked, 600 answered; the provider counts the request as the estimate does.
    fake.enqueue({
      text: filler('first', 600),
      chunkSize: 800,
      usage: { inputTokens: base + 601, outputTokens: 600 },
    })
    await send(page, filler('question', 600))
    await turnOver(page)
    expect((await gaugeValues(page)).used).toBeGreaterThan(1200)
    expect(await markers(page).count()).toBe(0)
    // Past 80% of the threshold, the gauge warms.
    expect(await page.locator('.context-gauge').getAttribute('class')).toContain('context-gauge--near')
    await screenshot(page, 'context-gauge-near-light')

    // Turn 2 passes 80% of 2000: the earlier part is summarized first (a slow summary, so it shows).
    const summary = 'The user asked two **long questions**; the first was answered at length.'
    fake.enqueue(
      { text: summary, chunkSize: 10, delayMs: 120 },
      { text: 'The second answer.', usage: { inputTokens: 600, outputTokens: 5 } },
    )
    await send(page, filler('again', 500))
    await conversation(page).getByRole('status').filter({ hasText: 'Compacting context…' }).waitFor()
    await markers(page).first().waitFor()
    await conversationText(page, (text) => text.includes('The second answer.'))
    await turnOver(page)

    const [compaction] = compactionsOf(opened)
    expect(compactionsOf(opened)).toHaveLength(1)
    expect(compaction).toMatchObject({ reason: 'threshold', summary })
    if (!compaction) throw new Error('no compaction')
    expect(summaryRequests(fake)).toHaveLength(1)
    expect(summaryRequests(fake)[0]?.body.tools).toBeUndefined()

    // The marker follows the prompt it came before, and says what happened.
    const marker = markers(page)
    expect(await marker.count()).toBe(1)
    const text = (await marker.textContent()) ?? ''
    expect(text).toContain(
      `Context compacted · ${short(compaction.tokensBefore)} → ${short(compaction.tokensAfter)} tokens`,
    )
    expect(text).toContain('Summarized earlier messages')
    const order = await conversation(page)
      .locator('.conversation-row')
      .evaluateAll((rows) =>
        rows.map((row) => row.className.replace('conversation-row conversation-row--', '')),
      )
    expect(order).toEqual(['user', 'assistant', 'user', 'compaction', 'assistant'])
    // The gauge reads what the next request carries: far less than before the compaction.
    expect((await gaugeValues(page)).used).toBeLessThan(compaction.tokensBefore)
    await screenshot(page, 'context-marker-light')

    await marker.getByRole('button', { name: 'Show summary' }).click()
    const dialog = page.getByRole('dialog', { name: 'Summary of earlier messages' })
    await dialog.waitFor()
    expect(await dialog.locator('.markdown').textContent()).toBe(
      'The user asked two long questions; the first was answered at length.',
    )
    expect(await dialog.locator('.markdown strong').textContent()).toBe('long questions')
    await screenshot(page, 'context-summary-light')
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'detached' })

    // After a reload the marker comes from SQLite, in the same place.
    await page.reload()
    await markers(page).first().waitFor()
    expect(await markers(page).count()).toBe(1)
  })

  it('Compact now: nothing to compact after one turn, a summary after two, and a failure said readably', async () => {
    const opened = await open({ colorScheme: 'dark' })
    const { page, fake } = opened
    // A long first answer: a summary of it is shorter, so compacting it is worth recording.
    fake.enqueue({ text: `First answer. ${'More about the first question. '.repeat(60)}` })
    await send(page, 'First question')
    await turnOver(page)
    await compactNow(page).click()
    await page.getByRole('status').filter({ hasText: 'Nothing to compact yet' }).waitFor()
    expect(compactionsOf(opened)).toEqual([])

    fake.enqueue({ text: 'Second answer.' })
    await send(page, 'Second question')
    await conversationText(page, (text) => text.includes('Second answer.'))
    await turnOver(page)

    // The model is asked, and has nothing to say: the failure is readable, and nothing is compacted.
    await compactNow(page).click()
    const alert = page.getByRole('alert').filter({ hasText: 'Compacting failed' })
    await alert.waitFor()
    expect(await alert.textContent()).toContain(NO_SCRIPTED_RESPONSE)
    expect(compactionsOf(opened)).toEqual([])
    await alert.getByRole('button', { name: 'Dismiss' }).click()

    const summary = 'Two questions so far, both answered.'
    fake.enqueue({ text: summary })
    await compactNow(page).click()
    await page
      .getByRole('status')
      .filter({ hasText: /^Compacted · [\d.]+k? → [\d.]+k? tokens$/ })
      .waitFor()
    const [compaction] = compactionsOf(opened)
    expect(compaction).toMatchObject({ reason: 'manual', turnId: null, summary })
    const marker = markers(page)
    await marker.waitFor()
    expect(await marker.textContent()).toContain('Summarized earlier messages')
    expect(await marker.textContent()).toContain('you asked for it')
    // After the turn it followed.
    const order = await conversation(page)
      .locator('.conversation-row')
      .evaluateAll((rows) =>
        rows.map((row) => row.className.replace('conversation-row conversation-row--', '')),
      )
    expect(order).toEqual(['user', 'assistant', 'user', 'assistant', 'compaction'])
    await screenshot(page, 'context-compact-now-dark')

    await marker.getByRole('button', { name: 'Show summary' }).click()
    const dialog = page.getByRole('dialog', { name: 'Summary of earlier messages' })
    expect(await dialog.locator('.markdown').textContent()).toBe(summary)
    await screenshot(page, 'context-summary-dark')
    await dialog.getByRole('button', { name: 'Close' }).click()
    await dialog.waitFor({ state: 'detached' })
  })

  it('saves a provider’s context window and the threshold in Settings; the gauge shows both', async () => {
    const { page, app, chat } = await open()
    expect((await gaugeValues(page)).window).toBe(128_000)

    const panel = await settingsSection(page, 'Providers')
    await panel.getByRole('button', { name: 'Edit provider Local' }).click()
    const form = panel.getByRole('form', { name: 'Edit Local' })
    const field = form.getByRole('textbox', { name: 'Context window (tokens)' })
    expect(await field.inputValue()).toBe('')
    await field.fill('500')
    await form.getByRole('button', { name: 'Save provider' }).click()
    expect(await form.getByRole('alert').textContent()).toBe(
      'Enter a whole number of tokens from 1,024 to 100,000,000, or leave it empty.',
    )
    expect(await field.getAttribute('aria-invalid')).toBe('true')
    await field.fill('16,000')
    await form.getByRole('button', { name: 'Save provider' }).click()
    const card = panel.getByRole('region', { name: 'Local' })
    await card.getByText('16,000 tokens').waitFor()
    expect(app.atelier.providers.list()[0]?.contextWindow).toBe(16_000)

    const appearance = await settingsSection(page, 'Appearance')
    const threshold = appearance.getByRole('spinbutton', { name: 'Compact at (% of the context window)' })
    expect(await threshold.inputValue()).toBe('80')
    await threshold.fill('99')
    await threshold.press('Enter')
    expect(await appearance.getByRole('alert').textContent()).toContain('from 10 to 95')
    await threshold.fill('50')
    await threshold.press('Tab')
    await expect.poll(() => app.atelier.preferences.get().compactionThresholdPercent).toBe(50)

    await page
      .getByRole('navigation', { name: 'Chats' })
      .getByRole('button', { name: chat.title, exact: true })
      .click()
    await expect.poll(async () => (await gaugeValues(page)).window).toBe(16_000)
    const { text } = await gaugeValues(page)
    expect(text).toMatch(/ \/ 16k tokens, \d+%; compacts past 50%$/)
    expect(await page.locator('.context-gauge-text').textContent()).toMatch(/ \/ 16k tokens$/)
    expect(await page.locator('.context-gauge').getAttribute('title')).toContain(
      'Context window set for this provider in Settings → Providers',
    )
    await screenshot(page, 'context-gauge-light')

    // Emptying the field goes back to the listing or the table.
    await settingsSection(page, 'Providers')
    await panel.getByRole('button', { name: 'Edit provider Local' }).click()
    await form.getByRole('textbox', { name: 'Context window (tokens)' }).fill('')
    await form.getByRole('button', { name: 'Save provider' }).click()
    await card.waitFor()
    await expect.poll(() => app.atelier.providers.list()[0]?.contextWindow).toBeNull()
  })
})
