import { describe, expect, it } from 'vitest'
import { LOCAL_USER } from '../../src-main/app/create-atelier'
import { MASKED_VALUE } from '../../src-shared/secrets'
import {
  conversation,
  conversationText,
  screenshot,
  send,
  settingsSection,
  turnOver,
  useChatApp,
} from './support'

const SEARCH = {
  query: 'vitest 3 release notes',
  sources: [
    { url: 'https://vitest.dev/blog/vitest-3', title: 'Vitest 3 is out' },
    { url: 'https://github.com/vitest-dev/vitest/releases', title: 'Vitest releases' },
  ],
}

/**
 * The provider's own web search in the chat (issue 37, item 3a): a Responses provider with its
 * switch on sends the `web_search` tool, its search shows as a card, and the pages its answer
 * cites (`url_citation` annotations) show as links under the answer.
 */
describe("the provider's web search", () => {
  const { open } = useChatApp()

  /** A chat on a Responses provider at the fake, its own search switched on or off. */
  async function openWithResponses(hostedSearch: boolean) {
    const opened = await open()
    const { app, fake, chat } = opened
    const provider = app.atelier.providers.create({
      kind: 'openai-responses',
      name: 'OpenAI',
      baseUrl: fake.baseUrlFor('openai-responses'),
      defaultModel: 'm',
      hostedSearch,
    })
    app.atelier.chats.configure({ id: chat.id, provider: provider.id })
    return opened
  }

  it('sends web_search when switched on, shows the search as a card and the citations as links', async () => {
    const { fake, page } = await openWithResponses(true)
    fake.enqueue({ text: 'Vitest 3 brings a new reporter API.', webSearch: SEARCH })
    await send(page, 'What is new in Vitest 3?')
    await conversationText(page, (text) => text.includes('new reporter API'))
    await turnOver(page)

    const tools = fake.requestsOf('openai-responses')[0]?.body.tools as { type: string }[]
    expect(tools).toContainEqual({ type: 'web_search' })

    const sources = conversation(page).getByRole('navigation', { name: 'Sources' })
    const links = sources.getByRole('link')
    await expect.poll(() => links.count()).toBe(2)
    expect(await links.first().textContent()).toBe('Vitest 3 is out')
    expect(await links.first().getAttribute('href')).toBe(SEARCH.sources[0]?.url)
    expect(await links.last().getAttribute('href')).toBe(SEARCH.sources[1]?.url)
    // Opened outside the app, never in its own window.
    expect(await links.first().getAttribute('target')).toBe('_blank')

    const card = conversation(page).getByRole('region', { name: 'Web search by the provider' })
    expect(await card.textContent()).toContain(`“${SEARCH.query}”`)
    await card.getByRole('button', { name: /Searched the web/ }).click()
    const found = card.getByRole('link')
    await expect.poll(() => found.count()).toBe(2)
    expect(await found.first().getAttribute('href')).toBe(SEARCH.sources[0]?.url)
    await screenshot(page, 'web-search-hosted')
  })

  it("is switched on in the provider's settings, and only for kinds that have it", async () => {
    const { app, fake, chat, page } = await openWithResponses(false)
    const panel = await settingsSection(page, 'Providers')
    await panel.getByRole('button', { name: 'Edit provider Local' }).click()
    const local = panel.getByRole('form', { name: 'Edit Local' })
    await local.getByRole('textbox', { name: 'Name' }).waitFor()
    // Chat Completions has no hosted search: no switch.
    expect(await local.getByRole('switch', { name: 'Web search by the provider' }).count()).toBe(0)
    await local.getByRole('button', { name: 'Cancel' }).click()

    await panel.getByRole('button', { name: 'Edit provider OpenAI' }).click()
    const form = panel.getByRole('form', { name: 'Edit OpenAI' })
    const toggle = form.getByRole('switch', { name: 'Web search by the provider' })
    expect(await toggle.getAttribute('aria-checked')).toBe('false')
    await toggle.click()
    await form.getByRole('button', { name: 'Save provider' }).click()
    await panel.getByRole('region', { name: 'OpenAI' }).getByText('By the provider').waitFor()
    expect(app.atelier.providers.list().find((p) => p.name === 'OpenAI')?.hostedSearch).toBe(true)

    await page
      .getByRole('navigation', { name: 'Chats' })
      .getByRole('button', { name: chat.title, exact: true })
      .click()
    fake.enqueue({ text: 'Searched.' })
    await send(page, 'Search for it.')
    await conversationText(page, (text) => text.includes('Searched.'))
    await turnOver(page)
    expect(fake.requestsOf('openai-responses')[0]?.body.tools).toContainEqual({ type: 'web_search' })
  })

  it('sends no web_search tool with the switch off', async () => {
    const { fake, page } = await openWithResponses(false)
    fake.enqueue({ text: 'From memory: a new reporter API.' })
    await send(page, 'What is new in Vitest 3?')
    await conversationText(page, (text) => text.includes('From memory'))
    await turnOver(page)
    const tools = (fake.requestsOf('openai-responses')[0]?.body.tools ?? []) as { type: string }[]
    expect(tools.map((tool) => tool.type)).not.toContain('web_search')
    expect(await conversation(page).getByRole('navigation', { name: 'Sources' }).count()).toBe(0)
  })

  it('Capabilities says which web search the chat has', async () => {
    const { page } = await openWithResponses(true)
    await page.getByRole('button', { name: 'Capabilities' }).click()
    const dialog = page.getByRole('dialog', { name: 'Capabilities' })
    await dialog.getByText('OpenAI’s own search').waitFor()
  })

  it("keeps web_search's API key out of the page: typed once, shown only as the mask", async () => {
    const key = 'brave-key-from-the-form-0123'
    const { app, page } = await open()
    await settingsSection(page, 'Tools')
    const card = page.getByRole('region', { name: 'Web search', exact: true })
    const disclosure = card.getByRole('button', { name: 'Parameters' })
    if ((await disclosure.getAttribute('aria-expanded')) !== 'true') await disclosure.click()
    await card.getByRole('combobox', { name: 'Engine' }).selectOption('brave')
    const field = card.getByLabel('API key', { exact: true })
    expect(await field.getAttribute('type')).toBe('password')
    await field.fill(key)
    await card.getByRole('button', { name: 'Save', exact: true }).click()
    await card.getByRole('status').filter({ hasText: 'Saved' }).waitFor()
    await expect.poll(() => field.inputValue()).toBe(MASKED_VALUE)
    expect(await page.content()).not.toContain(key)

    // Saved again as shown, the mask keeps the key; only the main process ever reads it.
    await card.getByRole('spinbutton', { name: 'Results', exact: true }).fill('5')
    await card.getByRole('button', { name: 'Save', exact: true }).click()
    await card.getByRole('status').filter({ hasText: 'Saved' }).waitFor()
    const entry = app.atelier.tools.registry.get('web_search')
    if (!entry) throw new Error('web_search is registered')
    expect(app.atelier.tools.settings.resolve(LOCAL_USER, entry).settings.parameters).toMatchObject({
      engine: 'brave',
      apiKey: key,
      maxResults: 5,
    })
    expect(await page.content()).not.toContain(key)
  })
})
