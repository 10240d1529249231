import { readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { MAX_CHAT_IMPORT_CHARS } from '../../src-shared/contract'
import { conversation, conversationText, screenshot, send, turnOver, useChatApp } from './support'

const chatList = (page: Page) => page.getByRole('navigation', { name: 'Chats' })
const heading = (page: Page) => page.getByRole('heading', { level: 1 })
/** The titles the list shows, top to bottom. */
const listed = (page: Page) => chatList(page).locator('.chat-link').allTextContents()

async function runTurn(page: Page, text: string, reply: string) {
  await send(page, text)
  await conversationText(page, (shown) => shown.includes(reply))
  await turnOver(page)
}

/** The chats as a library (issue 39, items 1 and 3): pin, archive, export, import, fork links. */
describe('the chat library', () => {
  const { open, tempDir } = useChatApp()

  it('pins a chat to the top and archives one out of the list, with a way back to it', async () => {
    const { page, app } = await open()
    app.atelier.chats.create({ title: 'Alpha' })
    app.atelier.chats.create({ title: 'Beta' })
    await expect.poll(() => listed(page)).toEqual(['Beta', 'Alpha', 'Untitled chat'])

    await chatList(page).getByRole('button', { name: 'Pin chat Alpha' }).click()
    await expect.poll(() => listed(page)).toEqual(['Alpha', 'Beta', 'Untitled chat'])
    await chatList(page).getByRole('region', { name: 'Pinned' }).getByText('Alpha').waitFor()
    expect(app.atelier.chats.list()[0]).toMatchObject({ title: 'Alpha', pinned: true })

    await chatList(page).getByRole('button', { name: 'Archive chat Beta' }).click()
    await expect.poll(() => listed(page)).toEqual(['Alpha', 'Untitled chat'])
    const archived = page.getByRole('button', { name: 'Archived (1)' })
    await archived.click()
    expect(await archived.getAttribute('aria-pressed')).toBe('true')
    await expect.poll(() => listed(page)).toEqual(['Beta'])
    await screenshot(page, 'chat-library-archived-light')
    await chatList(page).getByRole('button', { name: 'Unarchive chat Beta' }).click()
    await chatList(page).getByText('No archived chats.').waitFor()
    await page.getByRole('button', { name: 'Archived', exact: true }).click()
    await expect.poll(() => listed(page)).toEqual(['Alpha', 'Beta', 'Untitled chat'])
  })

  it('exports a chat as Markdown and JSON, imports the JSON back, and refuses a file cut short or too large', async () => {
    const { page, app, fake } = await open()
    fake.enqueue({ text: 'The answer is **42**.' })
    await runTurn(page, 'What is the answer?', '42')

    const exportAs = async (label: string) => {
      await page.getByRole('button', { name: 'Export', exact: true }).click()
      const menu = page.getByRole('menu', { name: 'Export chat' })
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        menu.getByRole('menuitem', { name: label }).click(),
      ])
      return { name: download.suggestedFilename(), text: readFileSync(await download.path(), 'utf8') }
    }
    const markdown = await exportAs('Export as Markdown')
    expect(markdown.name).toBe('What-is-the-answer.md')
    expect(markdown.text).toContain('# What is the answer?\n')
    expect(markdown.text).toContain('## Answer\n\nThe answer is **42**.')
    const json = await exportAs('Export as JSON')
    expect(json.name).toBe('What-is-the-answer.json')

    const importFile = page.getByLabel('Chat file to import')
    await importFile.setInputFiles({
      name: 'cut.json',
      mimeType: 'application/json',
      buffer: Buffer.from(json.text.slice(0, 100)),
    })
    await page.getByRole('alert').filter({ hasText: 'cannot be imported as a chat' }).waitFor()
    expect(app.atelier.chats.list()).toHaveLength(1)
    // Too large to send: refused in the renderer, saying its size, before the web host's own limit.
    const large = join(tempDir(), 'large.json')
    writeFileSync(large, Buffer.concat([Buffer.from(json.text), Buffer.alloc(MAX_CHAT_IMPORT_CHARS, ' ')]))
    await importFile.setInputFiles(large)
    await page.getByRole('alert').filter({ hasText: 'chat files up to 64.0 MB' }).waitFor()
    expect(app.atelier.chats.list()).toHaveLength(1)

    await importFile.setInputFiles({
      name: json.name,
      mimeType: 'application/json',
      buffer: Buffer.from(json.text),
    })
    await expect.poll(() => app.atelier.chats.list().length).toBe(2)
    const imported = app.atelier.chats.list()[0]
    await chatList(page).getByRole('button', { name: 'What is the answer?', exact: true }).first().waitFor()
    await expect.poll(() => page.locator('.chat-link[aria-current="page"]').count()).toBe(1)
    await conversationText(page, (text) => text.includes('The answer is 42.'))
    expect(imported?.title).toBe('What is the answer?')
  })

  it('links a fork to the chat it was forked from, and that chat to its forks', async () => {
    const { page, fake } = await open()
    fake.enqueue({ text: 'One.' }, { text: 'Two.' })
    await runTurn(page, 'first', 'One.')
    await runTurn(page, 'second', 'Two.')

    const answer = conversation(page).getByRole('article', { name: 'Answer' }).filter({ hasText: 'One.' })
    await answer.hover()
    await answer.getByRole('button', { name: 'Fork from here' }).click()
    await expect.poll(() => heading(page).textContent()).toBe('first (fork)')
    const lineage = page.getByRole('navigation', { name: 'Forks' })
    await screenshot(page, 'chat-library-fork-light')
    await lineage.getByRole('button', { name: 'first', exact: true }).click()
    await expect.poll(() => heading(page).textContent()).toBe('first')
    await lineage.getByRole('button', { name: 'first (fork)' }).click()
    await expect.poll(() => heading(page).textContent()).toBe('first (fork)')
  })

  /** A chat in agent mode whose two turns wrote `a.txt` (`one`, then `two`), with its first answer. */
  async function twoWrites() {
    const folder = realpathSync(tempDir())
    const opened = await open({ folder, approvalMode: 'full-auto' })
    const { page, fake } = opened
    const write = (id: string, content: string) => ({
      toolCalls: [{ id, name: 'write_file', arguments: JSON.stringify({ path: 'a.txt', content }) }],
    })
    fake.enqueue(write('w1', 'one\n'), { text: 'Wrote one.' }, write('w2', 'two\n'), { text: 'Wrote two.' })
    await runTurn(page, 'write one', 'Wrote one.')
    await runTurn(page, 'write two', 'Wrote two.')
    const answers = conversation(page).getByRole('article', { name: 'Answer' })
    return {
      ...opened,
      file: join(folder, 'a.txt'),
      first: answers.filter({ hasText: 'Wrote one.' }),
      answers,
    }
  }

  it('forks with files: the folder goes back to how the forked turn left it', async () => {
    const { page, file, first, answers } = await twoWrites()
    expect(readFileSync(file, 'utf8')).toBe('two\n')
    await first.hover()
    // The last answer has nothing after it to set back: only the earlier one offers it.
    const last = answers.filter({ hasText: 'Wrote two.' })
    expect(await last.getByRole('button', { name: 'Fork with files' }).count()).toBe(0)
    await first.getByRole('button', { name: 'Fork with files' }).click()
    await expect.poll(() => heading(page).textContent()).toBe('write one (fork)')
    expect(readFileSync(file, 'utf8')).toBe('one\n')
  })

  it('forks with files but keeps a file changed since as the person has it, and says so', async () => {
    const { page, file, first } = await twoWrites()
    writeFileSync(file, 'mine\n')
    await first.hover()
    await first.getByRole('button', { name: 'Fork with files' }).click()
    const notice = page.getByRole('status').filter({ hasText: 'not set back, as you have them: a.txt' })
    await notice.waitFor()
    expect(readFileSync(file, 'utf8')).toBe('mine\n')
    await notice.getByRole('button', { name: 'Open fork' }).click()
    await expect.poll(() => heading(page).textContent()).toBe('write one (fork)')
  })
})
