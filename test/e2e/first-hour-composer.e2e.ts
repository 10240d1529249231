import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { FAKE_PNG } from '../support/fake-provider'
import {
  conversation,
  conversationText,
  messageBox,
  screenshot,
  send,
  sendButton,
  type Theme,
  turnOver,
  useChatApp,
} from './support'

// biome-ignore lint/suspicious/noExplicitAny: a recorded request body, read deep.
type Wire = any

const MARKER = 'export const codeWord = "HERON-17"'

/** Issue 19, item 12: what a person expects of a composer — `@` for files, pasted images, ↑ for history. */
describe('the composer a person expects (first hour, item 12)', () => {
  const { open, tempDir } = useChatApp()

  /** A small project: a source file, one .gitignore excludes, and a few more. */
  function project(): string {
    const folder = tempDir()
    mkdirSync(join(folder, 'src', 'lib'), { recursive: true })
    mkdirSync(join(folder, 'dist'), { recursive: true })
    writeFileSync(join(folder, '.gitignore'), 'dist/\n')
    writeFileSync(join(folder, 'src', 'app.ts'), `${MARKER}\n`)
    writeFileSync(join(folder, 'src', 'lib', 'apply.ts'), 'export {}\n')
    writeFileSync(join(folder, 'README.md'), '# Project\n')
    writeFileSync(join(folder, 'dist', 'app.js'), 'built\n')
    return folder
  }

  const userMessageOf = (body: Wire) => body.messages.find((message: Wire) => message.role === 'user')

  async function mentionMenu(page: Page, theme: Theme) {
    await messageBox(page).fill('What does @app')
    const menu = page.getByRole('listbox', { name: 'Files of the folder' })
    await menu
      .getByRole('option', { name: /app\.ts/ })
      .first()
      .waitFor()
    await screenshot(page, `first-hour-12-${theme}`)
    return menu
  }

  it("@ searches the chat's folder; the chosen file's content goes with the message, shown as an attachment", async () => {
    const folder = project()
    const { page, fake } = await open({ folder, approvalMode: 'full-auto' })

    const menu = await mentionMenu(page, 'light')
    // Fuzzy: "app" finds src/app.ts first and src/lib/apply.ts too; .gitignore keeps dist/app.js out.
    const options = await menu.getByRole('option').allTextContents()
    expect(options[0]).toContain('app.ts')
    expect(options.some((option) => option.includes('apply.ts'))).toBe(true)
    expect(options.some((option) => option.includes('app.js'))).toBe(false)
    expect(await menu.getByRole('option').first().getAttribute('aria-selected')).toBe('true')

    await messageBox(page).press('Enter')
    await menu.waitFor({ state: 'hidden' })
    expect(await messageBox(page).inputValue()).toBe('What does @src/app.ts ')
    const chips = page.getByRole('list', { name: 'Attachments' })
    await chips.getByRole('button', { name: 'Remove file app.ts' }).waitFor()

    fake.enqueue({ text: 'It exports the code word.' })
    await messageBox(page).pressSequentially('export?')
    await sendButton(page).click()
    await conversationText(page, (text) => text.includes('It exports the code word.'))

    const user = userMessageOf(fake.requestsOf('openai-chat')[0]?.body)
    expect(user.content).toContain('<file path="src/app.ts">')
    expect(user.content).toContain(MARKER)
    expect(user.content.endsWith('What does @src/app.ts export?')).toBe(true)
    const sent = conversation(page).getByRole('list', { name: 'Attached to this message' })
    await sent.getByText('app.ts', { exact: true }).waitFor()

    // Dark too, for the screenshot.
    const dark = await open({ folder, colorScheme: 'dark' })
    await mentionMenu(dark.page, 'dark')
  })

  it('@ in a chat without a folder is only a character', async () => {
    const { page } = await open()
    await messageBox(page).fill('mail me @')
    // Long enough for a menu to have opened and asked for files.
    await page.waitForTimeout(300)
    expect(await page.getByRole('listbox').count()).toBe(0)
  })

  async function pasteImage(page: Page, name: string) {
    await messageBox(page).focus()
    await page.evaluate(
      ({ base64, name }) => {
        const bytes = Uint8Array.from(atob(base64), (char) => char.charCodeAt(0))
        const data = new DataTransfer()
        data.items.add(new File([bytes], name, { type: 'image/png' }))
        const paste = new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true })
        document.activeElement?.dispatchEvent(paste)
      },
      { base64: FAKE_PNG.toString('base64'), name },
    )
  }

  it("a pasted image goes to the model in the provider's own format and shows as a thumbnail; a dropped one attaches too", async () => {
    const { page, fake } = await open({ approvalMode: 'full-auto' })

    await pasteImage(page, 'diagram.png')
    const chips = page.getByRole('list', { name: 'Attachments' })
    await chips.getByRole('img', { name: 'diagram.png' }).waitFor()
    await chips.getByRole('button', { name: 'Remove image diagram.png' }).waitFor()
    // Nothing of the image lands in the box as text.
    expect(await messageBox(page).inputValue()).toBe('')
    await messageBox(page).fill('What is in this picture?')
    await screenshot(page, 'first-hour-12-image-light')

    fake.enqueue({ text: 'A single pixel.' })
    await sendButton(page).click()
    await conversationText(page, (text) => text.includes('A single pixel.'))

    const user = userMessageOf(fake.requestsOf('openai-chat')[0]?.body)
    expect(user.content).toEqual([
      { type: 'image_url', image_url: { url: `data:image/png;base64,${FAKE_PNG.toString('base64')}` } },
      { type: 'text', text: 'What is in this picture?' },
    ])
    // The bubble shows the image, read back from where main saved it — and after a reload.
    const sent = conversation(page).getByRole('list', { name: 'Attached to this message' })
    await sent.getByRole('img', { name: 'diagram.png' }).waitFor()
    await page.reload()
    await conversation(page)
      .getByRole('list', { name: 'Attached to this message' })
      .getByRole('img', { name: 'diagram.png' })
      .waitFor()
    await screenshot(page, 'first-hour-12-image-sent-light')

    // A drop onto the composer attaches the same way; Remove takes it off again.
    await page.evaluate(
      ({ base64 }) => {
        const bytes = Uint8Array.from(atob(base64), (char) => char.charCodeAt(0))
        const data = new DataTransfer()
        data.items.add(new File([bytes], 'dropped.png', { type: 'image/png' }))
        const form = document.querySelector('form[aria-label="Compose a message"]')
        for (const type of ['dragenter', 'dragover', 'drop']) {
          form?.dispatchEvent(new DragEvent(type, { dataTransfer: data, bubbles: true, cancelable: true }))
        }
      },
      { base64: FAKE_PNG.toString('base64') },
    )
    await chips.getByRole('button', { name: 'Remove image dropped.png' }).click()
    await chips.waitFor({ state: 'detached' })

    const dark = await open({ colorScheme: 'dark' })
    await pasteImage(dark.page, 'diagram.png')
    await dark.page.getByRole('img', { name: 'diagram.png' }).waitFor()
    await messageBox(dark.page).fill('What is in this picture?')
    await screenshot(dark.page, 'first-hour-12-image-dark')
    dark.fake.enqueue({ text: 'A single pixel.' })
    await sendButton(dark.page).click()
    await conversationText(dark.page, (text) => text.includes('A single pixel.'))
    await conversation(dark.page).getByRole('img', { name: 'diagram.png' }).waitFor()
    await screenshot(dark.page, 'first-hour-12-image-sent-dark')
  })

  it("↑ recalls the chat's earlier prompts, newest first; ↓ goes forward; Escape and typing leave history; the @ menu keeps its own ↑/↓", async () => {
    const { page, fake } = await open({ folder: project(), approvalMode: 'full-auto' })
    for (const prompt of ['first question', 'second question']) {
      fake.enqueue({ text: `answer to ${prompt}` })
      await send(page, prompt)
      await conversationText(page, (text) => text.includes(`answer to ${prompt}`))
      await turnOver(page)
    }
    const box = messageBox(page)
    await box.focus()
    await box.press('ArrowUp')
    expect(await box.inputValue()).toBe('second question')
    await box.press('ArrowUp')
    expect(await box.inputValue()).toBe('first question')
    // The oldest stays.
    await box.press('ArrowUp')
    expect(await box.inputValue()).toBe('first question')
    await box.press('ArrowDown')
    expect(await box.inputValue()).toBe('second question')
    // Past the newest: back to what was being written (nothing).
    await box.press('ArrowDown')
    expect(await box.inputValue()).toBe('')

    // Escape gives back the draft.
    await box.fill('a draft')
    await box.press('Home')
    await box.press('ArrowUp')
    expect(await box.inputValue()).toBe('second question')
    await box.press('Escape')
    expect(await box.inputValue()).toBe('a draft')

    // Typing edits a recalled prompt, which is then the person's own: ↓ does not swap it out.
    await box.fill('')
    await box.press('ArrowUp')
    await box.press('End')
    await box.pressSequentially(' again')
    await box.press('ArrowDown')
    expect(await box.inputValue()).toBe('second question again')

    // With the @ menu open, ↑/↓ move through its options and leave the text alone.
    await box.fill('@')
    const menu = page.getByRole('listbox', { name: 'Files of the folder' })
    await menu.getByRole('option').nth(1).waitFor()
    await box.press('ArrowDown')
    expect(await menu.getByRole('option').nth(1).getAttribute('aria-selected')).toBe('true')
    await box.press('ArrowUp')
    expect(await menu.getByRole('option').nth(0).getAttribute('aria-selected')).toBe('true')
    expect(await box.inputValue()).toBe('@')
  })
})
