import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { SAMPLING_REQUEST } from '../fixtures/elicitation-mcp-server'
import { useProbeChat } from './probe-chat'
import { conversation, conversationText, screenshot, send } from './support'

const TOOL = 'probe__ask_model'

/**
 * An MCP server's sampling request in Chromium, against the web host and the real services: a real
 * SDK server whose tool asks the client's model for a completion during the call, the fake provider
 * scripting the call and the completion, and the person approving (after editing) or declining the
 * request on the call's card, found by role and name.
 */
describe('MCP sampling in the chat', () => {
  const openProbeChat = useProbeChat()
  const openWithServer = (colorScheme: 'light' | 'dark' = 'light') =>
    openProbeChat(
      colorScheme,
      { toolCalls: [{ name: TOOL, arguments: '{}' }] },
      {
        text: 'Summer',
        usage: { inputTokens: 31, outputTokens: 2 },
        whenRequestHas: 'The one after spring.',
      },
      { text: 'Release named.' },
    )

  const request = (page: Page) =>
    conversation(page).getByRole('form', { name: 'Sampling request from probe' })
  const answered = (page: Page) => conversation(page).getByRole('group', { name: 'Question from probe' })

  it("shows the server's messages, system prompt and max tokens; the edited request reaches the model", async () => {
    const { page, server, fake } = await openWithServer()
    await send(page, 'Name the release')
    const form = request(page)
    const system = form.getByRole('textbox', { name: 'System prompt' })
    await system.waitFor()
    expect(await form.getByRole('textbox', { name: 'User message 1' }).inputValue()).toBe(
      'Name the next release after a season.',
    )
    expect(await form.getByRole('textbox', { name: 'Assistant message 2' }).inputValue()).toBe(
      'Which season?',
    )
    expect(await form.getByRole('textbox', { name: 'User message 3' }).inputValue()).toBe(
      'The one after spring.',
    )
    expect(await system.inputValue()).toBe(SAMPLING_REQUEST.systemPrompt)
    const maxTokens = form.getByRole('spinbutton', { name: 'Max tokens' })
    expect(await maxTokens.inputValue()).toBe('40')
    // Approve has focus: nothing reaches the model unless the person sends it.
    expect(
      await form
        .getByRole('button', { name: 'Approve' })
        .evaluate((element) => element === document.activeElement),
    ).toBe(true)
    await screenshot(page, 'mcp-sampling-request')

    await maxTokens.fill('0')
    await form.getByRole('button', { name: 'Approve' }).click()
    await form.getByText('Max tokens must be a whole number above 0.').waitFor()
    expect(server.samples).toEqual([])

    await system.fill('Name releases after seasons. One word.')
    await maxTokens.fill('12')
    await form.getByRole('button', { name: 'Approve' }).click()

    await conversationText(page, (text) => text.includes('Release named.'))
    const sent = fake
      .requestsOf('openai-chat')
      .find((each) => JSON.stringify(each.body).includes('Which season?'))
    expect(sent?.body.messages[0]).toEqual({
      role: 'system',
      content: 'Name releases after seasons. One word.',
    })
    expect(server.samples).toEqual([expect.objectContaining({ content: { type: 'text', text: 'Summer' } })])
    const line = answered(page)
    await line.getByText('Sent to the model', { exact: true }).waitFor()
    expect(await line.textContent()).toContain('tokens: 31 in · 2 out')
    expect(await request(page).count()).toBe(0)
  })

  it('Decline (or Esc) sends nothing, and the card says Declined', async () => {
    const { page, server, fake } = await openWithServer('dark')
    await send(page, 'Name the release')
    await request(page).getByRole('textbox', { name: 'System prompt' }).waitFor()
    await screenshot(page, 'mcp-sampling-request-dark')
    await request(page).getByRole('textbox', { name: 'System prompt' }).press('Escape')
    await conversationText(page, (text) => text.includes('Release named.'))
    expect(server.samples).toEqual([{ error: expect.stringContaining('declined the sampling request') }])
    expect(
      fake.requestsOf('openai-chat').some((each) => JSON.stringify(each.body).includes('"Which season?"')),
    ).toBe(false)
    await answered(page).getByText('Declined', { exact: true }).waitFor()
  })
})
