import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { messageBox, useChatApp } from './support'

/** Issue 40, item 5: a chat whose folder is gone says so, and the `@` menu says why it is empty. */
describe('a chat whose folder is gone', () => {
  const { open, tempDir } = useChatApp()

  it('says so in the header and in the @ menu, until the chat is bound to a folder that is there', async () => {
    const folder = tempDir()
    writeFileSync(join(folder, 'notes.txt'), 'notes\n')
    const { app, chat, page } = await open({ folder })
    const chip = page.getByRole('group', { name: 'Project folder' })
    await chip.waitFor()
    // Long enough for the header to have asked whether the folder is there.
    await page.waitForTimeout(300)
    expect(await chip.getByText('Folder missing').count()).toBe(0)

    rmSync(folder, { recursive: true })
    // Nothing announces a deleted folder; the window coming back to the front asks again.
    await page.evaluate(() => window.dispatchEvent(new Event('focus')))
    await chip.getByRole('status').filter({ hasText: 'Folder missing' }).waitFor()

    await messageBox(page).fill('look at @')
    await page.getByText(/The chat’s folder is gone/).waitFor()

    const again = tempDir()
    app.atelier.chats.configure({ id: chat.id, workingDir: again })
    await chip.getByText('Folder missing').waitFor({ state: 'detached' })
  })
})
