import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import type { ScriptedResponse } from '../support/fake-provider'
import {
  conversation,
  conversationText,
  messageBox,
  screenshot,
  send,
  settingsSection,
  turnOver,
  useChatApp,
} from './support'

/**
 * Checkpoints in the chat: each turn that changed the folder shows what it changed (which call,
 * each file's diff) and can be undone and redone on disk; a file the person changed since is
 * theirs to decide; Esc Esc rewinds files and conversation to before a prompt, the later turns kept
 * in a fork chat.
 */
describe('checkpoints in the chat', () => {
  const { open, tempDir } = useChatApp()

  const call = (name: string, args: Record<string, unknown>) => ({ name, arguments: JSON.stringify(args) })

  /** The turn: reads b.txt (an edit needs it read), then writes a.txt and edits b.txt. */
  const writeAndEdit: ScriptedResponse[] = [
    { toolCalls: [call('read_file', { path: 'b.txt' })] },
    {
      toolCalls: [
        call('write_file', { path: 'a.txt', content: 'new\n' }),
        call('edit_file', { path: 'b.txt', old_string: 'one', new_string: 'two' }),
      ],
    },
    { text: 'Wrote a.txt and edited b.txt.' },
  ]

  const changes = (page: Page) => conversation(page).getByRole('region', { name: 'Changes' })
  const read = (folder: string, name: string) => readFileSync(join(folder, name), 'utf8')

  async function runTurn(page: Page, prompt: string, answer: string) {
    await send(page, prompt)
    await conversationText(page, (text) => text.includes(answer))
    await turnOver(page)
  }

  it('shows a turn’s changes with the call that made each and its diff; Undo restores the files, Redo puts them back', async () => {
    const folder = tempDir()
    writeFileSync(join(folder, 'b.txt'), 'one\n')
    const { page, fake } = await open({ folder, approvalMode: 'full-auto' })
    fake.enqueue(...writeAndEdit)
    await runTurn(page, 'Write and edit', 'Wrote a.txt and edited b.txt.')

    const summary = changes(page)
    const toggle = summary.getByRole('button', { name: 'Changed 2 files · 1 added · 1 modified' })
    await toggle.click()
    expect(await toggle.getAttribute('aria-expanded')).toBe('true')
    const files = summary.getByRole('list', { name: 'Changed files' })
    await files.waitFor()
    const rows = await files.getByRole('listitem').allTextContents()
    expect(rows).toHaveLength(2)
    expect(rows.find((row) => row.includes('a.txt'))).toMatch(/added.*a\.txt.*by write_file/)
    expect(rows.find((row) => row.includes('b.txt'))).toMatch(/modified.*b\.txt.*by edit_file/)
    await summary.getByRole('button', { name: 'Diff of b.txt' }).click()
    const diff = summary.getByRole('figure').filter({ hasText: 'Changes to b.txt' })
    expect(await diff.textContent()).toMatch(/-one[\s\S]*\+two/)
    await screenshot(page, 'checkpoints-changes-light')

    await summary.getByRole('button', { name: 'Undo', exact: true }).click()
    await expect.poll(() => existsSync(join(folder, 'a.txt'))).toBe(false)
    expect(read(folder, 'b.txt')).toBe('one\n')
    await expect.poll(() => summary.getByRole('status').textContent()).toContain('Undone. Restored 2 files.')

    await summary.getByRole('button', { name: 'Redo', exact: true }).click()
    await expect.poll(() => existsSync(join(folder, 'a.txt'))).toBe(true)
    expect(read(folder, 'a.txt')).toBe('new\n')
    expect(read(folder, 'b.txt')).toBe('two\n')
    await expect.poll(() => summary.getByRole('status').textContent()).toContain('Redone.')
    await summary.getByRole('button', { name: 'Undo', exact: true }).waitFor()

    // The next prompt tells the model which files were set back: the person sees it as a chip on it.
    fake.enqueue({ text: 'Noted.' })
    await runTurn(page, 'Carry on', 'Noted.')
    const chips = conversation(page).getByRole('list', { name: 'Attached to this message' })
    const notice = chips.getByRole('listitem').filter({ hasText: 'files restored' })
    expect(await notice.getAttribute('title')).toContain('- a.txt')
    await screenshot(page, 'checkpoints-notice-light')
  })

  it('asks about a file the person changed after the turn: Keep mine keeps it, Take checkpoint restores it', async () => {
    const folder = tempDir()
    writeFileSync(join(folder, 'b.txt'), 'one\n')
    const { page, fake } = await open({ folder, approvalMode: 'full-auto', colorScheme: 'dark' })
    fake.enqueue(...writeAndEdit)
    await runTurn(page, 'Write and edit', 'Wrote a.txt and edited b.txt.')
    const summary = changes(page)
    await summary.waitFor()
    writeFileSync(join(folder, 'b.txt'), 'mine\n')

    await summary.getByRole('button', { name: 'Undo', exact: true }).click()
    let dialog = page.getByRole('dialog', { name: 'Undo: files changed since' })
    const choice = (take: string) =>
      dialog.getByRole('group', { name: 'b.txt' }).getByRole('radio', { name: take })
    await choice('Keep mine').waitFor()
    // Nothing is written before the person decides.
    expect(existsSync(join(folder, 'a.txt'))).toBe(true)
    expect(await choice('Keep mine').isChecked()).toBe(true)
    await screenshot(page, 'checkpoints-conflict-dark')
    await dialog.getByRole('button', { name: 'Undo changes' }).click()
    await dialog.waitFor({ state: 'detached' })
    await expect.poll(() => existsSync(join(folder, 'a.txt'))).toBe(false)
    expect(read(folder, 'b.txt')).toBe('mine\n')
    await expect
      .poll(() => summary.getByRole('status').textContent())
      .toContain('Kept your version of b.txt.')

    // Redo brings a.txt back; b.txt was kept, so the next undo asks again — and this time takes the checkpoint.
    await summary.getByRole('button', { name: 'Redo', exact: true }).click()
    await expect.poll(() => existsSync(join(folder, 'a.txt'))).toBe(true)
    await summary.getByRole('button', { name: 'Undo', exact: true }).click()
    dialog = page.getByRole('dialog', { name: 'Undo: files changed since' })
    await choice('Take checkpoint').check()
    await dialog.getByRole('button', { name: 'Undo changes' }).click()
    await expect.poll(() => read(folder, 'b.txt')).toBe('one\n')
    expect(existsSync(join(folder, 'a.txt'))).toBe(false)
  })

  it('opens the rewind list on Esc Esc; rewinding to the first prompt restores files and conversation, the rest kept in a fork', async () => {
    const folder = tempDir()
    writeFileSync(join(folder, 'b.txt'), 'one\n')
    const { page, fake } = await open({ folder, approvalMode: 'full-auto' })
    fake.enqueue(...writeAndEdit)
    await runTurn(page, 'First: write and edit', 'Wrote a.txt and edited b.txt.')
    fake.enqueue(
      { toolCalls: [call('write_file', { path: 'c.txt', content: 'third\n' })] },
      { text: 'Wrote c.txt.' },
    )
    await runTurn(page, 'Second: write c', 'Wrote c.txt.')
    const chats = page
      .getByRole('navigation', { name: 'Chats' })
      .getByRole('button', { name: /^(?!(Rename|Delete|Pin|Unpin|Archive|Unarchive) chat )/ })
    expect(await chats.count()).toBe(1)

    // Each prompt offers Rewind to here; Esc Esc in the chat opens the list of them, newest first.
    const rewindButtons = conversation(page).getByRole('button', { name: 'Rewind to here' })
    expect(await rewindButtons.count()).toBe(2)
    await rewindButtons.last().click()
    let rewind = page.getByRole('dialog', { name: 'Rewind to here' })
    await rewind.getByRole('listitem').filter({ hasText: 'c.txt' }).waitFor()
    // Conversation only leaves the folder alone: no files are listed.
    await rewind.getByRole('radio', { name: /Conversation only/ }).check()
    await expect.poll(() => rewind.getByRole('list', { name: 'Files to restore' }).count()).toBe(0)
    await rewind.getByRole('button', { name: 'Cancel' }).click()
    await rewind.waitFor({ state: 'detached' })
    expect(existsSync(join(folder, 'c.txt'))).toBe(true)

    await messageBox(page).focus()
    await page.keyboard.press('Escape')
    await page.keyboard.press('Escape')
    const list = page.getByRole('dialog', { name: 'Rewind' })
    const points = list.getByRole('list', { name: 'Prompts' }).getByRole('button')
    await points.first().waitFor()
    expect(await points.allTextContents()).toEqual([
      expect.stringMatching(/^Second: write c.*1 file changed$/),
      expect.stringMatching(/^First: write and edit.*2 files changed$/),
    ])
    await expect
      .poll(() => points.first().evaluate((element) => element === document.activeElement))
      .toBe(true)
    await page.keyboard.press('ArrowDown')
    await page.keyboard.press('Enter')

    rewind = page.getByRole('dialog', { name: 'Rewind to here' })
    expect(await rewind.getByRole('radio', { name: /Files and conversation/ }).isChecked()).toBe(true)
    const restored = rewind.getByRole('list', { name: 'Files to restore' })
    await restored.waitFor()
    expect((await restored.getByRole('listitem').allTextContents()).sort()).toEqual([
      'a.txt',
      'b.txt',
      'c.txt',
    ])
    await screenshot(page, 'checkpoints-rewind-light')
    await rewind.getByRole('button', { name: 'Rewind', exact: true }).click()
    await rewind.waitFor({ state: 'detached' })

    await expect.poll(() => existsSync(join(folder, 'c.txt'))).toBe(false)
    expect(existsSync(join(folder, 'a.txt'))).toBe(false)
    expect(read(folder, 'b.txt')).toBe('one\n')
    // The conversation is cut before the first prompt, which is back in the composer.
    await expect.poll(() => conversation(page).getByText('Wrote c.txt.').count()).toBe(0)
    expect(await conversation(page).getByText('First: write and edit').count()).toBe(0)
    expect(await messageBox(page).inputValue()).toBe('First: write and edit')
    await expect
      .poll(() => messageBox(page).evaluate((element) => element === document.activeElement))
      .toBe(true)

    await expect.poll(() => chats.count()).toBe(2)
    await page.getByRole('button', { name: 'Open fork chat' }).click()
    await conversationText(
      page,
      (text) => text.includes('First: write and edit') && text.includes('Wrote c.txt.'),
    )
  })

  it('shows how far the first snapshot of the chat’s folder has got, until it is done', async () => {
    const folder = tempDir()
    const { page, app } = await open({ folder })
    const status = page.getByRole('status').filter({ hasText: 'Recording folder for checkpoints' })
    app.atelier.events.emit('checkpoints.progress', { folder, files: 12345, bytes: 1e8, done: false })
    await expect.poll(() => status.textContent()).toBe('Recording folder for checkpoints… 12,345 files')
    // Another folder's snapshot is not this chat's.
    app.atelier.events.emit('checkpoints.progress', { folder: tempDir(), files: 1, bytes: 1, done: true })
    await page.waitForTimeout(100)
    expect(await status.count()).toBe(1)
    app.atelier.events.emit('checkpoints.progress', { folder, files: 20000, bytes: 2e8, done: true })
    await status.waitFor({ state: 'detached' })
  })

  it('saves the checkpoint settings from Settings → Checkpoints', async () => {
    const { page, app } = await open()
    const section = await settingsSection(page, 'Checkpoints')
    await section.getByRole('switch', { name: 'Record checkpoints' }).click()
    await expect.poll(() => app.atelier.preferences.get().checkpoints.enabled).toBe(false)

    const days = section.getByRole('spinbutton', { name: 'Keep checkpoints for (days)' })
    await days.fill('7')
    await days.press('Enter')
    await expect.poll(() => app.atelier.preferences.get().checkpoints.retentionDays).toBe(7)
    const size = section.getByRole('spinbutton', {
      name: 'Files larger than (MiB) are recorded by size only',
    })
    await size.fill('12')
    await size.press('Enter')
    await expect.poll(() => app.atelier.preferences.get().checkpoints.maxFileBytes).toBe(12 * 1024 * 1024)

    await section.getByRole('button', { name: 'Add to Folders without checkpoints' }).click()
    await section.getByRole('textbox', { name: 'Folders without checkpoints 1' }).fill('/srv/data')
    await section.getByRole('button', { name: 'Save folders without checkpoints' }).click()
    await expect.poll(() => app.atelier.preferences.get().checkpoints.offFolders).toEqual(['/srv/data'])
  })
})
