import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { startFakeProvider } from '../support/fake-provider'
import {
  conversation,
  conversationText,
  messageBox,
  screenshot,
  send,
  settingsSection,
  startApp,
  type Theme,
  turnOver,
  useChatApp,
} from './support'

/**
 * A first run that leads, errors that say why, and Try it from a form (issue 32: 5, 7, 8). The
 * first run starts from an app with no provider and no chat (`startApp`, not `open`, which makes both).
 */
describe('the first run, errors that say why, Try it from a form', () => {
  const { open, openPage, tempDir, cleanups } = useChatApp()

  for (const theme of ['light', 'dark'] as Theme[]) {
    it(`with no provider, the welcome sets one up, then a folder, then the first prompt (${theme})`, async () => {
      const fake = await startFakeProvider()
      const app = await startApp(tempDir())
      cleanups.push(
        () => fake.close(),
        () => app.stop(),
      )
      const folder = tempDir()
      writeFileSync(join(folder, 'README.md'), '# Tomatoes\n')
      const { page } = await openPage(app, theme)

      const steps = page.getByRole('list', { name: 'First steps' })
      await page.getByRole('heading', { level: 2, name: 'Connect a model' }).waitFor()
      expect(await steps.locator('[aria-current="step"]').textContent()).toContain('Connect a model')
      await screenshot(page, `first-run-provider-${theme}`)

      const form = page.getByRole('form', { name: 'Add a provider' })
      await form.getByRole('combobox', { name: 'Kind' }).selectOption('openai-chat')
      await form.getByRole('textbox', { name: 'Base URL' }).fill(fake.baseUrlFor('openai-chat'))
      await form.getByRole('textbox', { name: 'Default model' }).fill('m')
      await form.getByRole('button', { name: 'Add provider' }).click()

      // The folder step takes the keyboard: the path is typed where focus already is, Enter goes on.
      await page.getByRole('heading', { level: 2, name: 'Choose a project folder' }).waitFor()
      const folderField = page.getByRole('textbox', { name: 'Project folder' })
      await expect
        .poll(() => folderField.evaluate((element) => element === document.activeElement))
        .toBe(true)
      await page.keyboard.type(folder)
      await page.keyboard.press('Enter')

      await page.getByRole('heading', { level: 2, name: 'Ask your first question' }).waitFor()
      const prompt = page.getByRole('textbox', { name: 'First prompt' })
      await expect.poll(() => prompt.evaluate((element) => element === document.activeElement)).toBe(true)
      await screenshot(page, `first-run-prompt-${theme}`)
      fake.enqueue({ text: 'The README is about tomatoes.' })
      await page.keyboard.type('What is this project?')
      await page.keyboard.press('Enter')

      // The chat opens in the folder, in agent mode, with the first answer.
      await conversationText(page, (text) => text.includes('The README is about tomatoes.'))
      await turnOver(page)
      const [chat] = app.atelier.chats.list()
      expect(chat).toMatchObject({ workingDir: folder, mode: 'agent' })
      expect(app.atelier.providers.list()).toMatchObject([{ kind: 'openai-chat', defaultModel: 'm' }])
      expect(fake.requestsOf('openai-chat').at(-1)?.body.messages.at(-1)?.content).toBe(
        'What is this project?',
      )
      await screenshot(page, `first-run-done-${theme}`)
    })
  }

  it('offers a key from the environment in one click, and every step can be skipped', async () => {
    const before = process.env.ANTHROPIC_API_KEY
    process.env.ANTHROPIC_API_KEY = 'sk-ant-e2e-first-run'
    cleanups.push(() => {
      if (before === undefined) delete process.env.ANTHROPIC_API_KEY
      else process.env.ANTHROPIC_API_KEY = before
    })
    const app = await startApp(tempDir())
    cleanups.push(() => app.stop())
    const { page } = await openPage(app)

    await page.getByRole('button', { name: 'Use Anthropic with ANTHROPIC_API_KEY' }).click()
    await page.getByRole('heading', { level: 2, name: 'Choose a project folder' }).waitFor()
    expect(app.atelier.providers.list()).toMatchObject([{ kind: 'anthropic', keySource: 'environment' }])
    await page.getByRole('button', { name: 'Skip: chat without a folder' }).click()
    await page.getByRole('button', { name: 'Skip: open the chat' }).click()
    await page.getByRole('heading', { level: 1, name: 'Untitled chat' }).waitFor()
    expect(app.atelier.chats.list()).toMatchObject([{ workingDir: null }])
    await messageBox(page).waitFor()
  })

  for (const theme of ['light', 'dark'] as Theme[]) {
    it(`a 500 from the provider says its own words first, while retried and once failed (${theme})`, async () => {
      const { page, fake } = await open({ colorScheme: theme })
      const overloaded = { status: 500, errorMessage: 'upstream overloaded', delayMs: 300 }
      fake.enqueue(overloaded, overloaded, overloaded, overloaded)

      await send(page, 'Hello')
      await page
        .getByRole('status')
        .getByText(/^upstream overloaded \(500\) — trying again in \d+ s, attempt 2\.$/)
        .waitFor()
      const alert = conversation(page).getByRole('alert')
      await alert.waitFor({ timeout: 30_000 })
      const firstLine = alert.locator('.turn-alert-title')
      expect(await firstLine.textContent()).toBe('This turn failed: upstream overloaded (500)')
      // The advice and the whole message follow, under it.
      await alert.getByText('The provider is having trouble').waitFor()
      expect(await alert.getByRole('group', { name: 'Details' }).textContent()).toContain(
        'answered with an error of its own',
      )
      await turnOver(page)
      await screenshot(page, `first-run-provider-error-${theme}`)
    })
  }

  it('Test connection says a server without /models answers chat and wants the model typed', async () => {
    const { page, fake } = await open()
    fake.listsModels = false
    fake.enqueue({ text: 'OK' })
    const panel = await settingsSection(page, 'Providers')
    await panel.getByRole('button', { name: 'Add provider' }).first().click()
    const form = page.getByRole('form', { name: 'Add a provider' })
    await form.getByRole('combobox', { name: 'Kind' }).selectOption('openai-chat')
    await form.getByRole('textbox', { name: 'Base URL' }).fill(fake.baseUrlFor('openai-chat'))
    await form.getByRole('button', { name: 'Test connection' }).click()
    await form
      .getByRole('status')
      .getByText('The server answers chat but lists no models — type the model name.')
      .waitFor()
    expect(await form.getByText(/Connection failed/).count()).toBe(0)
    await screenshot(page, 'first-run-unlisted-light')
  })

  for (const theme of ['light', 'dark'] as Theme[]) {
    it(`Try it: grep's form marks pattern required, and runs into the chat's matches view (${theme})`, async () => {
      const project = tempDir()
      mkdirSync(join(project, 'src'))
      writeFileSync(join(project, 'src', 'a.ts'), 'const a = 1 // TODO: name it\n')
      const { page } = await open({ colorScheme: theme })
      const panel = await settingsSection(page, 'Tools')
      await panel
        .getByRole('region', { name: 'Search file contents (grep)', exact: true })
        .getByRole('button', { name: 'Try it' })
        .click()
      const playground = page.getByRole('dialog', { name: /^Try / })
      expect(await playground.getByRole('radio', { name: 'Form' }).isChecked()).toBe(true)

      const pattern = playground.getByRole('textbox', { name: 'pattern required' })
      expect(await pattern.evaluate((input) => (input as HTMLInputElement).required)).toBe(true)
      const glob = playground.getByRole('textbox', { name: 'glob', exact: true })
      expect(await glob.evaluate((input) => (input as HTMLInputElement).required)).toBe(false)
      await pattern.fill('TODO')
      await playground.getByRole('textbox', { name: 'path required' }).fill('.')
      await playground.getByRole('textbox', { name: 'Folder', exact: true }).fill(project)
      await screenshot(page, `first-run-try-it-form-${theme}`)
      await pattern.press('Enter')

      const result = playground.getByRole('region', { name: 'Result' })
      await result.waitFor()
      await result.getByText('name it', { exact: false }).first().waitFor()
      await result.getByText('src/a.ts').first().waitFor()

      // The JSON view carries the same arguments.
      await playground.getByRole('radio', { name: 'JSON' }).check()
      const json = JSON.parse(
        await playground.getByRole('textbox', { name: 'Arguments (JSON)' }).inputValue(),
      )
      expect(json).toEqual({ pattern: 'TODO', path: '.' })
      await screenshot(page, `first-run-try-it-result-${theme}`)
    })
  }
})
