import type { BrowserContext, Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { send, settingsSection, stopButton, turnOver, useChatApp } from './support'

interface Captured {
  title: string
  body: string | undefined
  tag: string | undefined
}

/**
 * The window as a person has left it: the page hidden and unfocused. Every notification the page
 * raises is kept in `window.captured` (the real one is still made), with its click handler.
 */
function leaveWindow() {
  Object.defineProperty(document, 'visibilityState', { get: () => 'hidden' })
  Object.defineProperty(document, 'hidden', { get: () => true })
  document.hasFocus = () => false
  const Real = window.Notification
  const captured: (Captured & { click(): void })[] = []
  Object.assign(window, { captured })
  class CapturingNotification extends Real {
    constructor(title: string, options?: NotificationOptions) {
      super(title, options)
      captured.push({
        title,
        body: options?.body,
        tag: options?.tag,
        click: () => this.onclick?.(new Event('click')),
      })
    }
  }
  window.Notification = CapturingNotification
}

/** The page again, left hidden and unfocused, with notifications allowed for it. */
async function leftAlone(page: Page, context: BrowserContext, url: string) {
  await context.grantPermissions(['notifications'], { origin: new URL(url).origin })
  await context.addInitScript(leaveWindow)
  await page.reload()
  await page.getByRole('navigation', { name: 'Chats' }).waitFor()
}

const notifications = (page: Page) =>
  page.evaluate(() =>
    (window as unknown as { captured: Captured[] }).captured.map(({ title, body, tag }) => ({
      title,
      body,
      tag,
    })),
  )

describe('notifications in Chromium with the window hidden', () => {
  const { open, tempDir } = useChatApp()

  it('raises one when a turn finishes, naming the chat only; clicking it opens the chat', async () => {
    const { page, context, app, fake, chat } = await open()
    await leftAlone(page, context, app.host.url)
    fake.enqueue({ text: 'The secret answer is 42.' })

    await send(page, 'What is the answer?')
    await turnOver(page)

    await expect.poll(() => notifications(page)).toHaveLength(1)
    const [shown] = await notifications(page)
    const title = app.atelier.chats.get(chat.id).title
    expect(shown).toEqual({ title, body: 'The turn finished.', tag: chat.id })
    expect(JSON.stringify(shown)).not.toContain('42')

    await settingsSection(page, 'Appearance')
    await page.evaluate(() => (window as unknown as { captured: { click(): void }[] }).captured[0]?.click())
    await page.getByRole('heading', { level: 1, name: title }).waitFor()
  })

  it('raises one when a call waits for approval, naming the tool', async () => {
    const folder = tempDir()
    const { page, context, app, fake, chat } = await open({ folder, approvalMode: 'ask' })
    await leftAlone(page, context, app.host.url)
    fake.enqueue({
      toolCalls: [{ name: 'write_file', arguments: JSON.stringify({ path: 'a.txt', content: 'a' }) }],
    })

    await send(page, 'Write a file')

    await expect
      .poll(() => notifications(page))
      .toEqual([
        {
          title: app.atelier.chats.get(chat.id).title,
          body: 'Needs your approval for write_file.',
          tag: chat.id,
        },
      ])
    await stopButton(page).click()
    await turnOver(page)
  })

  it('raises none for a kind switched off in Settings', async () => {
    const { page, context, app, fake } = await open()
    app.atelier.preferences.update({ notifications: { finished: false, failed: true, waiting: true } })
    await leftAlone(page, context, app.host.url)
    fake.enqueue({ text: 'Done.' })

    await send(page, 'Go')
    await turnOver(page)

    // The failed and waiting kinds are still on; a finished turn raises nothing.
    await page.waitForTimeout(300)
    expect(await notifications(page)).toEqual([])
  })
})
