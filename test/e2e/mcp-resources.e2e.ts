import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterEach, describe, expect, it } from 'vitest'
import {
  NOTE_TEXT,
  NOTE_URI,
  type ResourcesServer,
  startResourcesServer,
} from '../fixtures/mcp-resources-server'
import {
  conversation,
  conversationText,
  messageBox,
  ROOT,
  sendButton,
  type Theme,
  useChatApp,
} from './support'

const SCREENSHOTS = join(ROOT, 'test-results', 'screenshots')

/**
 * An MCP server's resources and prompts from the composer, in Chromium against the web host: a
 * real SDK server on loopback, the fake provider as the model.
 */
describe('MCP resources and prompts in the composer', () => {
  const { open } = useChatApp()
  let server: ResourcesServer | undefined
  afterEach(async () => {
    await server?.close()
    server = undefined
  })

  async function openWithLibrary(colorScheme: Theme = 'light') {
    server = await startResourcesServer()
    const opened = await open({ colorScheme, approvalMode: 'full-auto' })
    opened.app.atelier.mcp.add({ name: 'library', transport: 'http', url: server.url }, { approve: false })
    return opened
  }

  async function screenshot(page: Page, name: string) {
    mkdirSync(SCREENSHOTS, { recursive: true })
    await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) })
  }

  /** The paperclip's menu, then its MCP resource item (issue 32: the paperclip attaches more than resources). */
  async function attachResource(page: Page) {
    await page.getByRole('button', { name: 'Attach', exact: true }).click()
    await page.getByRole('menuitem', { name: /MCP resource/ }).click()
  }

  it("A resource attached to a message reaches the model's request; a prompt from the `/` menu fills the composer", async () => {
    const { page, fake } = await openWithLibrary()

    // Attach: the dialog lists the server's resources; the filter narrows them.
    await attachResource(page)
    const dialog = page.getByRole('dialog', { name: 'Attach a resource' })
    const library = dialog.getByRole('region', { name: 'Resources of library' })
    await library.getByRole('button', { name: 'Attach Project readme' }).waitFor()
    expect(await library.getByRole('button').count()).toBe(3)
    await dialog.getByRole('searchbox', { name: 'Filter resources' }).fill('logo')
    await expect.poll(() => library.getByRole('button').count()).toBe(1)
    await dialog.getByRole('searchbox', { name: 'Filter resources' }).fill('readme')
    await library.getByRole('button', { name: 'Attach Project readme' }).click()
    await dialog.waitFor({ state: 'hidden' })

    const chips = page.getByRole('list', { name: 'Attachments' })
    await chips.getByText('Project readme').waitFor()
    // A second one, removed again before sending.
    await attachResource(page)
    await page.getByRole('button', { name: 'Attach build-log' }).click()
    await page.getByRole('button', { name: 'Remove resource build-log' }).click()
    expect(await chips.getByRole('listitem').count()).toBe(1)

    fake.enqueue({ text: 'The code word is PELICAN-42.' })
    await messageBox(page).fill('What is the code word?')
    await sendButton(page).click()
    await conversationText(page, (text) => text.includes('The code word is PELICAN-42.'))

    const [request] = fake.requestsOf('openai-chat')
    const user = request?.body.messages.find((message: { role: string }) => message.role === 'user')
    expect(user.content).toContain(`uri="${NOTE_URI}"`)
    expect(user.content).toContain(NOTE_TEXT)
    expect(user.content).not.toContain('build line')
    expect(user.content.endsWith('What is the code word?')).toBe(true)

    // The bubble shows what was attached, and still does after a reload.
    const sent = conversation(page).getByRole('list', { name: 'Attached to this message' })
    await sent.getByText('Project readme').waitFor()
    expect(await page.getByRole('list', { name: 'Attachments' }).count()).toBe(0)
    await page.reload()
    await conversation(page)
      .getByRole('list', { name: 'Attached to this message' })
      .getByText('Project readme')
      .waitFor()

    // `/`: the servers' prompts in the commands' listbox; the keyboard picks one with arguments.
    await messageBox(page).fill('/library')
    const menu = page.getByRole('listbox', { name: 'Commands' })
    await menu.getByRole('option', { name: /\/library:standup/ }).waitFor()
    expect(await menu.getByRole('option').count()).toBe(2)
    await messageBox(page).press('ArrowDown')
    expect(await menu.getByRole('option', { name: /\/library:review/ }).getAttribute('aria-selected')).toBe(
      'true',
    )
    await screenshot(page, 'mcp-prompt-menu-light')
    await messageBox(page).press('Enter')

    const form = page.getByRole('dialog', { name: '/library:review' })
    const file = form.getByRole('textbox', { name: 'file (required)' })
    await file.waitFor()
    expect(await file.getAttribute('required')).not.toBeNull()
    expect(await form.getByRole('textbox', { name: 'focus (optional)' }).getAttribute('required')).toBeNull()
    await file.fill('src/app.ts')
    await form.getByRole('textbox', { name: 'focus (optional)' }).fill('errors')
    await form.getByRole('button', { name: 'Insert prompt' }).click()
    await form.waitFor({ state: 'hidden' })
    await expect
      .poll(() => messageBox(page).inputValue())
      .toBe(`Review src/app.ts with an eye on errors.\n\n${NOTE_TEXT}`)
    // Filled, not sent.
    expect(fake.requestsOf('openai-chat')).toHaveLength(1)

    // A prompt without arguments fills the box at once; Escape closes the menu and keeps the text.
    await messageBox(page).fill('/stand')
    await page.getByRole('listbox', { name: 'Commands' }).getByRole('option').first().waitFor()
    expect(await page.getByRole('listbox', { name: 'Commands' }).getByRole('option').count()).toBe(1)
    await messageBox(page).press('Enter')
    await expect.poll(() => messageBox(page).inputValue()).toBe('Write my stand-up: done, doing, blocked.')
    await messageBox(page).fill('/rev')
    await page.getByRole('listbox', { name: 'Commands' }).waitFor()
    await messageBox(page).press('Escape')
    await page.getByRole('listbox', { name: 'Commands' }).waitFor({ state: 'hidden' })
    expect(await messageBox(page).inputValue()).toBe('/rev')
    expect(fake.requestsOf('openai-chat')).toHaveLength(1)
  })

  it('shows the resource dialog and the `/` menu in the dark theme', async () => {
    const { page } = await openWithLibrary('dark')
    await attachResource(page)
    await page.getByRole('button', { name: 'Attach Project readme' }).waitFor()
    await screenshot(page, 'mcp-resource-dialog-dark')
    await page.getByRole('button', { name: 'Attach Project readme' }).click()
    await messageBox(page).fill('/library')
    await page.getByRole('listbox', { name: 'Commands' }).getByRole('option').first().waitFor()
    await screenshot(page, 'mcp-prompt-menu-dark')
    const background = await page
      .getByRole('listbox', { name: 'Commands' })
      .evaluate((element) => getComputedStyle(element.parentElement ?? element).backgroundColor)
    expect(background).toBe('rgb(34, 35, 42)')
    await messageBox(page).press('ArrowDown')
    await messageBox(page).press('Enter')
    await page
      .getByRole('dialog', { name: '/library:review' })
      .getByRole('textbox', { name: 'file (required)' })
      .waitFor()
    await screenshot(page, 'mcp-prompt-arguments-dark')
  })
})
