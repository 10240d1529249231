import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Locator, Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { conversation, type OpenedChat, screenshot, toolCard, useChatApp } from './support'

const searchDialog = (page: Page) => page.getByRole('dialog', { name: 'Search chats' })
const searchBox = (page: Page) => searchDialog(page).getByRole('searchbox', { name: 'Search chats' })
const results = (page: Page) =>
  searchDialog(page).getByRole('listbox', { name: 'Results' }).getByRole('option')
const isFocused = (locator: Locator) => locator.evaluate((element) => element === document.activeElement)

/** Whether the element is within the conversation's visible part (not merely in the DOM). */
async function inView(page: Page, locator: Locator): Promise<boolean> {
  if ((await locator.count()) === 0) return false
  const [box, frame] = await Promise.all([locator.first().boundingBox(), conversation(page).boundingBox()])
  return !!box && !!frame && box.y >= frame.y && box.y + box.height <= frame.y + frame.height
}

/** Turns run through the app itself, the page watching: quicker than typing each. */
async function runTurns({ app, chat }: OpenedChat, prompts: string[]) {
  for (const prompt of prompts) await app.atelier.agent.begin({ chatId: chat.id, prompt }).done
}

/** Search over every chat (issue 39, item 2): Ctrl/Cmd+K, the results, the chat opened at the message. */
describe('chat search', () => {
  const { open, tempDir } = useChatApp()

  it('Ctrl+K finds a word only a tool read; Enter opens its chat at the answer that made the call', async () => {
    const folder = tempDir()
    writeFileSync(join(folder, 'notes.txt'), 'The supplier code is quillwort-7 for the spring order.\n')
    const opened = await open({ folder, approvalMode: 'full-auto' })
    const { page, fake, app, chat } = opened
    fake.enqueue(
      {
        text: 'Reading the notes first.',
        toolCalls: [{ id: 'call_notes', name: 'read_file', arguments: '{"path":"notes.txt"}' }],
      },
      { text: 'The notes name a supplier.' },
      ...Array.from({ length: 6 }, (_, index) => ({
        text: `Long answer ${index}.\n\n${'A line of filler text.\n\n'.repeat(30)}`,
      })),
    )
    await runTurns(opened, ['Read the notes', 'one', 'two', 'three', 'four', 'five', 'six'])
    app.atelier.chats.rename({ id: chat.id, title: 'Supplier notes' })
    // Another chat on screen: the search takes the person back to the first.
    await page.getByRole('button', { name: 'New chat', exact: true }).click()
    await page.getByRole('heading', { level: 1, name: 'Untitled chat' }).waitFor()

    await page.keyboard.press('Control+k')
    await searchDialog(page).waitFor()
    expect(await isFocused(searchBox(page))).toBe(true)
    await searchBox(page).fill('quillwort')
    await results(page).first().waitFor()
    expect(await results(page).count()).toBe(1)
    expect(await results(page).first().textContent()).toContain('Supplier notes')
    expect(await results(page).first().textContent()).toContain('Tool result')
    expect(await results(page).first().locator('mark').allTextContents()).toEqual(['quillwort'])
    expect(await results(page).first().getAttribute('aria-selected')).toBe('true')
    await screenshot(page, 'chat-search-results')

    await searchBox(page).press('Enter')
    await searchDialog(page).waitFor({ state: 'detached' })
    await page.getByRole('heading', { level: 1, name: 'Supplier notes' }).waitFor()
    await expect.poll(() => inView(page, conversation(page).getByText('Reading the notes first.'))).toBe(true)
    // The call's card is open at its result: the words found show without a click.
    await expect.poll(() => inView(page, toolCard(page, 'read_file').getByText(/quillwort-7/))).toBe(true)
    expect(await inView(page, conversation(page).getByText('Long answer 5.'))).toBe(false)
    await screenshot(page, 'chat-search-revealed')
  })

  it('the sidebar button opens it too; the arrows choose among results, and odd characters are words', async () => {
    const opened = await open()
    const { page, fake, app, chat } = opened
    fake.enqueue({ text: 'Marmalade is on the top shelf.' })
    await runTurns(opened, ['Where is the jam?'])
    app.atelier.chats.rename({ id: chat.id, title: 'Pantry' })
    const other = app.atelier.chats.create({ title: 'Breakfast' })
    fake.enqueue({ text: 'Toast with marmalade, then.' })
    await runTurns({ ...opened, chat: other }, ['Plans for the morning?'])

    await page.getByRole('button', { name: 'Search chats' }).first().click()
    await searchBox(page).fill('-"marma*')
    await expect.poll(() => results(page).count()).toBe(2)
    expect(await searchDialog(page).getByRole('status').textContent()).toBe('2 messages found.')
    // The newer answer first: both match as well.
    expect(await results(page).first().textContent()).toContain('Breakfast')
    await searchBox(page).press('ArrowDown')
    expect(await results(page).nth(1).getAttribute('aria-selected')).toBe('true')
    expect(await isFocused(searchBox(page))).toBe(true)
    await searchBox(page).press('Enter')
    await page.getByRole('heading', { level: 1, name: 'Pantry' }).waitFor()

    await page.keyboard.press('Control+k')
    await searchBox(page).fill('"*" - ^')
    await expect
      .poll(() => searchDialog(page).getByRole('status').textContent())
      .toBe('No message has “"*" - ^”.')
    await page.keyboard.press('Escape')
    await searchDialog(page).waitFor({ state: 'detached' })
  })
})
