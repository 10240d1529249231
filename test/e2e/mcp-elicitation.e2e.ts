import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { DEFAULTS, ELICITATION_MESSAGE } from '../fixtures/elicitation-mcp-server'
import { useProbeChat } from './probe-chat'
import { conversation, conversationText, screenshot, send, stopButton, turnOver } from './support'

const TOOL = 'probe__ask_person'

/**
 * An MCP server's question (elicitation) in Chromium, against the web host and the real services:
 * a real SDK server whose tool asks during the call, the fake provider scripting the call, and the
 * person answering the form the way a person (or a screen reader) finds it, by role and name.
 */
describe('MCP elicitation in the chat', () => {
  const openProbeChat = useProbeChat()
  const openWithServer = (colorScheme: 'light' | 'dark' = 'light') =>
    openProbeChat(
      colorScheme,
      { toolCalls: [{ name: TOOL, arguments: '{}' }] },
      { text: 'Release prepared.' },
    )

  const question = (page: Page) => conversation(page).getByRole('form', { name: 'Question from probe' })
  const answered = (page: Page) => conversation(page).getByRole('group', { name: 'Question from probe' })

  it('shows the form with the defaults; an answer with a changed default reaches the server', async () => {
    const { page, server } = await openWithServer()
    await send(page, 'Prepare the release')
    const form = question(page)
    await form.getByText(ELICITATION_MESSAGE).waitFor()

    const name = form.getByRole('textbox', { name: 'Release name' })
    const count = form.getByRole('spinbutton', { name: 'Build count' })
    expect(await name.inputValue()).toBe('spring')
    expect(await count.inputValue()).toBe('3')
    expect(await form.getByRole('spinbutton', { name: 'Rollout share' }).inputValue()).toBe('0.5')
    expect(await form.getByRole('checkbox', { name: 'Urgent' }).isChecked()).toBe(false)
    expect(await form.getByRole('combobox', { name: 'Channel' }).inputValue()).toBe('beta')
    const platforms = form.getByRole('group', { name: 'Platforms' })
    expect(await platforms.getByRole('checkbox', { name: 'Linux' }).isChecked()).toBe(true)
    expect(await platforms.getByRole('checkbox', { name: 'macOS' }).isChecked()).toBe(false)
    // The first field has focus, so the person can type at once.
    expect(await name.evaluate((element) => element === document.activeElement)).toBe(true)
    await screenshot(page, 'mcp-elicitation-form')

    // What does not fit the form is said on the field, and nothing is sent.
    await name.fill('')
    await count.fill('42')
    await form.getByRole('button', { name: 'Accept' }).click()
    await form.getByText('Release name is required.').waitFor()
    await form.getByText('Build count must be at most 10.').waitFor()
    expect(await name.getAttribute('aria-invalid')).toBe('true')
    expect(server.answers).toEqual([])

    await name.fill('autumn')
    await count.fill('7')
    await form.getByRole('checkbox', { name: 'Urgent' }).check()
    await form.getByRole('combobox', { name: 'Channel' }).selectOption({ label: 'Stable' })
    await platforms.getByRole('checkbox', { name: 'macOS' }).check()
    // Enter in a field accepts, as in any form.
    await name.press('Enter')

    await conversationText(page, (text) => text.includes('Release prepared.'))
    const expected = {
      action: 'accept',
      content: {
        ...DEFAULTS,
        name: 'autumn',
        count: 7,
        urgent: true,
        channel: 'stable',
        platforms: ['linux', 'mac'],
      },
    }
    expect(server.answers).toEqual([expected])
    const line = answered(page)
    await line.getByText('Answered', { exact: true }).waitFor()
    expect(await line.textContent()).toContain('Release name: autumn · Build count: 7')
    expect(await line.textContent()).toContain('Channel: Stable · Platforms: Linux, macOS')
    expect(await question(page).count()).toBe(0)
  })

  it('Decline reaches the server as decline, and the card says Declined', async () => {
    const { page, server } = await openWithServer('dark')
    await send(page, 'Prepare the release')
    await question(page).getByRole('button', { name: 'Decline' }).waitFor()
    await screenshot(page, 'mcp-elicitation-form-dark')
    await question(page).getByRole('button', { name: 'Decline' }).click()
    await conversationText(page, (text) => text.includes('Release prepared.'))
    expect(server.answers).toEqual([{ action: 'decline' }])
    await answered(page).getByText('Declined', { exact: true }).waitFor()
    await screenshot(page, 'mcp-elicitation-declined-dark')
  })

  it('Cancel (the button, or Esc) reaches the server as cancel', async () => {
    const { page, server, fake } = await openWithServer()
    await send(page, 'Prepare the release')
    await question(page).getByRole('button', { name: 'Cancel' }).click()
    await conversationText(page, (text) => text.includes('Release prepared.'))
    expect(server.answers).toEqual([{ action: 'cancel' }])
    await answered(page).getByText('Cancelled', { exact: true }).waitFor()

    fake.enqueue({ toolCalls: [{ name: TOOL, arguments: '{}' }] }, { text: 'Asked again.' })
    await send(page, 'Once more')
    const form = question(page)
    await form.getByRole('textbox', { name: 'Release name' }).press('Escape')
    await conversationText(page, (text) => text.includes('Asked again.'))
    expect(server.answers).toEqual([{ action: 'cancel' }, { action: 'cancel' }])
    // Esc answered the card; it did not stop the turn.
    expect(await conversation(page).getByText('Stopped').count()).toBe(0)
  })

  it('shows a waiting form again after a reload, and it can still be answered', async () => {
    const { page, server } = await openWithServer()
    await send(page, 'Prepare the release')
    await question(page).waitFor()
    await page.reload()
    const form = question(page)
    await form.getByRole('textbox', { name: 'Release name' }).fill('after the reload')
    await form.getByRole('button', { name: 'Accept' }).click()
    await conversationText(page, (text) => text.includes('Release prepared.'))
    expect(server.answers).toEqual([{ action: 'accept', content: { ...DEFAULTS, name: 'after the reload' } }])
  })

  it('Stop while the form waits ends the turn and answers cancel to the server', async () => {
    const { page, server, app, chat } = await openWithServer()
    await send(page, 'Prepare the release')
    await question(page).waitFor()
    await stopButton(page).click()
    await turnOver(page)
    await answered(page).getByText('Cancelled', { exact: true }).waitFor()
    await expect.poll(() => server.answers).toEqual([{ action: 'cancel' }])
    expect(app.atelier.agent.view({ id: chat.id }).calls.filter((call) => call.question)).toEqual([])
  })
})
