import { mkdirSync, realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { screenshots, useChatApp } from './support'

/**
 * Issue 19, items 7 and 9: the chat header at any width (the folder chip, one row at 700 px, the
 * chats' sidebar collapsing) and the web host's folder browser.
 */
describe('the first hour: header, sidebar and folder browser', () => {
  const { open, tempDir } = useChatApp()

  const folderChip = (page: Page) => page.getByRole('group', { name: 'Project folder' })
  const chatList = (page: Page) => page.getByRole('navigation', { name: 'Chats' })

  it('item 7: the folder chip says where the folder lives, home as ~, the full path on hover and to screen readers', async () => {
    const home = realpathSync(tempDir())
    const project = join(home, 'code', 'project')
    mkdirSync(project, { recursive: true })
    const { page, app, chat } = await open({ folder: project, home })

    const chip = folderChip(page)
    await chip.getByText('~/code/project', { exact: true }).waitFor()
    // Not the folder's name twice over, as it was.
    expect(await chip.getByText('project', { exact: true }).count()).toBe(0)
    // Hovering shows the whole path; a screen reader hears it as the chip's description.
    expect(await hoverText(chip.getByText('~/code/project', { exact: true }))).toBe(project)
    expect(await description(chip)).toContain(project)

    // A deep folder outside home keeps its start and its name, the middle elided.
    const deep = join(tempDir(), 'clients', 'northwind', 'services', 'billing', 'workers', 'invoice-renderer')
    mkdirSync(deep, { recursive: true })
    app.atelier.chats.configure({ id: chat.id, workingDir: deep })
    const shown = chip.getByText(/….*invoice-renderer$/)
    await shown.waitFor()
    const text = (await shown.textContent()) ?? ''
    expect(text).toContain('…')
    expect(text.length).toBeLessThan(deep.length)
    expect(text.startsWith(deep.split('/').slice(0, 2).join('/'))).toBe(true)
    expect(await hoverText(shown)).toBe(realpathSync(deep))
    expect(await description(chip)).toContain(realpathSync(deep))

    app.atelier.chats.configure({ id: chat.id, workingDir: project })
    await chip.getByText('~/code/project', { exact: true }).waitFor()
    await screenshots(page, 'first-hour-7-folder-chip')
  })

  it('item 7: at 700 px the header keeps to one row and the chats fold behind "Show chats"', async () => {
    const home = realpathSync(tempDir())
    const project = join(home, 'code', 'a-project-with-a-rather-long-name')
    mkdirSync(project, { recursive: true })
    const { page, app, chat } = await open({ folder: project, home })
    await page.setViewportSize({ width: 700, height: 800 })

    // The sidebar folds away on its own; a button brings it back.
    const show = page.getByRole('button', { name: 'Show chats' })
    await show.waitFor()
    await chatList(page).waitFor({ state: 'hidden' })
    const header = page.locator('.chat-head')
    await expect.poll(async () => (await header.boundingBox())?.height ?? 0).toBeLessThan(64)
    expect(await header.evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(true)
    // Every visible control of the header sits on the same line.
    const middles = await header.evaluate((element) =>
      [...element.querySelectorAll('button, select, input, [role=switch], h1')]
        .map((control) => control.getBoundingClientRect())
        .filter((box) => box.width > 0 && box.height > 0)
        .map((box) => box.top + box.height / 2),
    )
    expect(middles.length).toBeGreaterThan(3)
    expect(Math.max(...middles) - Math.min(...middles)).toBeLessThan(8)
    await page.getByRole('heading', { level: 1, name: chat.title }).waitFor()
    await folderChip(page).getByText(/^~\//).waitFor()
    // Shrunk to their icons, the header's buttons keep their names.
    for (const name of ['Choose folder', 'Clear folder', 'Compact now', 'Capabilities']) {
      await page.getByRole('button', { name, exact: true }).waitFor()
    }

    // The controls that do not fit are one click (or Enter) away, under More.
    await expect.poll(() => page.getByRole('combobox', { name: 'Approval mode' }).isVisible()).toBe(false)
    const more = page.getByRole('button', { name: 'More chat settings' })
    await more.focus()
    await page.keyboard.press('Enter')
    expect(await more.getAttribute('aria-expanded')).toBe('true')
    const approval = page.getByRole('combobox', { name: 'Approval mode' })
    await approval.waitFor()
    await approval.selectOption('read-only')
    await expect.poll(() => app.atelier.chats.get(chat.id).approvalMode).toBe('read-only')
    await page.getByRole('combobox', { name: 'Model' }).waitFor()
    await screenshots(page, 'first-hour-7-narrow-more')
    await page.keyboard.press('Escape')
    await approval.waitFor({ state: 'hidden' })
    expect(await more.evaluate((element) => element === document.activeElement)).toBe(true)
    await screenshots(page, 'first-hour-7-narrow')

    // Show chats opens the list over the chat; Escape folds it again, back to the button.
    await show.click()
    await chatList(page).waitFor()
    await screenshots(page, 'first-hour-7-narrow-chats')
    await page.keyboard.press('Escape')
    await chatList(page).waitFor({ state: 'hidden' })
    expect(await show.evaluate((element) => element === document.activeElement)).toBe(true)
    // Choosing a chat in the open list folds it too.
    await show.click()
    await chatList(page).getByRole('button', { name: chat.title, exact: true }).click()
    await chatList(page).waitFor({ state: 'hidden' })

    // Folded, the rail still opens Settings.
    await page.getByRole('button', { name: 'Settings', exact: true }).click()
    await page.getByRole('tab', { name: 'Appearance', exact: true }).waitFor()
    await screenshots(page, 'first-hour-7-narrow-settings')
  })

  it('item 7: at full width Hide chats folds the sidebar, by keyboard too, and the choice is remembered', async () => {
    const { page } = await open()
    const hide = page.getByRole('button', { name: 'Hide chats' })
    await hide.focus()
    await page.keyboard.press('Enter')
    await chatList(page).waitFor({ state: 'hidden' })
    const show = page.getByRole('button', { name: 'Show chats' })
    expect(await show.evaluate((element) => element === document.activeElement)).toBe(true)
    // The chat takes the room the list had.
    expect((await page.locator('.chat-head').boundingBox())?.width).toBeGreaterThan(1100)
    // Folded, New chat and Settings are still at hand.
    await page.getByRole('button', { name: 'New chat' }).waitFor()
    await page.getByRole('button', { name: 'Settings', exact: true }).waitFor()

    await page.reload()
    await show.waitFor()
    expect(await chatList(page).isVisible()).toBe(false)
    await page.keyboard.press('Tab')
    await show.focus()
    await page.keyboard.press('Space')
    await chatList(page).waitFor()
    await page.reload()
    await chatList(page).waitFor()
    await hide.waitFor()
  })

  it('item 9: the folder browser opens at the last folder at once, shows files greyed, filters, and opens rows with Enter', async () => {
    const home = realpathSync(tempDir())
    const project = join(home, 'code', 'garden')
    for (const folder of ['src/lib', 'src/views', 'docs', '.git'])
      mkdirSync(join(project, folder), { recursive: true })
    writeFileSync(join(project, 'README.md'), '# Garden\n')
    writeFileSync(join(project, 'package.json'), '{}\n')
    const { page, app, chat } = await open({ home })
    // Another chat used the project folder last: that is where the browser starts.
    const other = app.atelier.chats.create({ title: 'Earlier work' })
    app.atelier.chats.configure({ id: other.id, workingDir: project, mode: 'agent' })

    // Watch the dialog from its first frame: it must never say "Loading…".
    await page.evaluate(() => {
      const seen = { loading: false }
      ;(window as unknown as { __seen: typeof seen }).__seen = seen
      new MutationObserver(() => {
        const dialog = document.querySelector('dialog')
        if (dialog?.textContent?.includes('Loading')) seen.loading = true
      }).observe(document.body, { subtree: true, childList: true, characterData: true })
    })
    await page.getByRole('button', { name: 'Choose folder' }).click()
    const dialog = page.getByRole('dialog', { name: 'Choose a folder' })
    await dialog.waitFor()
    const entries = dialog.getByRole('region', { name: 'Folder contents' })
    expect(await entries.getByText(project, { exact: true }).isVisible()).toBe(true)
    expect(await entries.getByRole('button', { name: 'src', exact: true }).isVisible()).toBe(true)
    expect(
      await page.evaluate(() => (window as unknown as { __seen: { loading: boolean } }).__seen.loading),
    ).toBe(false)

    // Files show, greyed, so the project is recognisable; they cannot be chosen.
    const readme = entries.getByRole('listitem').filter({ hasText: 'README.md' })
    await readme.waitFor()
    expect(await entries.getByRole('button', { name: 'README.md' }).count()).toBe(0)
    const [fileColour, folderColour] = await Promise.all([
      readme.evaluate((element) => getComputedStyle(element).color),
      entries
        .getByRole('button', { name: 'src', exact: true })
        .evaluate((element) => getComputedStyle(element).color),
    ])
    expect(fileColour).not.toBe(folderColour)
    await screenshots(page, 'first-hour-9-folder-browser')

    // The filter narrows this folder's entries by name; ↓ goes to the rows, Enter opens one.
    const filter = dialog.getByRole('searchbox', { name: 'Filter' })
    await filter.fill('SR')
    await expect.poll(() => entries.getByRole('listitem').allTextContents()).toEqual(['src'])
    await page.keyboard.press('ArrowDown')
    expect(
      await entries
        .getByRole('button', { name: 'src', exact: true })
        .evaluate((e) => e === document.activeElement),
    ).toBe(true)
    await page.keyboard.press('Enter')
    await entries.getByText(join(project, 'src'), { exact: true }).waitFor()
    expect(await filter.inputValue()).toBe('')
    // Focus stays in the rows: arrows move between them, Enter opens.
    const lib = entries.getByRole('button', { name: 'lib', exact: true })
    const views = entries.getByRole('button', { name: 'views', exact: true })
    expect(await lib.evaluate((element) => element === document.activeElement)).toBe(true)
    await page.keyboard.press('ArrowDown')
    expect(await views.evaluate((element) => element === document.activeElement)).toBe(true)
    await page.keyboard.press('ArrowUp')
    expect(await lib.evaluate((element) => element === document.activeElement)).toBe(true)
    await page.keyboard.press('ArrowUp')
    expect(await filter.evaluate((element) => element === document.activeElement)).toBe(true)

    await dialog.getByRole('button', { name: 'Use this folder' }).click()
    await dialog.waitFor({ state: 'detached' })
    await expect.poll(() => app.atelier.chats.get(chat.id).workingDir).toBe(join(project, 'src'))

    // Opened again, it starts at the chat's own folder.
    await page.getByRole('button', { name: 'Choose folder' }).click()
    await entries.getByText(join(project, 'src'), { exact: true }).waitFor()
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    await dialog.waitFor({ state: 'detached' })
  })

  it('item 9: a folder of very many files lists the first 500 and says so', async () => {
    const folder = realpathSync(tempDir())
    for (let index = 0; index < 520; index++)
      writeFileSync(join(folder, `file-${String(index).padStart(3, '0')}.txt`), '')
    mkdirSync(join(folder, 'zz-folder'))
    const { page } = await open({ folder })
    await page.getByRole('button', { name: 'Choose folder' }).click()
    const dialog = page.getByRole('dialog', { name: 'Choose a folder' })
    const entries = dialog.getByRole('region', { name: 'Folder contents' })
    await entries.getByRole('button', { name: 'zz-folder', exact: true }).waitFor()
    await dialog.getByText('Showing the first 500 of 520 files.').waitFor()
    expect(await entries.getByRole('listitem').count()).toBe(501)
  })
})

/** The tooltip the element shows on hover (its own title or its nearest ancestor's). */
function hoverText(locator: ReturnType<Page['locator']>): Promise<string | null | undefined> {
  return locator.evaluate((element) => element.closest('[title]')?.getAttribute('title'))
}

/** The text of the elements an element's aria-describedby points at. */
function description(locator: ReturnType<Page['locator']>): Promise<string> {
  return locator.evaluate((element) =>
    (element.getAttribute('aria-describedby') ?? '')
      .split(/\s+/)
      .map((id) => document.getElementById(id)?.textContent ?? '')
      .join(' '),
  )
}
