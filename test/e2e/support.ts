import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, expect } from 'vitest'
import { type Atelier, type AtelierOptions, createAtelier } from '../../src-main/app/create-atelier'
import { startWebHost, type WebHost } from '../../src-main/web/web-host'
import type { ApprovalMode } from '../../src-shared/approvals'
import type { Chat } from '../../src-shared/contract'
import type { SandboxSettings } from '../../src-shared/sandbox'
import { type FakeProvider, startFakeProvider } from '../support/fake-provider'
import { requirePrerequisite } from '../support/prerequisites'
import { useTempDirs } from '../support/temp-dir'

export { descendantProcesses } from '../support/descendants'
/** A tool only a test registers (in `app.atelier.tools.registry`, where run-time tools go). */
export { plainTool as testTool } from '../support/test-tools'

export const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const RENDERER_DIR = join(ROOT, 'out', 'renderer')

/** Flags for a headless Chromium on a machine with no network beyond loopback. */
const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
]

/**
 * The Chromium `npm test`'s first step found or installed (test/support/prerequisites.ts: Playwright's
 * own, else $CHROME_PATH, else Debian's). Never a silent skip.
 */
export function findChromium(): string {
  return requirePrerequisite('chromium')
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: findChromium(), args: CHROMIUM_FLAGS })
}

/** The real services and web host on a data folder, as `atelier web` runs them. */
export async function startApp(
  dataDir: string,
  /** The home folder custom tools are looked for in (`~/.atelier/tools`, …); a fresh one by default. */
  home: string = join(dataDir, 'home'),
  /** How the app finds its sandbox; this machine's probe by default. */
  detectSandbox?: AtelierOptions['detectSandbox'],
): Promise<{ atelier: Atelier; host: WebHost; stop(): Promise<void> }> {
  if (!existsSync(join(RENDERER_DIR, 'index.html'))) {
    throw new Error('The renderer is not built: run `npm run build` (npm test does it first).')
  }
  mkdirSync(home, { recursive: true })
  const atelier = createAtelier({ dataDir, home, hasUI: true, ...(detectSandbox && { detectSandbox }) })
  const host = await startWebHost({ atelier, rendererDir: RENDERER_DIR })
  return {
    atelier,
    host,
    stop: async () => {
      await host.close()
      await atelier.close()
    },
  }
}

/**
 * Changes some of the sandbox's settings, the others kept: a test of what asks turns
 * `runUnasked` off, so a command is put to the person as it would be without a sandbox.
 */
export function setSandbox(app: App, changes: Partial<SandboxSettings>): void {
  app.atelier.preferences.update({ sandbox: { ...app.atelier.preferences.get().sandbox, ...changes } })
}

/** Opens settings (if needed) and shows one section; resolves when its content has loaded. */
export async function settingsSection(page: Page, name: string): Promise<Locator> {
  const tab = page.getByRole('tab', { name, exact: true })
  if (!(await tab.isVisible())) await page.getByRole('button', { name: 'Settings', exact: true }).click()
  await tab.click()
  const panel = page.getByRole('tabpanel', { name, exact: true })
  await panel.waitFor()
  // Some sections start processes to list (custom tool hosts, MCP servers): a busy machine takes seconds.
  await expect.poll(() => panel.locator('[aria-busy="true"]').count(), { timeout: 15_000 }).toBe(0)
  return panel
}

/**
 * One Chromium for a test file, and the cleanups a test registers (a page's app, context, fake
 * provider), run after it, last first.
 */
export function useBrowser(): { browser: () => Browser; cleanups: (() => Promise<unknown> | unknown)[] } {
  let browser: Browser | undefined
  const cleanups: (() => Promise<unknown> | unknown)[] = []
  beforeAll(async () => {
    browser = await launchChromium()
  })
  afterAll(async () => {
    await browser?.close()
  })
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  })
  return {
    browser: () => {
      if (!browser) throw new Error('Chromium is not running: call browser() inside a test.')
      return browser
    },
    cleanups,
  }
}

export type App = Awaited<ReturnType<typeof startApp>>
export type Theme = 'light' | 'dark'

export interface OpenedChat {
  app: App
  fake: FakeProvider
  chat: Chat
  page: Page
  context: BrowserContext
}

/**
 * The chat screen's fixture: fresh apps on temp data folders, the fake provider set up as their
 * provider, and pages that fail the test on any page or console error (CSP violations included).
 */
export function useChatApp() {
  const tempDir = useTempDirs()
  const { browser, cleanups } = useBrowser()

  async function openPage(app: App, colorScheme: Theme = 'light') {
    const context = await browser().newContext({ colorScheme, viewport: { width: 1280, height: 860 } })
    cleanups.push(() => context.close())
    const page = await context.newPage()
    const problems: string[] = []
    page.on('pageerror', (error) => problems.push(error.message))
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text())
    })
    cleanups.push(() => expect(problems).toEqual([]))
    await page.goto(app.host.url)
    await page.getByRole('navigation', { name: 'Chats' }).waitFor()
    return { page, context }
  }

  /**
   * A fresh app with one chat on screen; `folder` binds the chat in agent mode. `approvalMode` sets
   * the chat's (tests of what a tool shows, not of approvals, pass `full-auto`). `home` is where the
   * app looks for the person's custom tools (a fresh folder when left out); `detectSandbox` how it
   * finds its sandbox.
   */
  async function open(
    options: {
      folder?: string
      colorScheme?: Theme
      approvalMode?: ApprovalMode
      home?: string
      detectSandbox?: AtelierOptions['detectSandbox']
    } = {},
  ): Promise<OpenedChat> {
    const fake = await startFakeProvider()
    const app = await startApp(tempDir(), options.home, options.detectSandbox)
    cleanups.push(
      () => fake.close(),
      () => app.stop(),
    )
    app.atelier.providers.create({
      kind: 'openai-chat',
      name: 'Local',
      baseUrl: fake.baseUrlFor('openai-chat'),
      defaultModel: 'm',
    })
    let chat = app.atelier.chats.create({})
    if (options.folder) {
      chat = app.atelier.chats.configure({ id: chat.id, workingDir: options.folder, mode: 'agent' })
    }
    if (options.approvalMode) {
      chat = app.atelier.chats.configure({ id: chat.id, approvalMode: options.approvalMode })
    }
    const { page, context } = await openPage(app, options.colorScheme)
    await page.getByRole('heading', { level: 1, name: chat.title }).waitFor()
    return { app, fake, chat, page, context }
  }

  return { open, openPage, tempDir, cleanups }
}

// ── The chat screen, found the way a person (or a screen reader) finds it: by role and name ──

export const conversation = (page: Page) => page.getByRole('log', { name: 'Conversation' })
export const messageBox = (page: Page) => page.getByRole('textbox', { name: 'Message' })
export const sendButton = (page: Page) => page.getByRole('button', { name: 'Send', exact: true })
export const stopButton = (page: Page) => page.getByRole('button', { name: 'Stop', exact: true })
export const toolCard = (page: Page, name: string) =>
  conversation(page).getByRole('article', { name: `Tool call ${name}` })

/**
 * Opens a call's card as a person does — the line of the calls it was made with (when it was one of
 * several), then its own line — and returns the card. `index` picks among calls of one tool (the
 * last by default).
 */
export async function openToolCall(page: Page, name: string, index = -1): Promise<Locator> {
  const cards = conversation(page).getByRole('article', { name: `Tool call ${name}`, includeHidden: true })
  const card = index < 0 ? cards.last() : cards.nth(index)
  await card.waitFor({ state: 'attached' })
  await card.evaluate((element) => {
    const lines = [
      element.closest('.tool-group')?.querySelector(':scope > .tool-line'),
      element.querySelector(':scope > header > .tool-line'),
    ]
    for (const line of lines)
      if (line?.getAttribute('aria-expanded') === 'false') (line as HTMLElement).click()
  })
  await card.locator(':scope > header > .tool-line[aria-expanded="true"]').waitFor()
  return card
}

export async function send(page: Page, prompt: string) {
  await messageBox(page).fill(prompt)
  await sendButton(page).click()
}

/** Waits until the conversation's text passes `test`, and returns that text. */
export async function conversationText(page: Page, test: (text: string) => boolean, timeout = 15_000) {
  const started = Date.now()
  for (;;) {
    const text = (await conversation(page).textContent()) ?? ''
    if (test(text)) return text
    if (Date.now() - started > timeout) throw new Error(`The conversation never matched; it reads:\n${text}`)
    await new Promise((resolve) => setTimeout(resolve, 15))
  }
}

/** The turn is over once Send is back. */
export async function turnOver(page: Page) {
  await stopButton(page).waitFor({ state: 'detached' })
  await sendButton(page).waitFor()
}

const SCREENSHOTS = join(ROOT, 'test-results', 'screenshots')

/** A screenshot under test-results/screenshots, the pointer out of the way. */
export async function screenshot(page: Page, name: string) {
  mkdirSync(SCREENSHOTS, { recursive: true })
  await page.mouse.move(0, 0)
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) })
}

/** Both themes of what is on screen now: `<name>-light` and `<name>-dark`. */
export async function screenshots(page: Page, name: string) {
  await screenshot(page, `${name}-light`)
  await page.emulateMedia({ colorScheme: 'dark' })
  // Colours ease over 120 ms: the picture waits for the new theme to settle.
  await page.waitForTimeout(400)
  await screenshot(page, `${name}-dark`)
  await page.emulateMedia({ colorScheme: 'light' })
  await page.waitForTimeout(400)
}
