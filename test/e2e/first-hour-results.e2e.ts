import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Locator } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import {
  conversation,
  conversationText,
  openToolCall,
  screenshot,
  send,
  settingsSection,
  type Theme,
  toolCard,
  turnOver,
  useChatApp,
} from './support'

/**
 * Issue 19, items 4–6: tool results read per kind, errors that say what to do, and the provider
 * form. In Chromium against the web host, found by role and accessible name.
 */
describe('the first hour: results, errors and the provider form', () => {
  const { open, tempDir } = useChatApp()

  /** A folder with a 30-line TypeScript file and a second file, for the file tools to work on. */
  function project(): string {
    const folder = tempDir()
    mkdirSync(join(folder, 'src'))
    const lines = Array.from(
      { length: 30 },
      (_, i) => `export const value${i + 1} = ${i + 1}\t// line ${i + 1}`,
    )
    writeFileSync(join(folder, 'src', 'app.ts'), `${lines.join('\n')}\n`)
    writeFileSync(join(folder, 'src', 'util.ts'), 'export function helper() {\n  return 1\n}\n')
    writeFileSync(join(folder, 'README.md'), '# Project\n')
    return folder
  }

  /** Opens a result's disclosure unless it opened by itself (short results do). */
  async function expand(result: Locator) {
    if ((await result.getAttribute('open')) === null) await result.locator('summary').click()
  }

  for (const theme of ['light', 'dark'] as Theme[]) {
    it(`item 4: shows read_file as numbered, highlighted lines with a path header and the window (${theme})`, async () => {
      const { page, fake } = await open({ folder: project(), approvalMode: 'full-auto', colorScheme: theme })
      fake.enqueue(
        {
          toolCalls: [
            {
              name: 'read_file',
              arguments: JSON.stringify({ path: 'src/app.ts', startLine: 3, maxLines: 10 }),
            },
          ],
        },
        { text: 'Read it.' },
      )
      await send(page, 'Read src/app.ts')
      await conversationText(page, (text) => text.includes('Read it.'))
      await turnOver(page)

      const card = await openToolCall(page, 'read_file')
      const result = card.getByRole('group', { name: 'Result of read_file' })
      await expand(result)
      const lines = result.getByRole('region', { name: 'src/app.ts, lines 3–12 of 30' })
      await lines.waitFor()
      expect(await lines.getByText('lines 3–12 of 30').count()).toBe(1)
      // The file's own text, not its JSON: no escapes, no digest, no size.
      const text = (await lines.textContent()) ?? ''
      expect(text).toContain('export const value3 = 3')
      expect(text).not.toContain('\\t')
      expect(text).not.toContain('sha256')
      // Line numbers start at the window, and TypeScript is highlighted.
      expect(await lines.locator('.file-line-number').first().textContent()).toBe('3')
      expect(await lines.locator('.file-line-number').count()).toBe(10)
      expect(await lines.locator('.hljs-keyword').first().textContent()).toBe('export')
      expect(await result.locator('summary').textContent()).toBe('Result · 10 lines')
      await screenshot(page, `first-hour-4-${theme}`)
    })
  }

  it('item 4: shows grep matches grouped by file, each opening the file', async () => {
    const { page, fake } = await open({ folder: project(), approvalMode: 'full-auto' })
    fake.enqueue(
      {
        toolCalls: [{ name: 'grep', arguments: JSON.stringify({ pattern: 'value1\\b|helper', path: '.' }) }],
      },
      { text: 'Found them.' },
    )
    await send(page, 'Find value1 and helper')
    await conversationText(page, (text) => text.includes('Found them.'))
    await turnOver(page)

    await openToolCall(page, 'grep')
    const result = toolCard(page, 'grep').getByRole('group', { name: 'Result of grep' })
    await expand(result)
    expect(await result.locator('summary').textContent()).toBe('Result · 2 matches in 2 files')
    const files = result.getByRole('list', { name: 'Matches by file' })
    await files.getByRole('button', { name: 'Open src/app.ts', exact: true }).waitFor()
    await files.getByRole('button', { name: 'Open src/util.ts', exact: true }).waitFor()
    expect(await result.getByText('export function helper() {').count()).toBe(1)
    await screenshot(page, 'first-hour-4-grep-light')
    await result.getByRole('button', { name: 'Open src/app.ts at line 1' }).click()
    const dialog = page.getByRole('dialog', { name: 'src/app.ts' })
    await dialog.getByRole('region', { name: 'src/app.ts, lines 1–30 of 30' }).waitFor()
    expect(await dialog.getByText('export const value30 = 30').count()).toBe(1)
    await dialog.getByRole('button', { name: 'Close' }).click()
    await dialog.waitFor({ state: 'detached' })
  })

  it('item 4: shows glob and list_directory results as a tree, and other results as pretty JSON', async () => {
    const { page, fake } = await open({ folder: project(), approvalMode: 'full-auto' })
    fake.enqueue(
      {
        toolCalls: [
          { name: 'glob', arguments: JSON.stringify({ pattern: '**/*.ts' }) },
          { name: 'list_directory', arguments: JSON.stringify({ path: '.' }) },
          { name: 'get_current_datetime', arguments: JSON.stringify({ timezone: 'UTC' }) },
        ],
      },
      { text: 'Listed.' },
    )
    await send(page, 'List the files')
    await conversationText(page, (text) => text.includes('Listed.'))
    await turnOver(page)

    for (const tool of ['glob', 'list_directory', 'get_current_datetime']) await openToolCall(page, tool)
    const globResult = toolCard(page, 'glob').getByRole('group', { name: 'Result of glob' })
    await expand(globResult)
    const globTree = globResult.getByRole('tree', { name: 'Paths found by glob' })
    const src = globTree.getByRole('treeitem', { name: 'src', exact: true })
    await src.waitFor()
    expect(await src.getByRole('treeitem').allTextContents()).toEqual(['app.ts', 'util.ts'])

    const listResult = toolCard(page, 'list_directory').getByRole('group', {
      name: 'Result of list_directory',
    })
    await expand(listResult)
    const listTree = listResult.getByRole('tree', { name: 'Entries of .' })
    expect(await listTree.getByRole('treeitem').allTextContents()).toEqual(['src', 'README.md'])

    const other = toolCard(page, 'get_current_datetime').getByRole('group', {
      name: 'Result of get_current_datetime',
    })
    const json = (await other.locator('.tool-result-content').textContent()) ?? ''
    expect(json).toMatch(/^\{\n {2}"/)
    await screenshot(page, 'first-hour-4-tree-light')
  })

  for (const theme of ['light', 'dark'] as Theme[]) {
    it(`item 5: a refused key says so, what to set here, and opens the provider's settings (${theme})`, async () => {
      const { page, fake } = await open({ colorScheme: theme })
      fake.enqueue({ status: 401, text: 'bad key' })
      await send(page, 'Hello')
      const alert = conversation(page).getByRole('alert')
      await alert.getByText('The provider refused the API key').waitFor()
      // Where a key can come from follows once the app has said what this window can store.
      await alert.getByText(/cannot store API keys/).waitFor()
      // What shows, the closed Details left out.
      // biome-ignore lint/performance/useDomNodeTextContent: innerText leaves out what a closed <details> hides
      const words = await alert.innerText()
      // The web host cannot store keys: it says where a key can come from instead.
      expect(words).toContain('cannot store API keys')
      expect(words).not.toContain('provider_auth')
      const details = alert.getByRole('group', { name: 'Details' })
      await details.locator('summary').click()
      expect((await details.textContent()) ?? '').toContain('provider_auth')
      expect((await details.textContent()) ?? '').toContain('401')
      await screenshot(page, `first-hour-5-${theme}`)

      await alert.getByRole('button', { name: 'Open Local in Settings → Providers' }).click()
      const panel = page.getByRole('tabpanel', { name: 'Providers', exact: true })
      await panel.getByRole('form', { name: 'Edit Local' }).waitFor()
      expect(await page.getByRole('tab', { name: 'Providers' }).getAttribute('aria-selected')).toBe('true')
    })
  }

  it('item 5: "Settings → Providers" in a message is a link to that section', async () => {
    const { page, app, chat } = await open()
    for (const provider of app.atelier.providers.list()) app.atelier.providers.delete({ id: provider.id })
    await page.getByRole('heading', { level: 1, name: chat.title }).waitFor()
    await send(page, 'Hello')
    const alert = conversation(page).getByRole('alert')
    await alert.getByText('No model provider is set up', { exact: true }).waitFor()
    await alert.getByRole('link', { name: 'Settings → Providers' }).click()
    await page.getByRole('tabpanel', { name: 'Providers', exact: true }).waitFor()
    expect(await page.getByRole('tab', { name: 'Providers' }).getAttribute('aria-selected')).toBe('true')
  })

  for (const theme of ['light', 'dark'] as Theme[]) {
    it(`item 6: the provider form names a provider by itself and tests it before saving (${theme})`, async () => {
      const { page, fake } = await open({ colorScheme: theme })
      const panel = await settingsSection(page, 'Providers')
      await panel.getByRole('button', { name: 'Add provider' }).click()
      const form = panel.getByRole('form', { name: 'Add a provider' })
      await form.getByRole('combobox', { name: 'Kind' }).selectOption('openai-chat')
      const name = form.getByRole('textbox', { name: 'Name' })
      // Not required: left empty, it is named after the kind and the address, as the hint says.
      expect(await name.getAttribute('required')).toBeNull()
      expect(await name.getAttribute('placeholder')).toBeNull()
      await form.getByRole('textbox', { name: 'Base URL' }).fill(fake.baseUrlFor('openai-chat'))
      const port = new URL(fake.url).port
      const defaultName = `OpenAI-compatible at 127.0.0.1:${port}`
      await form.getByText(`Empty: “${defaultName}”.`).waitFor()

      // Tested as typed, before anything is saved.
      const requestsBefore = fake.requests.length
      await form.getByRole('button', { name: 'Test connection' }).click()
      await form.getByText(`Connected: ${fake.models.length} models available`).waitFor()
      expect(fake.requests.slice(requestsBefore).map((request) => request.kind)).toEqual(['models'])
      expect(
        (await page.evaluate(async () => (await window.atelier?.providers.list())?.providers))?.length,
      ).toBe(1)
      await screenshot(page, `first-hour-6-form-${theme}`)

      await form.getByRole('button', { name: 'Add provider' }).click()
      await panel.getByRole('region', { name: defaultName }).waitFor()
    })
  }

  for (const theme of ['light', 'dark'] as Theme[]) {
    it(`item 6: the chat header lists each provider once, by its whole name (${theme})`, async () => {
      const { page, app, chat, fake } = await open({ colorScheme: theme })
      app.atelier.providers.create({
        kind: 'openai-chat',
        name: 'Ollama on this computer, the big one',
        baseUrl: fake.baseUrlFor('openai-chat'),
      })
      await page.reload()
      await page.getByRole('heading', { level: 1, name: chat.title }).waitFor()
      const select = page.getByRole('combobox', { name: 'Provider' })
      await expect.poll(() => select.locator('option').count()).toBe(2)
      expect(await select.locator('option').allTextContents()).toEqual([
        'Local',
        'Ollama on this computer, the big one',
      ])
      expect(await select.getAttribute('title')).toBe('Local · OpenAI-compatible')
      await screenshot(page, `first-hour-6-header-${theme}`)
    })
  }
})
