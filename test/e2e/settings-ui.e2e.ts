import { execFile } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { Type } from '@sinclair/typebox'
import type { Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Atelier } from '../../src-main/app/create-atelier'
import type { ToolSettingsDescriptor } from '../../src-shared/tools'
import { type FakeProvider, startFakeProvider } from '../support/fake-provider'
import { useTempDirs } from '../support/temp-dir'
import { ROOT, settingsSection, startApp, testTool, useBrowser } from './support'

const BIN = join(ROOT, 'bin', 'atelier.js')
const SCREENSHOTS = join(ROOT, 'test-results', 'screenshots')
const run = promisify(execFile)

type Theme = 'light' | 'dark'

describe('the settings view in Chromium, served by the web host', () => {
  const tempDir = useTempDirs()
  const { browser, cleanups } = useBrowser()
  let fake: FakeProvider

  beforeAll(async () => {
    fake = await startFakeProvider()
  })
  afterAll(async () => {
    await fake?.close()
  })

  async function open(
    dataDir: string,
    colorScheme: Theme = 'light',
    prepare?: (atelier: Atelier) => void,
  ): Promise<Page> {
    const app = await startApp(dataDir)
    prepare?.(app.atelier)
    const context = await browser().newContext({ colorScheme, viewport: { width: 1280, height: 860 } })
    cleanups.push(app.stop, () => context.close())
    const page = await context.newPage()
    const problems: string[] = []
    page.on('pageerror', (error) => problems.push(error.message))
    cleanups.push(async () => expect(problems).toEqual([]))
    await page.goto(app.host.url)
    await page.getByRole('navigation', { name: 'Chats' }).waitFor()
    return page
  }

  const toolsList = (page: Page) =>
    page.evaluate(async () => (await window.atelier?.tools.list())?.tools ?? []) as Promise<
      ToolSettingsDescriptor[]
    >
  const toolParameters = async (page: Page, name: string) =>
    (await toolsList(page)).find((tool) => tool.name === name)?.parameters

  /** A tool's card, with its parameter form opened. */
  async function toolParametersForm(page: Page, title: string): Promise<Locator> {
    const card = page.getByRole('region', { name: title, exact: true })
    const disclosure = card.getByRole('button', { name: 'Parameters' })
    if ((await disclosure.getAttribute('aria-expanded')) !== 'true') await disclosure.click()
    return card
  }

  /** The app scrolls inside its main pane, so the window is made as tall as the section first. */
  async function screenshot(page: Page, theme: Theme, name: string): Promise<void> {
    const height = await page.evaluate(() => document.querySelector('.main')?.scrollHeight ?? 0)
    await page.setViewportSize({ width: 1280, height: Math.min(Math.max(860, height), 4000) })
    await page.screenshot({ path: join(SCREENSHOTS, `settings-${name}-${theme}.png`) })
    await page.setViewportSize({ width: 1280, height: 860 })
  }

  it('turns bash on only after its warning is confirmed, and the built CLI sees it on', async () => {
    const dataDir = tempDir()
    const page = await open(dataDir)
    await settingsSection(page, 'Tools')
    const bash = page.getByRole('switch', { name: 'Run commands (bash)', exact: true })
    expect(await bash.getAttribute('aria-checked')).toBe('false')

    // Cancel keeps it off.
    await bash.click()
    const warning = page.getByRole('dialog', { name: 'Turn on bash?' })
    expect(await warning.textContent()).toMatch(/runs any command.*your permissions/)
    expect(await warning.textContent()).toContain('only the folder it starts in (its cwd) is checked')
    await warning.getByRole('button', { name: 'Cancel' }).click()
    await warning.waitFor({ state: 'detached' })
    expect(await bash.getAttribute('aria-checked')).toBe('false')
    expect((await toolsList(page)).find((tool) => tool.name === 'bash')?.enabled).toBe(false)

    await bash.click()
    await warning.getByRole('button', { name: 'Turn on bash' }).click()
    await expect.poll(() => bash.getAttribute('aria-checked')).toBe('true')

    // The web host still holds the database open: WAL lets the CLI read beside it.
    const { stdout } = await run(process.execPath, [BIN, '--data-dir', dataDir, 'settings', 'get', 'bash'])
    expect(stdout).toContain('"enabled": true')

    // Turning it off again asks nothing.
    await bash.click()
    await expect.poll(() => bash.getAttribute('aria-checked')).toBe('false')
    expect(await page.getByRole('dialog').count()).toBe(0)
  })

  it('shows an out-of-range parameter next to its field and saves nothing', async () => {
    const page = await open(tempDir())
    await settingsSection(page, 'Tools')
    const before = await toolParameters(page, 'grep')
    const grep = await toolParametersForm(page, 'Search file contents (grep)')
    const maxResults = grep.getByRole('spinbutton', { name: 'Max results', exact: true })
    const perFile = grep.getByRole('spinbutton', { name: 'Max matches per file', exact: true })
    expect(await maxResults.inputValue()).toBe('100')

    for (const [typed, message] of [
      ['0', 'Must be at least 1.'],
      ['99999', 'Must be at most 5,000.'],
    ] as const) {
      await maxResults.fill(typed)
      await perFile.fill('30')
      await grep.getByRole('button', { name: 'Save', exact: true }).click()
      const alert = grep.getByRole('alert')
      await alert.waitFor()
      expect(await alert.textContent()).toContain(message)
      // Next to the right field: the field points at it, is marked invalid and has the focus.
      const alertId = await alert.getAttribute('id')
      expect((await maxResults.getAttribute('aria-describedby'))?.split(' ')).toContain(alertId)
      expect(await maxResults.getAttribute('aria-invalid')).toBe('true')
      expect(await perFile.getAttribute('aria-invalid')).toBeNull()
      expect(await maxResults.evaluate((input) => input === document.activeElement)).toBe(true)
      // Nothing was saved, not even the valid field beside it.
      expect(await toolParameters(page, 'grep')).toEqual(before)
    }

    // Fixing the value clears the error and saves both fields.
    await maxResults.fill('250')
    expect(await grep.getByRole('alert').count()).toBe(0)
    await grep.getByRole('button', { name: 'Save', exact: true }).click()
    await grep.getByRole('status').filter({ hasText: 'Saved' }).waitFor()
    expect(await toolParameters(page, 'grep')).toMatchObject({ maxResults: 250, maxMatchesPerFile: 30 })
  })

  it('restores the default values with Reset to defaults', async () => {
    const page = await open(tempDir())
    await settingsSection(page, 'Tools')
    const grepTool = (await toolsList(page)).find((tool) => tool.name === 'grep')
    const defaults = grepTool?.defaultParameters
    const grep = await toolParametersForm(page, 'Search file contents (grep)')
    const maxResults = grep.getByRole('spinbutton', { name: 'Max results', exact: true })
    const dotfiles = grep.getByRole('switch', { name: 'Include dotfiles', exact: true })
    const denied = grep.getByRole('group', { name: 'Denied paths' })

    await maxResults.fill('42')
    await dotfiles.click()
    await denied.getByRole('button', { name: 'Add to Denied paths' }).click()
    const defaultDenied = (defaults?.deniedPaths ?? []) as string[]
    await denied
      .getByRole('textbox', { name: `Denied paths ${defaultDenied.length + 1}`, exact: true })
      .fill('/srv/secrets')
    await denied.getByRole('button', { name: 'Remove ~/.aws from Denied paths' }).click()
    await grep.getByRole('button', { name: 'Save', exact: true }).click()
    await grep.getByRole('status').filter({ hasText: 'Saved' }).waitFor()
    expect(await toolParameters(page, 'grep')).toMatchObject({
      maxResults: 42,
      includeDotfiles: true,
      deniedPaths: [...defaultDenied.filter((entry) => entry !== '~/.aws'), '/srv/secrets'],
    })

    await grep.getByRole('button', { name: 'Reset to defaults' }).click()
    await grep.getByRole('status').filter({ hasText: 'Defaults restored' }).waitFor()
    expect(await toolParameters(page, 'grep')).toEqual(defaults)
    expect(await maxResults.inputValue()).toBe(String(defaults?.maxResults))
    expect(await dotfiles.getAttribute('aria-checked')).toBe('false')
    const rows = await denied
      .getByRole('textbox')
      .evaluateAll((inputs) => inputs.map((input) => (input as HTMLInputElement).value))
    expect(rows).toEqual(defaults?.deniedPaths)
  })

  it('warns when the saved settings could not be used, and saving valid ones repairs them', async () => {
    const page = await open(tempDir(), 'light', (atelier) =>
      atelier.db
        .prepare(
          `INSERT INTO user_tool_settings (user_id, tool_name, enabled, parameters, updated_at)
           VALUES ('local', 'glob', NULL, '{"maxResults": "lots"', 0)`,
        )
        .run(),
    )
    await settingsSection(page, 'Tools')
    const glob = page.getByRole('region', { name: 'Find files (glob)', exact: true })
    expect(await glob.textContent()).toContain('Saved settings could not be used')
    expect(await glob.textContent()).toContain('The defaults are in force')

    await toolParametersForm(page, 'Find files (glob)')
    await glob.getByRole('spinbutton', { name: 'Max results', exact: true }).fill('300')
    await glob.getByRole('button', { name: 'Save', exact: true }).click()
    await glob.getByRole('status').filter({ hasText: 'Saved' }).waitFor()
    expect(await glob.textContent()).not.toContain('Saved settings could not be used')
    const saved = (await toolsList(page)).find((tool) => tool.name === 'glob')
    expect(saved?.invalidSavedSettings).toBeUndefined()
    expect(saved?.parameters).toMatchObject({ maxResults: 300 })
  })

  it('runs a tool in the playground and shows its content, or its validation error', async () => {
    const dataDir = tempDir()
    const project = join(dataDir, 'project')
    mkdirSync(project)
    const page = await open(dataDir)
    await settingsSection(page, 'Tools')
    await page
      .getByRole('region', { name: 'Current date and time', exact: true })
      .getByRole('button', { name: 'Try it' })
      .click()
    const playground = page.getByRole('dialog', { name: 'Try Current date and time' })
    // The form is the first view; the JSON the model would write is the other.
    await playground.getByRole('radio', { name: 'JSON' }).check()
    const args = playground.getByRole('textbox', { name: 'Arguments (JSON)' })
    expect(await args.inputValue()).toBe('{}')

    // The folder: typed, then browsed with the app's own browser (a browser cannot pick local paths).
    const folder = playground.getByRole('textbox', { name: 'Folder', exact: true })
    await folder.fill(dataDir)
    await playground.getByRole('button', { name: 'Browse…' }).click()
    const picker = page.getByRole('dialog', { name: 'Choose a folder' })
    await picker.getByRole('button', { name: 'project' }).click()
    await picker.getByText(project, { exact: true }).waitFor()
    await picker.getByRole('button', { name: 'Use this folder' }).click()
    expect(await folder.inputValue()).toBe(project)
    expect(await playground.getByRole('radio', { name: 'Agent' }).isChecked()).toBe(true)

    await args.fill('{"timezone":"Asia/Tokyo"}')
    await playground.getByRole('button', { name: 'Run', exact: true }).click()
    const result = playground.getByRole('region', { name: 'Result' })
    await result.waitFor()
    const output = result.locator('pre')
    expect(await output.textContent()).toContain('"timezone": "Asia/Tokyo"')
    expect(await output.evaluate((pre) => getComputedStyle(pre).fontFamily)).toMatch(/mono|Menlo|Consolas/i)
    expect(await result.textContent()).toMatch(/\d+ ms/)

    await args.fill('{"timezone": 5}')
    await playground.getByRole('button', { name: 'Run', exact: true }).click()
    const error = playground.getByRole('region', { name: 'Error' })
    await error.waitFor()
    expect(await error.getByText('validation_failed', { exact: true }).isVisible()).toBe(true)
    expect(await error.locator('pre').textContent()).toContain('/timezone: Expected string')

    // Escape closes it and gives the focus back to Try it.
    await page.keyboard.press('Escape')
    await playground.waitFor({ state: 'detached' })
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Try it')
  })

  it('stops a playground call that is still running, and shows it ended aborted', async () => {
    const waitForStop = testTool({
      name: 'wait_for_stop',
      title: 'Wait for stop',
      description: 'Runs until it is stopped.',
      parameters: Type.Object({}),
      execute: (_args, { signal }) =>
        new Promise((_resolve, reject) =>
          signal.addEventListener('abort', () => reject(signal.reason), { once: true }),
        ),
    })
    const page = await open(tempDir(), 'light', (atelier) => {
      atelier.tools.registry.register(waitForStop)
    })
    await settingsSection(page, 'Tools')
    await page
      .getByRole('region', { name: 'Wait for stop', exact: true })
      .getByRole('button', { name: 'Try it' })
      .click()
    const playground = page.getByRole('dialog', { name: 'Try Wait for stop' })
    await playground.getByRole('button', { name: 'Run', exact: true }).click()
    await playground.getByRole('status').getByText('Running…').waitFor()
    await screenshot(page, 'light', 'playground-running')

    await playground.getByRole('button', { name: 'Stop', exact: true }).click()
    const error = playground.getByRole('region', { name: 'Error' })
    await error.waitFor()
    expect(await error.getByText('aborted', { exact: true }).isVisible()).toBe(true)
    expect(await playground.getByRole('button', { name: 'Stop', exact: true }).count()).toBe(0)
    expect(await playground.getByRole('button', { name: 'Run', exact: true }).isEnabled()).toBe(true)
  })

  it('adds an OpenAI-compatible provider that is sent no environment key, tests its connection and deletes it', async () => {
    // The person's OpenAI key is in the environment; a server at another address must never see it.
    const environmentKey = 'sk-e2e-environment-3f9d'
    const before = process.env.OPENAI_API_KEY
    process.env.OPENAI_API_KEY = environmentKey
    cleanups.push(() => {
      if (before === undefined) delete process.env.OPENAI_API_KEY
      else process.env.OPENAI_API_KEY = before
    })
    const page = await open(tempDir())
    const panel = await settingsSection(page, 'Providers')
    await panel.getByRole('heading', { name: 'No providers yet' }).waitFor()
    const teaching = await panel.textContent()
    for (const hint of [
      'OPENAI_API_KEY',
      'GEMINI_API_KEY',
      'ANTHROPIC_API_KEY',
      '127.0.0.1:11434/v1',
      '127.0.0.1:1234/v1',
    ])
      expect(teaching).toContain(hint)

    await panel.getByRole('button', { name: 'Add provider' }).click()
    const form = panel.getByRole('form', { name: 'Add a provider' })
    await form.getByRole('combobox', { name: 'Kind' }).selectOption('openai-chat')
    await form.getByRole('textbox', { name: 'Name' }).fill('Fake local')
    await form.getByRole('textbox', { name: 'Base URL' }).fill(fake.baseUrlFor('openai-chat'))
    await form.getByRole('textbox', { name: 'Default model' }).fill('fake-model-small')

    // The web host cannot store keys: the field is off and says why.
    const key = form.getByLabel('API key')
    expect(await key.getAttribute('type')).toBe('password')
    expect(await key.isDisabled()).toBe(true)
    const hintIds = (await key.getAttribute('aria-describedby'))?.split(' ') ?? []
    const hints = await Promise.all(hintIds.map((id) => page.locator(`[id="${id}"]`).textContent()))
    expect(hints.join(' ')).toContain('Keys can be stored only by the desktop app')
    expect(hints.join(' ')).toContain(
      `No key is sent to ${fake.url}. OPENAI_API_KEY from the environment goes only to api.openai.com.`,
    )
    expect(await form.getByRole('button', { name: 'Show key' }).isDisabled()).toBe(true)
    // Emptying the address points the provider at OpenAI itself, where the environment's key does go.
    await form.getByRole('textbox', { name: 'Base URL' }).fill('')
    const officialHints = await Promise.all(hintIds.map((id) => page.locator(`[id="${id}"]`).textContent()))
    expect(officialHints.join(' ')).toContain(
      'OPENAI_API_KEY from the environment is sent to api.openai.com.',
    )
    await form.getByRole('textbox', { name: 'Base URL' }).fill(fake.baseUrlFor('openai-chat'))

    await form.getByRole('button', { name: 'Add provider' }).click()
    const card = panel.getByRole('region', { name: 'Fake local' })
    await card.waitFor()
    expect(await card.textContent()).toContain(fake.baseUrlFor('openai-chat'))
    expect(await card.textContent()).toContain(`API keyNone sent to ${fake.url}`)

    const requestsBefore = fake.requests.length
    await card.getByRole('button', { name: 'Test connection' }).click()
    await card.getByText(`Connected: ${fake.models.length} models available`).waitFor()
    const listing = fake.requests.slice(requestsBefore)
    expect(listing.map((request) => request.kind)).toEqual(['models'])
    expect(listing[0]?.headers.authorization).not.toContain(environmentKey)

    const providers = await page.evaluate(async () => (await window.atelier?.providers.list())?.providers)
    expect(providers).toEqual([
      expect.objectContaining({
        kind: 'openai-chat',
        name: 'Fake local',
        baseUrl: fake.baseUrlFor('openai-chat'),
        defaultModel: 'fake-model-small',
      }),
    ])

    await card.getByRole('button', { name: 'Delete provider Fake local' }).click()
    await page
      .getByRole('dialog', { name: 'Delete “Fake local”?' })
      .getByRole('button', { name: 'Delete' })
      .click()
    await panel.getByRole('heading', { name: 'No providers yet' }).waitFor()
  })

  it('creates an agent profile restricted to two tools', async () => {
    const page = await open(tempDir())
    const panel = await settingsSection(page, 'Agent profiles')
    const builtin = panel.getByRole('region', { name: 'Default', exact: true })
    expect(await builtin.textContent()).toContain('Built-in')
    expect(await builtin.getByRole('button', { name: /^(Edit|Delete) profile/ }).count()).toBe(0)

    await panel.getByRole('button', { name: 'New profile' }).click()
    const form = panel.getByRole('form', { name: 'New agent profile' })
    await form.getByRole('textbox', { name: 'Name' }).fill('Reviewer')
    await form.getByRole('textbox', { name: 'System prompt' }).fill('Review; never edit.')
    await form.getByRole('radio', { name: 'Only the tools checked below' }).check()
    await form.getByRole('checkbox', { name: 'Read files' }).check()
    await form.getByRole('checkbox', { name: 'Search file contents (grep)' }).check()
    await form.getByRole('radio', { name: 'Chat', exact: true }).check()
    await form.getByRole('button', { name: 'Create profile' }).click()

    const card = panel.getByRole('region', { name: 'Reviewer', exact: true })
    await card.waitFor()
    expect(await card.textContent()).toContain('Read files, Search file contents (grep)')

    const profiles = await page.evaluate(() => window.atelier?.agents.list())
    const reviewer = profiles?.find((profile) => profile.name === 'Reviewer')
    expect(reviewer).toMatchObject({
      systemPrompt: 'Review; never edit.',
      defaultMode: 'chat',
      builtin: false,
    })
    expect([...(reviewer?.tools ?? [])].sort()).toEqual(['grep', 'read_file'])
  })

  it('keeps the theme controls and Max model responses per turn in Appearance', async () => {
    const page = await open(tempDir())
    const panel = await settingsSection(page, 'Appearance')
    expect(await panel.getByRole('radio', { name: 'System' }).isChecked()).toBe(true)
    const iterations = panel.getByRole('spinbutton', { name: 'Max model responses per turn' })
    await iterations.fill('0')
    await iterations.press('Enter')
    expect(await panel.getByRole('alert').textContent()).toContain('1 to 500')
    await iterations.fill('64')
    await iterations.press('Tab')
    await expect
      .poll(() => page.evaluate(async () => (await window.atelier?.preferences.get())?.maxIterations))
      .toBe(64)
    expect(await panel.textContent()).toContain('Data folder')
  })

  it('works from the keyboard: arrows move between sections, Space flips a switch, focus shows', async () => {
    const page = await open(tempDir())
    await settingsSection(page, 'Appearance')
    const tab = (name: string) => page.getByRole('tab', { name, exact: true })
    const focusedTab = () =>
      page.evaluate(() =>
        document.activeElement?.getAttribute('role') === 'tab' ? document.activeElement.id : '',
      )
    await tab('Appearance').focus()
    await page.keyboard.press('ArrowDown')
    expect(await tab('Tools').getAttribute('aria-selected')).toBe('true')
    expect(await focusedTab()).toBe(await tab('Tools').getAttribute('id'))
    await page.keyboard.press('End')
    expect(await tab('Agent profiles').getAttribute('aria-selected')).toBe('true')
    await page.keyboard.press('Home')
    expect(await tab('Appearance').getAttribute('aria-selected')).toBe('true')
    // Only the selected tab is in the Tab order.
    expect(
      await page.getByRole('tab').evaluateAll((tabs) => tabs.map((t) => t.getAttribute('tabindex'))),
    ).toEqual(['0', '-1', '-1', '-1', '-1', '-1', '-1', '-1', '-1', '-1', '-1', '-1', '-1'])

    await page.keyboard.press('ArrowDown')
    await page.getByRole('tabpanel', { name: 'Tools' }).getByRole('switch').first().waitFor()
    const editFiles = page.getByRole('switch', { name: 'Edit files', exact: true })
    await editFiles.focus()
    await page.keyboard.press('Space')
    await expect.poll(() => editFiles.getAttribute('aria-checked')).toBe('false')
    expect((await toolsList(page)).find((tool) => tool.name === 'edit_file')?.enabled).toBe(false)
    expect(await editFiles.evaluate((element) => getComputedStyle(element).outlineStyle)).toBe('solid')
  })

  it('saves a screenshot of every section in both themes', async () => {
    mkdirSync(SCREENSHOTS, { recursive: true })
    for (const theme of ['light', 'dark'] as const) {
      const page = await open(tempDir(), theme)
      await settingsSection(page, 'Providers')
      await page.getByRole('heading', { name: 'No providers yet' }).waitFor()
      await screenshot(page, theme, 'providers-empty')
      await page.evaluate(
        ({ baseUrl }) =>
          window.atelier?.providers.create({
            kind: 'openai-chat',
            name: 'Ollama (fake)',
            baseUrl,
            defaultModel: 'fake-model-large',
          }),
        { baseUrl: fake.baseUrlFor('openai-chat') },
      )
      await page.evaluate(() =>
        window.atelier?.agents.create({
          name: 'Reviewer',
          systemPrompt: 'You review changes in this project.\nRead before you judge; point at lines.',
          tools: ['read_file', 'grep', 'glob'],
          defaultMode: 'chat',
        }),
      )
      const shot = (name: string) => screenshot(page, theme, name)

      await settingsSection(page, 'Appearance')
      expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe(
        theme === 'dark' ? 'rgb(23, 24, 28)' : 'rgb(255, 255, 255)',
      )
      await shot('appearance')

      await settingsSection(page, 'Tools')
      await toolParametersForm(page, 'Run commands (bash)')
      await shot('tools')

      await page
        .getByRole('region', { name: 'Current date and time', exact: true })
        .getByRole('button', { name: 'Try it' })
        .click()
      const playground = page.getByRole('dialog', { name: 'Try Current date and time' })
      await playground.getByRole('textbox', { name: 'timezone', exact: true }).fill('Asia/Tokyo')
      await playground.getByRole('button', { name: 'Run', exact: true }).click()
      await playground.getByRole('region', { name: 'Result' }).waitFor()
      await shot('playground')
      await playground.getByRole('button', { name: 'Close' }).click()

      await settingsSection(page, 'Checkpoints')
      await shot('checkpoints')

      const providers = await settingsSection(page, 'Providers')
      await providers.getByRole('button', { name: 'Test connection' }).click()
      await providers.getByText(/Connected: \d+ models available/).waitFor()
      await providers.getByRole('button', { name: 'Edit provider Ollama (fake)' }).click()
      await shot('providers')

      const profiles = await settingsSection(page, 'Agent profiles')
      await profiles.getByRole('button', { name: 'Edit profile Reviewer' }).click()
      await shot('agent-profiles')

      for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
    }
  })
})
