import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { useTempDirs } from '../support/temp-dir'
import { startApp, useBrowser } from './support'

describe('the renderer in Chromium, served by the web host', () => {
  const tempDir = useTempDirs()
  const { browser, cleanups } = useBrowser()

  async function open(dataDir: string, colorScheme: 'light' | 'dark' = 'light'): Promise<Page> {
    const app = await startApp(dataDir)
    const context = await browser().newContext({ colorScheme })
    cleanups.push(app.stop, () => context.close())
    const page = await context.newPage()
    const problems: string[] = []
    page.on('pageerror', (error) => problems.push(error.message))
    cleanups.push(async () => expect(problems).toEqual([]))
    await page.goto(app.host.url)
    await page.getByRole('navigation', { name: 'Chats' }).waitFor()
    return page
  }

  const chatList = (page: Page) => page.getByRole('navigation', { name: 'Chats' })
  const chatButton = (page: Page, title: string) =>
    chatList(page).getByRole('button', { name: title, exact: true })
  const chatTitles = (page: Page) =>
    chatList(page)
      .getByRole('button', { name: /^(?!(Rename|Delete|Pin|Unpin|Archive|Unarchive) chat )/ })
      .allTextContents()

  it('keeps a chat created, renamed and deleted through the UI after the services restart', async () => {
    const dataDir = tempDir()
    const page = await open(dataDir)
    await page.getByRole('heading', { name: 'Welcome to Atelier' }).waitFor()

    await page.getByRole('button', { name: 'New chat', exact: true }).click()
    await chatButton(page, 'Untitled chat').waitFor()
    expect(await chatButton(page, 'Untitled chat').getAttribute('aria-current')).toBe('page')
    await page.getByRole('button', { name: 'Rename chat Untitled chat' }).click()
    await page.getByRole('textbox', { name: 'Chat title' }).fill('Parser refactor')
    await page.getByRole('textbox', { name: 'Chat title' }).press('Enter')
    await page.getByRole('heading', { name: 'Parser refactor' }).waitFor()

    // Ctrl+N makes another chat; deleting it asks first, and Cancel keeps it.
    await page.keyboard.press('Control+n')
    await chatButton(page, 'Untitled chat').waitFor()
    await page.getByRole('button', { name: 'Delete chat Untitled chat' }).click()
    const dialog = page.getByRole('dialog', { name: 'Delete “Untitled chat”?' })
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    expect(await chatTitles(page)).toEqual(['Untitled chat', 'Parser refactor'])
    await page.getByRole('button', { name: 'Delete chat Untitled chat' }).click()
    await dialog.getByRole('button', { name: 'Delete' }).click()
    await chatButton(page, 'Untitled chat').waitFor({ state: 'detached' })
    expect(await chatTitles(page)).toEqual(['Parser refactor'])

    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()

    const reopened = await open(dataDir)
    await reopened.getByRole('heading', { name: 'Parser refactor' }).waitFor()
    expect(await chatTitles(reopened)).toEqual(['Parser refactor'])
  })

  it('follows the system theme until one is chosen, and keeps the choice', async () => {
    const page = await open(tempDir(), 'dark')
    const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor)
    expect(await background()).toBe('rgb(23, 24, 28)')

    await page.getByRole('button', { name: 'Settings' }).click()
    await page.getByRole('radio', { name: 'Light' }).check()
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'light')
    expect(await background()).toBe('rgb(255, 255, 255)')

    await page.reload()
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'light')
    expect(await background()).toBe('rgb(255, 255, 255)')
  })

  it('exposes window.atelier as named functions whose errors arrive as { code, message, data }', async () => {
    const page = await open(tempDir())
    const shape = await page.evaluate(() =>
      Object.fromEntries(
        Object.entries(window.atelier ?? {}).map(([ns, members]) => [ns, Object.keys(members).sort()]),
      ),
    )
    expect(shape).toEqual({
      agents: ['create', 'delete', 'list', 'onChanged', 'update'],
      app: ['info'],
      calls: ['answer'],
      chats: [
        'archive',
        'capabilities',
        'compact',
        'configure',
        'context',
        'create',
        'delete',
        'discardIfEmpty',
        'export',
        'fork',
        'import',
        'instructions',
        'list',
        'messages',
        'onChanged',
        'pin',
        'rename',
        'search',
      ],
      checkpoints: ['changes', 'list', 'onChanged', 'onProgress', 'rewind', 'undo'],
      commands: ['list'],
      customTools: ['list', 'load', 'log', 'onChanged', 'reload', 'setEnvironment'],
      folders: ['files', 'list', 'pick', 'recent', 'status', 'trust', 'untrust'],
      hooks: ['add', 'import', 'list', 'remove', 'runs', 'test', 'update'],
      images: ['read'],
      lsp: ['onChanged', 'status', 'test'],
      mcp: [
        'add',
        'approve',
        'getPrompt',
        'import',
        'list',
        'onChanged',
        'prompts',
        'remove',
        'resources',
        'setEnabled',
        'signIn',
        'signOut',
        'stderr',
        'update',
      ],
      permissions: ['add', 'list', 'onChanged', 'remove', 'update'],
      preferences: ['get', 'onChanged', 'update'],
      prices: ['list', 'reset', 'set'],
      providers: ['create', 'delete', 'detectLocal', 'list', 'models', 'onChanged', 'test', 'update'],
      sandbox: ['status'],
      services: ['add', 'broker', 'connect', 'list', 'onChanged', 'remove', 'setBroker', 'setEnabled'],
      tools: ['list', 'run', 'stop', 'update'],
      turns: ['edit', 'onEvent', 'regenerate', 'retry', 'start', 'stop'],
      usage: ['chat', 'report'],
    })
    const rejection = await page.evaluate(() =>
      window.atelier?.chats
        .rename({ id: 'x', title: 42 as unknown as string })
        .catch((error: unknown) => error),
    )
    expect(rejection).toMatchObject({ code: 'validation_failed', message: expect.stringContaining('/title') })
    expect(rejection).toHaveProperty('data.errors')
  })

  it('holds the CSP: injected markup can neither run inline script nor load remote content', async () => {
    const page = await open(tempDir())
    const outcome = await page.evaluate(async () => {
      const violations: string[] = []
      document.addEventListener('securitypolicyviolation', (event) =>
        violations.push(event.effectiveDirective),
      )
      const script = document.createElement('script')
      script.textContent = 'window.__injected = true'
      document.body.append(script)
      const image = document.createElement('img')
      image.src = 'https://example.com/pixel.png'
      document.body.append(image)
      await new Promise((resolve) => setTimeout(resolve, 300))
      return { ran: 'injected' in window || '__injected' in window, violations: violations.sort() }
    })
    expect(outcome).toEqual({ ran: false, violations: ['img-src', 'script-src-elem'] })
  })
})
