import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { conversation, conversationText, messageBox, screenshot, send, turnOver, useChatApp } from './support'

/**
 * The composer's `/` menu: the built-ins and the person's own command files, fuzzily filtered and
 * driven from the keyboard; a command with arguments fills `/name ` to be finished, one without runs
 * at once; `/compact` compacts the chat, `/clear` opens a new chat in the same folder, `/undo` undoes
 * the last turn and `/plan` switches to plan mode.
 */
describe('slash commands in the composer', () => {
  const { open, tempDir } = useChatApp()

  const menu = (page: Page) => page.getByRole('listbox', { name: 'Commands' })
  const optionNames = (page: Page) => menu(page).getByRole('option').allTextContents()

  /** Types `/name`, waits for the menu to offer it, and chooses it with Enter. */
  async function choose(page: Page, name: string) {
    await messageBox(page).fill(`/${name}`)
    await menu(page)
      .getByRole('option', { name: new RegExp(`^/${name} `) })
      .waitFor()
    await messageBox(page).press('Enter')
  }

  function writeCommand(folder: string, name: string, text: string) {
    mkdirSync(folder, { recursive: true })
    writeFileSync(join(folder, `${name}.md`), text)
  }

  it('lists the built-ins and the person’s command, filters by keyboard, expands arguments, and /compact and /clear act', async () => {
    const home = tempDir()
    const folder = tempDir()
    writeCommand(
      join(home, '.atelier', 'commands'),
      'fix',
      '---\ndescription: Fix an issue\n---\nFix issue #$ARGUMENTS.\n',
    )
    // The folder is not trusted: its own commands stay out of the menu.
    writeCommand(join(folder, '.atelier', 'commands'), 'secret', 'Do what the folder says.')
    const { app, page, fake, chat } = await open({ folder, home, approvalMode: 'full-auto' })

    await messageBox(page).fill('/')
    await menu(page).getByRole('option', { name: /\/fix/ }).waitFor()
    const listed = await optionNames(page)
    expect(listed.map((text) => text.split(/\s/)[0])).toEqual([
      '/init',
      '/compact',
      '/undo',
      '/clear',
      '/plan',
      '/fix',
    ])
    expect(listed.at(-1)).toContain('Fix an issue')
    await screenshot(page, 'slash-commands-menu-light')

    // `/c`: the two commands with a c, the first active; ↓ moves, Esc closes and keeps the text.
    await messageBox(page).pressSequentially('c')
    await expect
      .poll(() => optionNames(page).then((names) => names.map((text) => text.split(/\s/)[0])))
      .toEqual(['/compact', '/clear'])
    const clear = menu(page).getByRole('option', { name: /\/clear/ })
    expect(await clear.getAttribute('aria-selected')).toBe('false')
    await messageBox(page).press('ArrowDown')
    expect(await clear.getAttribute('aria-selected')).toBe('true')
    await messageBox(page).press('Escape')
    await menu(page).waitFor({ state: 'hidden' })
    expect(await messageBox(page).inputValue()).toBe('/c')

    // Typing on opens it again. A command with arguments fills `/fix ` to be finished; Enter sends it expanded.
    await messageBox(page).fill('/fx')
    await menu(page).getByRole('option', { name: /\/fix/ }).waitFor()
    await messageBox(page).press('Enter')
    await expect.poll(() => messageBox(page).inputValue()).toBe('/fix ')
    fake.enqueue({ text: `Looked at it. ${'The issue is in the parser. '.repeat(60)}` })
    await messageBox(page).pressSequentially('42')
    await messageBox(page).press('Enter')
    await conversationText(page, (text) => text.includes('Looked at it.'))
    await turnOver(page)
    expect(fake.requestsOf('openai-chat')[0]?.body.messages.at(-1)).toEqual({
      role: 'user',
      content: 'Fix issue #42.',
    })
    expect(await conversation(page).textContent()).toContain('Fix issue #42.')

    fake.enqueue({ text: 'Second answer.' })
    await send(page, 'And the tests?')
    await conversationText(page, (text) => text.includes('Second answer.'))
    await turnOver(page)

    // `/compact`, chosen with Enter, compacts now: the model's summary, its marker and a status line.
    fake.enqueue({ text: 'A parser bug, and its tests.' })
    await choose(page, 'compact')
    await page
      .getByRole('status')
      .filter({ hasText: /^Compacted · [\d.]+k? → [\d.]+k? tokens$/ })
      .waitFor()
    await conversation(page).getByRole('note', { name: 'Context compacted' }).waitFor()
    expect(app.atelier.agent.conversation({ id: chat.id }).compactions).toHaveLength(1)
    expect(await messageBox(page).inputValue()).toBe('')

    // `/clear`: a new chat in the same folder, opened.
    await choose(page, 'clear')
    await expect.poll(() => app.atelier.chats.list().length).toBe(2)
    const fresh = app.atelier.chats.list().find(({ id }) => id !== chat.id)
    expect(fresh).toMatchObject({ workingDir: folder, mode: 'agent' })
    await page.getByRole('heading', { level: 1, name: fresh?.title }).waitFor()
    await expect.poll(() => conversation(page).textContent()).not.toContain('Fix issue #42.')
  })

  it('undoes the last turn’s changes to the folder with /undo, says when there is nothing to undo, and /plan switches to plan mode', async () => {
    const folder = tempDir()
    const { app, page, fake, chat } = await open({ folder, approvalMode: 'full-auto' })

    await messageBox(page).fill('/undo')
    await messageBox(page).press('Enter')
    await page.getByRole('status').filter({ hasText: 'Nothing to undo' }).waitFor()

    fake.enqueue(
      {
        toolCalls: [{ name: 'write_file', arguments: JSON.stringify({ path: 'notes.txt', content: 'x\n' }) }],
      },
      { text: 'Wrote notes.txt.' },
    )
    await send(page, 'Write the notes')
    await conversationText(page, (text) => text.includes('Wrote notes.txt.'))
    await turnOver(page)
    expect(existsSync(join(folder, 'notes.txt'))).toBe(true)
    // The turn's Changes row is there once its checkpoint has ended.
    await conversation(page).getByRole('region', { name: 'Changes' }).waitFor()

    await choose(page, 'undo')
    await page
      .getByRole('status')
      .filter({ hasText: /^Undone\./ })
      .waitFor()
    expect(existsSync(join(folder, 'notes.txt'))).toBe(false)

    await choose(page, 'plan')
    await page
      .getByRole('status')
      .filter({ hasText: /^Plan mode:/ })
      .waitFor()
    expect(app.atelier.chats.get(chat.id).approvalMode).toBe('plan')
    await expect.poll(() => page.getByRole('combobox', { name: 'Approval mode' }).inputValue()).toBe('plan')
  })
})
