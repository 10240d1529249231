import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { FAKE_PNG } from '../support/fake-provider'
import { conversation, conversationText, messageBox, screenshots, sendButton, useChatApp } from './support'

/**
 * Issue 32, items 3, 4 and 6: a header that fits in one row, chats that keep their place (a new one
 * where the person was, an empty one not kept, the list by day, Ctrl/Cmd+N and Ctrl/Cmd+O), and the
 * paperclip's menu.
 */
describe('the chat for daily use: header, chats that keep their place, attaching', () => {
  const { open, tempDir } = useChatApp()

  const chatList = (page: Page) => page.getByRole('navigation', { name: 'Chats' })
  const chatButton = (page: Page, title: string) =>
    chatList(page).getByRole('button', { name: title, exact: true })
  const folderChip = (page: Page) => page.getByRole('group', { name: 'Project folder' })
  const focused = (page: Page) => messageBox(page).evaluate((element) => element === document.activeElement)

  function project(): string {
    const folder = join(tempDir(), 'billing-service')
    mkdirSync(join(folder, 'src'), { recursive: true })
    writeFileSync(join(folder, 'src', 'invoice.ts'), 'export const total = 42\n')
    return folder
  }

  it('at 1280 px the header is one row and the title keeps 24 characters; at 900 px the chats fold to a rail', async () => {
    const { page, app, chat } = await open({ folder: project() })
    const title = 'Refactor the invoice renderer so totals round once'
    app.atelier.chats.rename({ id: chat.id, title })
    const heading = page.getByRole('heading', { level: 1, name: title })
    await heading.waitFor()
    await page.getByRole('meter', { name: 'Context used' }).waitFor()

    const header = page.locator('.chat-head')
    // Every visible control of the header shares one top; nothing spills out of it.
    const tops = await header.evaluate((element) =>
      [...element.querySelectorAll('button, select, input, [role=switch], [role=meter], h1')]
        .map((control) => control.getBoundingClientRect())
        .filter((box) => box.width > 0 && box.height > 0)
        .map((box) => ({ top: box.top, bottom: box.bottom })),
    )
    expect(tops.length).toBeGreaterThan(6)
    const rowTop = Math.min(...tops.map((box) => box.top))
    const rowBottom = Math.max(...tops.map((box) => box.bottom))
    expect(rowBottom - rowTop).toBeLessThan(40)
    expect(await header.evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(true)
    // The title shows at least its first 24 characters (and the ellipsis) in the room it has.
    const room = await heading.evaluate(
      (element, prefix) => {
        const probe = document.createElement('span')
        probe.textContent = `${prefix}…`
        probe.style.font = getComputedStyle(element).font
        probe.style.whiteSpace = 'pre'
        document.body.append(probe)
        const needed = probe.getBoundingClientRect().width
        probe.remove()
        return { has: element.clientWidth, needed }
      },
      title.slice(0, 24),
    )
    expect(room.has).toBeGreaterThanOrEqual(room.needed)
    // The approval mode and profile are chips of the header; the provider and model sit in the composer.
    for (const name of ['Approval mode', 'Agent profile']) {
      expect(await header.getByRole('combobox', { name }).isVisible()).toBe(true)
    }
    const composer = page.getByRole('form', { name: 'Compose a message' })
    for (const name of ['Provider', 'Model']) {
      expect(await composer.getByRole('combobox', { name }).isVisible()).toBe(true)
    }
    // The gauge comes with its number.
    expect(await header.locator('.context-gauge-text').isVisible()).toBe(true)
    await screenshots(page, 'daily-header-1280')

    await page.setViewportSize({ width: 900, height: 800 })
    await page.getByRole('button', { name: 'Show chats' }).waitFor()
    await chatList(page).waitFor({ state: 'hidden' })
    await heading.waitFor()
    await screenshots(page, 'daily-header-900')

    // Settings' tabs wrap where the window is narrow: none is cut off at the edge.
    await page.setViewportSize({ width: 700, height: 800 })
    await page.getByRole('button', { name: 'Settings', exact: true }).click()
    const tabs = page.getByRole('tab')
    await tabs.first().waitFor()
    const outside = await tabs.evaluateAll((elements) =>
      elements
        .filter((element) => {
          const box = element.getBoundingClientRect()
          return box.left < 0 || box.right > document.documentElement.clientWidth
        })
        .map((element) => element.textContent),
    )
    expect(outside).toEqual([])
    await screenshots(page, 'daily-settings-700')
  })

  it('a new chat keeps the folder, mode and provider; an empty one left behind goes; Ctrl+N and Ctrl+O', async () => {
    const folder = project()
    const { page, app, chat, fake } = await open({ folder })
    const second = app.atelier.providers.create({
      kind: 'openai-chat',
      name: 'Second',
      baseUrl: fake.baseUrlFor('openai-chat'),
      defaultModel: 'm2',
    })
    app.atelier.chats.configure({ id: chat.id, provider: second.id })
    app.atelier.chats.rename({ id: chat.id, title: 'Billing work' })
    await page.getByRole('heading', { level: 1, name: 'Billing work' }).waitFor()
    await expect.poll(() => page.getByRole('combobox', { name: 'Provider' }).inputValue()).toBe(second.id)

    // New chat: where the person was, and the message box has the keyboard.
    await page.getByRole('button', { name: 'New chat', exact: true }).click()
    await page.getByRole('heading', { level: 1, name: 'Untitled chat' }).waitFor()
    await folderChip(page)
      .getByText(/billing-service$/)
      .first()
      .waitFor()
    expect(await page.getByRole('switch', { name: 'Agent mode' }).getAttribute('aria-checked')).toBe('true')
    expect(await page.getByRole('combobox', { name: 'Provider' }).inputValue()).toBe(second.id)
    expect(await focused(page)).toBe(true)
    const made = app.atelier.chats.list().find((each) => each.title === 'Untitled chat')
    expect(made).toMatchObject({ workingDir: folder, mode: 'agent', provider: second.id })
    // The list is by day: both started today.
    const today = chatList(page).getByRole('region', { name: 'Today' })
    await today.getByRole('button', { name: 'Untitled chat', exact: true }).waitFor()
    await today.getByRole('button', { name: 'Billing work', exact: true }).waitFor()
    await screenshots(page, 'daily-new-chat')

    // Left empty and untitled, it goes as soon as another chat is opened.
    await chatButton(page, 'Billing work').click()
    await page.getByRole('heading', { level: 1, name: 'Billing work' }).waitFor()
    await chatButton(page, 'Untitled chat').waitFor({ state: 'detached' })
    expect(app.atelier.chats.list().map((each) => each.title)).toEqual(['Billing work'])

    // Ctrl+N from anywhere: a new chat, the keyboard in its message box; again, and the empty one
    // it leaves goes, so one untitled chat remains.
    await page.getByRole('button', { name: 'Capabilities' }).focus()
    await page.keyboard.press('Control+n')
    await page.getByRole('heading', { level: 1, name: 'Untitled chat' }).waitFor()
    await expect.poll(() => focused(page)).toBe(true)
    const first = app.atelier.chats.list().find((each) => each.title === 'Untitled chat')?.id
    await page.keyboard.press('Control+n')
    await expect.poll(() => app.atelier.chats.list().some((each) => each.id === first)).toBe(false)
    expect(app.atelier.chats.list().filter((each) => each.title === 'Untitled chat')).toHaveLength(1)
    await expect.poll(() => focused(page)).toBe(true)
    await folderChip(page)
      .getByText(/billing-service$/)
      .first()
      .waitFor()

    // Ctrl+O: the folder picker, one key away (the web host's browser; the desktop app's is the OS's).
    await page.keyboard.press('Control+o')
    const browser = page.getByRole('dialog', { name: 'Choose a folder' })
    await browser.waitFor()
    await page.keyboard.press('Escape')
    await browser.waitFor({ state: 'detached' })
  })

  it('groups older chats under their day', async () => {
    const { page, app, chat } = await open()
    app.atelier.chats.rename({ id: chat.id, title: 'Started today' })
    const older = app.atelier.chats.create({ title: 'Started yesterday' })
    // The app stamps a chat when it is made; the test moves one back a day, as time would.
    app.atelier.db
      .prepare('UPDATE chats SET created_at = ? WHERE id = ?')
      .run(Date.now() - 24 * 60 * 60 * 1000, older.id)
    await page.reload()
    const yesterday = chatList(page).getByRole('region', { name: 'Yesterday' })
    await yesterday.getByRole('button', { name: 'Started yesterday', exact: true }).waitFor()
    await chatList(page)
      .getByRole('region', { name: 'Today' })
      .getByRole('button', { name: 'Started today', exact: true })
      .waitFor()
    expect(await chatList(page).getByRole('heading').allTextContents()).toEqual(['Today', 'Yesterday'])
  })

  it('the paperclip opens a menu: a file of the folder, sent as a compact chip; an image from disk', async () => {
    const { page, fake } = await open({ folder: project(), approvalMode: 'full-auto' })
    const attach = page.getByRole('button', { name: 'Attach', exact: true })

    // By keyboard: Enter opens the menu on its first item; Escape closes it back onto the paperclip.
    await attach.focus()
    await page.keyboard.press('Enter')
    const menu = page.getByRole('menu', { name: 'Attach' })
    const fileItem = menu.getByRole('menuitem', { name: /File from the folder/ })
    await expect.poll(() => fileItem.evaluate((element) => element === document.activeElement)).toBe(true)
    expect(await menu.getByRole('menuitem').count()).toBe(3)
    await screenshots(page, 'daily-attach-menu')
    await page.keyboard.press('Escape')
    await menu.waitFor({ state: 'detached' })
    expect(await attach.evaluate((element) => element === document.activeElement)).toBe(true)

    // File from the folder: the folder's search, in the message box.
    await page.keyboard.press('Enter')
    await page.keyboard.press('Enter')
    const files = page.getByRole('listbox', { name: 'Files of the folder' })
    await files.getByRole('option', { name: /invoice\.ts/ }).waitFor()
    expect(await focused(page)).toBe(true)
    await page.keyboard.type('invoice')
    await page.keyboard.press('Enter')
    await files.waitFor({ state: 'hidden' })
    await page
      .getByRole('list', { name: 'Attachments' })
      .getByRole('button', { name: 'Remove file invoice.ts' })
      .waitFor()
    await page.keyboard.type('what is the total?')
    fake.enqueue({ text: 'It is 42.' })
    await sendButton(page).click()
    await conversationText(page, (text) => text.includes('It is 42.'))
    expect(JSON.stringify(fake.requestsOf('openai-chat')[0]?.body)).toContain('export const total = 42')

    // Sent, the file is a chip one line high, not a box.
    const sent = conversation(page).getByRole('list', { name: 'Attached to this message' })
    const chip = sent.getByRole('listitem').filter({ hasText: 'invoice.ts' })
    await chip.waitFor()
    expect((await chip.boundingBox())?.height).toBeLessThan(36)
    await screenshots(page, 'daily-attached-file')

    // Image from disk: the system's file chooser; the image joins the next message.
    await attach.click()
    const chooser = page.waitForEvent('filechooser')
    await menu.getByRole('menuitem', { name: /Image from disk/ }).click()
    await (await chooser).setFiles({ name: 'pixel.png', mimeType: 'image/png', buffer: FAKE_PNG })
    await page.getByRole('list', { name: 'Attachments' }).getByRole('img', { name: 'pixel.png' }).waitFor()
    expect(await focused(page)).toBe(true)
  })
})
