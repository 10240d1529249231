import type { Locator, Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { conversation, conversationText, messageBox, screenshot, send, turnOver, useChatApp } from './support'

/** A prompt of the conversation, by its text. */
const prompt = (page: Page, text: string) =>
  conversation(page).getByRole('article', { name: 'Your prompt' }).filter({ hasText: text })
/** An answer of the conversation, by its text. */
const answer = (page: Page, text: string) =>
  conversation(page).getByRole('article', { name: 'Answer' }).filter({ hasText: text })

async function runTurn(page: Page, text: string, reply: string) {
  await send(page, text)
  await conversationText(page, (shown) => shown.includes(reply))
  await turnOver(page)
}

const heading = (page: Page) => page.getByRole('heading', { level: 1 })
const isFocused = (locator: Locator) => locator.evaluate((element) => element === document.activeElement)

/**
 * A message's actions (issue 32, item 2): copy, edit and resend, regenerate, fork from here — on
 * hover and by keyboard — with the replaced turns kept in a chat of their own, and a response's
 * tokens shown with its actions rather than under every response.
 */
describe('message actions', () => {
  const { open } = useChatApp()

  it('copy a prompt as typed and an answer as Markdown; the tokens show with the answer’s actions', async () => {
    const { page, context, fake } = await open()
    await context.grantPermissions(['clipboard-read', 'clipboard-write'])
    fake.enqueue({
      text: 'Here is **bold** text.\n\n- one\n- two',
      usage: { inputTokens: 1234, outputTokens: 56 },
    })
    await runTurn(page, 'Show me *stars*\nin two lines', 'two')

    const actions = answer(page, 'bold').getByRole('toolbar', { name: 'Answer actions' })
    const opacity = () => actions.evaluate((element) => getComputedStyle(element).opacity)
    await page.mouse.move(0, 0)
    await expect.poll(opacity).toBe('0')
    expect(await actions.textContent()).toContain('Tokens: 1,234 in · 56 out')
    await answer(page, 'bold').hover()
    await expect.poll(opacity).toBe('1')
    await screenshot(page, 'message-actions-hover-light')

    await actions.getByRole('button', { name: 'Copy answer' }).click()
    await actions.getByRole('button', { name: 'Copy answer' }).getByText('Copied').waitFor()
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(
      'Here is **bold** text.\n\n- one\n- two',
    )
    await prompt(page, 'Show me').hover()
    await prompt(page, 'Show me').getByRole('button', { name: 'Copy prompt' }).click()
    await expect
      .poll(() => page.evaluate(() => navigator.clipboard.readText()))
      .toBe('Show me *stars*\nin two lines')
  })

  it('edit and resend: the new answer shows, the earlier version is kept in a chat of its own', async () => {
    const { page, fake, app } = await open()
    fake.enqueue({ text: 'First answer.' }, { text: 'Second answer.' })
    await runTurn(page, 'first prompt', 'First answer.')
    await runTurn(page, 'second prompt', 'Second answer.')

    await prompt(page, 'first prompt').hover()
    await prompt(page, 'first prompt').getByRole('button', { name: 'Edit' }).click()
    const editor = conversation(page).getByRole('textbox', { name: 'Edit prompt' })
    expect(await editor.inputValue()).toBe('first prompt')
    fake.enqueue({ text: 'Answer to the edit.' })
    await editor.fill('first prompt, edited')
    await conversation(page).getByRole('button', { name: 'Send edited prompt' }).click()

    await conversationText(page, (text) => text.includes('Answer to the edit.'))
    await turnOver(page)
    const shown = (await conversation(page).textContent()) ?? ''
    expect(shown).toContain('first prompt, edited')
    expect(shown).not.toContain('Second answer.')
    const notice = page.getByRole('status').filter({ hasText: 'Earlier version kept in' })
    expect(await notice.textContent()).toContain('“first prompt (earlier version)”')
    expect(app.atelier.chats.list()).toHaveLength(2)
    await screenshot(page, 'message-actions-edited-light')

    await notice.getByRole('button', { name: 'Open earlier version' }).click()
    await expect.poll(() => heading(page).textContent()).toBe('first prompt (earlier version)')
    await conversationText(page, (text) => text.includes('First answer.') && text.includes('Second answer.'))
    expect(await conversation(page).getByText('Answer to the edit.').count()).toBe(0)
  })

  it('regenerate runs the last prompt again; the earlier answer is kept in a chat of its own', async () => {
    const { page, fake } = await open()
    fake.enqueue({ text: 'One.' }, { text: 'A first try.' })
    await runTurn(page, 'warm up', 'One.')
    await runTurn(page, 'write a haiku', 'A first try.')
    // Only the latest answer can be regenerated.
    expect(await answer(page, 'One.').getByRole('button', { name: 'Regenerate' }).count()).toBe(0)

    fake.enqueue({ text: 'A second try.' })
    await answer(page, 'A first try.').hover()
    await answer(page, 'A first try.').getByRole('button', { name: 'Regenerate' }).click()
    await conversationText(page, (text) => text.includes('A second try.') && !text.includes('A first try.'))
    await turnOver(page)
    expect(await prompt(page, 'write a haiku').count()).toBe(1)

    await page.getByRole('button', { name: 'Open earlier answer' }).click()
    await expect.poll(() => heading(page).textContent()).toBe('warm up (earlier answer)')
    await conversationText(page, (text) => text.includes('A first try.') && !text.includes('A second try.'))
  })

  it('fork from here opens a new chat with the conversation up to that answer; the chat stays whole', async () => {
    const { page, fake, app, chat } = await open()
    fake.enqueue({ text: 'One.' }, { text: 'Two.' })
    await runTurn(page, 'first', 'One.')
    await runTurn(page, 'second', 'Two.')

    await answer(page, 'One.').hover()
    await answer(page, 'One.').getByRole('button', { name: 'Fork from here' }).click()
    await expect.poll(() => heading(page).textContent()).toBe('first (fork)')
    await conversationText(page, (text) => text.includes('One.'))
    expect(await conversation(page).getByText('Two.').count()).toBe(0)
    const fork = app.atelier.chats.list().find((each) => each.title === 'first (fork)')
    expect(fork).toMatchObject({ provider: chat.provider, mode: chat.mode, workingDir: chat.workingDir })
    expect(app.atelier.agent.view({ id: chat.id }).turns).toHaveLength(2)

    // The fork goes on by itself.
    fake.enqueue({ text: 'Forked on.' })
    await runTurn(page, 'and then?', 'Forked on.')
    expect(app.atelier.agent.view({ id: chat.id }).turns).toHaveLength(2)
  })

  it('messages take focus, ↑/↓ move between them, and their actions work from the keyboard', async () => {
    const { page, context, fake } = await open({ colorScheme: 'dark' })
    await context.grantPermissions(['clipboard-read', 'clipboard-write'])
    fake.enqueue({ text: 'Keyboard answer.' })
    await runTurn(page, 'keyboard prompt', 'Keyboard answer.')

    // From the conversation, Tab goes to the first message, with a visible ring.
    await conversation(page).focus()
    await page.keyboard.press('Tab')
    await expect.poll(() => isFocused(prompt(page, 'keyboard prompt'))).toBe(true)
    expect(
      await prompt(page, 'keyboard prompt').evaluate((element) => getComputedStyle(element).outlineStyle),
    ).toBe('solid')
    await page.keyboard.press('ArrowDown')
    await expect.poll(() => isFocused(answer(page, 'Keyboard answer.'))).toBe(true)
    await page.keyboard.press('ArrowUp')
    await expect.poll(() => isFocused(prompt(page, 'keyboard prompt'))).toBe(true)

    // Tab into the prompt's actions: they show, and Enter works them.
    await page.keyboard.press('Tab')
    const copy = prompt(page, 'keyboard prompt').getByRole('button', { name: 'Copy prompt' })
    await expect.poll(() => isFocused(copy)).toBe(true)
    const toolbar = prompt(page, 'keyboard prompt').getByRole('toolbar')
    await expect.poll(() => toolbar.evaluate((element) => getComputedStyle(element).opacity)).toBe('1')
    await page.keyboard.press('Enter')
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe('keyboard prompt')
    await page.keyboard.press('Tab')
    await page.keyboard.press('Enter')
    const editor = conversation(page).getByRole('textbox', { name: 'Edit prompt' })
    await expect.poll(() => isFocused(editor)).toBe(true)
    await screenshot(page, 'message-actions-edit-dark')
    // Escape gives the prompt back unchanged.
    await page.keyboard.press('Escape')
    await editor.waitFor({ state: 'detached' })
    await prompt(page, 'keyboard prompt').waitFor()

    // Regenerate from the keyboard: Enter sends, the new answer comes, the message box has focus.
    await prompt(page, 'keyboard prompt').focus()
    await page.keyboard.press('ArrowDown')
    fake.enqueue({ text: 'Another keyboard answer.' })
    await page.keyboard.press('Tab')
    await page.keyboard.press('Tab')
    await page.keyboard.press('Enter')
    await conversationText(page, (text) => text.includes('Another keyboard answer.'))
    await turnOver(page)
    await expect.poll(() => isFocused(messageBox(page))).toBe(true)
  })
})
