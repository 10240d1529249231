import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { conversationText, screenshot, send, settingsSection, turnOver, useChatApp } from './support'

/**
 * The project's instruction files as a person sees them: "AGENTS.md" in the chat's header, each
 * file with its tokens in Capabilities, and the names looked for edited in Settings → Agent profiles.
 */
describe('project instructions in the app', () => {
  const { open, tempDir } = useChatApp()

  const chip = (page: Page) => page.getByTitle(/^Project instructions:/)

  async function capabilities(page: Page): Promise<string> {
    await page.getByRole('button', { name: 'Capabilities', exact: true }).click()
    const dialog = page.getByRole('dialog', { name: 'Capabilities' })
    const section = dialog.getByRole('region', { name: 'Project instructions' })
    await section.waitFor()
    const text = (await section.textContent()) ?? ''
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'hidden' })
    return text
  }

  it('shows the loaded files in the header and Capabilities, sends them, and follows the names set in Settings', async () => {
    const folder = tempDir()
    mkdirSync(join(folder, '.git'))
    writeFileSync(join(folder, 'AGENTS.md'), 'Run the tests with npm test.\n')
    writeFileSync(join(folder, 'CLAUDE.md'), 'Prefer small commits.\n')
    const { page, fake } = await open({ folder, approvalMode: 'full-auto' })

    await chip(page).waitFor()
    expect(await chip(page).textContent()).toBe('AGENTS.md')
    expect(await capabilities(page)).toMatch(/AGENTS\.md · about \d+ tokens/)

    fake.enqueue({ text: 'Noted.' })
    await send(page, 'How are the tests run?')
    await conversationText(page, (text) => text.includes('Noted.'))
    await turnOver(page)
    const request = JSON.stringify(fake.requestsOf('openai-chat').at(-1)?.body)
    expect(request).toContain('Run the tests with npm test.')
    expect(request).not.toContain('Prefer small commits.')

    // Only CLAUDE.md looked for: Capabilities now lists that one.
    const panel = await settingsSection(page, 'Agent profiles')
    const names = panel.getByRole('group', { name: 'File names, first found wins' })
    await names.getByRole('button', { name: 'Remove AGENTS.md from File names, first found wins' }).click()
    await panel.getByRole('button', { name: 'Save file names' }).click()
    await expect.poll(() => panel.getByText('Not saved yet.').count()).toBe(0)
    await screenshot(page, 'settings-instruction-files-light')
    await page.getByRole('button', { name: 'Close settings' }).click()
    const listed = await capabilities(page)
    expect(listed).toContain('CLAUDE.md')
    expect(listed).not.toContain('AGENTS.md')
  })
})
