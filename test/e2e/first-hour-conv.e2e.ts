import { realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Locator, Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { ConversationRepository } from '../../src-main/db/conversation-repository'
import {
  conversation,
  conversationText,
  messageBox,
  openToolCall,
  screenshot,
  send,
  startApp,
  type Theme,
  turnOver,
  useChatApp,
} from './support'

/** Whether `inner` lies within what `outer` shows on screen (a pixel's slack for rounding). */
async function within(inner: Locator, outer: Locator): Promise<boolean> {
  // Not in the page at all (a virtualized row far from the view) is not on screen either.
  if ((await inner.count()) === 0) return false
  const [a, b] = [await inner.boundingBox(), await outer.boundingBox()]
  return Boolean(a && b && a.y >= b.y - 1 && a.y + a.height <= b.y + b.height + 1)
}

/** Whether the lower edge of `inner` is on screen within `outer`: the help was read to its end. */
async function endWithin(inner: Locator, outer: Locator): Promise<boolean> {
  const [a, b] = [await inner.boundingBox(), await outer.boundingBox()]
  return Boolean(a && b && a.y + a.height <= b.y + b.height + 1 && a.y + a.height >= b.y)
}

/** The user messages of the fake provider's last chat request. */
function userMessagesOfLastRequest(fake: Awaited<ReturnType<ReturnType<typeof useChatApp>['open']>>['fake']) {
  const body = fake.requestsOf('openai-chat').at(-1)?.body as {
    messages: { role: string; content: unknown }[]
  }
  return body.messages.filter((message) => message.role === 'user').map((message) => message.content)
}

/**
 * "The first hour" (issue 19), the conversation's part: Retry, following a sent prompt, a new chat
 * with no blank frames, and tool cards that say what a tool is and where it ran.
 */
describe('the first hour: the conversation', () => {
  const { open, openPage, tempDir, cleanups } = useChatApp()

  for (const theme of ['light', 'dark'] as Theme[]) {
    it(`Retry re-runs the failed turn once: one prompt bubble, the model gets the prompt once (${theme})`, async () => {
      const { page, fake, app, chat } = await open({ colorScheme: theme })
      fake.enqueue({ status: 401 })
      await send(page, 'Summarise the README')
      const alert = conversation(page).getByRole('alert')
      await alert.waitFor()
      await turnOver(page)

      fake.enqueue({ text: 'The README explains how to start.' })
      await alert.getByRole('button', { name: 'Retry' }).click()
      await conversationText(page, (text) => text.includes('The README explains how to start.'))
      await turnOver(page)

      expect(await conversation(page).getByText('Summarise the README').count()).toBe(1)
      expect(userMessagesOfLastRequest(fake)).toEqual(['Summarise the README'])
      // The failed attempt is the turn that now succeeded: no second prompt is stored.
      const stored = app.atelier.agent.conversation({ id: chat.id })
      expect(stored.messages.filter((message) => message.role === 'user')).toHaveLength(1)
      expect(stored.turns.map((turn) => turn.status)).toEqual(['completed'])
      expect(await conversation(page).getByRole('alert').count()).toBe(0)
      await screenshot(page, `first-hour-2-${theme}`)
    })
  }

  it('Retry after a refused send (nothing committed) sends the prompt, once', async () => {
    const { page, fake, app } = await open()
    // No provider: the send is refused before anything is written.
    const [provider] = app.atelier.providers.list()
    if (provider) app.atelier.providers.delete({ id: provider.id })
    await send(page, 'Mine')
    const alert = conversation(page).getByRole('alert')
    await alert.getByText('The prompt was not sent').waitFor()
    app.atelier.providers.create({
      kind: 'openai-chat',
      name: 'Local again',
      baseUrl: fake.baseUrlFor('openai-chat'),
      defaultModel: 'm',
    })
    fake.enqueue({ text: 'Now yours.' })
    await alert.getByRole('button', { name: 'Retry' }).click()
    await conversationText(page, (text) => text.includes('Now yours.'))
    await turnOver(page)
    expect(await conversation(page).getByText('You said: Mine').count()).toBe(1)
    expect(userMessagesOfLastRequest(fake)).toEqual(['Mine'])
  })

  async function longChat(theme: Theme = 'light') {
    const opened = await open({ colorScheme: theme })
    const history = new ConversationRepository(opened.app.atelier.db)
    for (let index = 1; index <= 40; index++) {
      const { turn } = history.beginTurn(opened.chat.id, `Question ${index}`)
      history.append(opened.chat.id, turn.id, 'assistant', [
        { type: 'text', text: `Answer **${index}**\n\n${'Some words to read. '.repeat(30)}` },
      ])
      history.endTurn(turn.id, 'completed')
    }
    await opened.page.reload()
    const log = conversation(opened.page)
    await log.getByText('Answer 40').waitFor()
    // The person scrolls up to read.
    await log.evaluate((element) => {
      element.scrollTop = 0
    })
    await log.getByText(/Question 1$/).waitFor()
    return { ...opened, log }
  }

  for (const theme of ['light', 'dark'] as Theme[]) {
    it(`sending while scrolled up brings the new prompt into view and follows its stream (${theme})`, async () => {
      const { page, fake, log } = await longChat(theme)
      const lines = Array.from({ length: 40 }, (_, index) => `Line ${index + 1} of the answer.`)
      // Slow enough to see the prompt on screen before the answer pushes it up.
      fake.enqueue({ text: lines.join('\n\n'), chunkSize: 120, delayMs: 250 })
      await send(page, 'Where does this go?')

      const prompt = log.getByText('You said: Where does this go?')
      await expect.poll(() => within(prompt, log), { timeout: 5000 }).toBe(true)
      // The stream is followed to its end.
      await conversationText(page, (text) => text.includes('Line 40 of the answer.'))
      await turnOver(page)
      await expect.poll(() => within(log.getByText('Line 40 of the answer.'), log)).toBe(true)
      expect(await page.getByRole('button', { name: 'Jump to latest' }).count()).toBe(0)
      await screenshot(page, `first-hour-3-${theme}`)
    })
  }

  it('scrolling up during the stream lets go of it again', async () => {
    const { page, fake, log } = await longChat()
    const lines = Array.from({ length: 60 }, (_, index) => `Row ${index + 1} streamed.`)
    fake.enqueue({ text: lines.join('\n\n'), chunkSize: 20, delayMs: 40 })
    await send(page, 'Stream a lot')
    await conversationText(page, (text) => text.includes('Row 5 streamed.'))
    await log.evaluate((element) => {
      element.scrollTop = Math.max(0, element.scrollTop - 3000)
    })
    await turnOver(page)
    expect(await within(log.getByText('Row 60 streamed.'), log)).toBe(false)
    await page.getByRole('button', { name: 'Jump to latest' }).waitFor()
  })

  /** Records, before each paint could happen, what the main pane shows. */
  async function recordFrames(page: Page) {
    await page.evaluate(() => {
      const frames: { title: string | null; composer: boolean; conversation: string | null }[] = []
      const record = () => {
        const main = document.querySelector('main')
        const log = main?.querySelector('[role="log"][aria-label="Conversation"]')
        frames.push({
          title: main?.querySelector('h1')?.textContent ?? null,
          composer: Boolean(main?.querySelector('textarea[aria-label="Message"]')),
          conversation: log ? (log.textContent ?? '') : null,
        })
      }
      const observer = new MutationObserver(record)
      observer.observe(document.body, {
        subtree: true,
        childList: true,
        characterData: true,
        attributes: true,
      })
      ;(window as unknown as { __frames: typeof frames }).__frames = frames
    })
  }

  for (const theme of ['light', 'dark'] as Theme[]) {
    it(`a new chat shows its title, its help and the composer from its first frame (${theme})`, async () => {
      const { page, app, chat } = await open({ colorScheme: theme })
      app.atelier.chats.rename({ id: chat.id, title: 'Earlier work' })
      await page.getByRole('heading', { level: 1, name: 'Earlier work' }).waitFor()
      await recordFrames(page)

      await page.getByRole('button', { name: 'New chat', exact: true }).click()
      await page.getByRole('heading', { level: 1, name: 'Untitled chat' }).waitFor()
      await page.getByRole('heading', { name: 'What shall we work on?' }).waitFor()
      await page.waitForTimeout(300)
      const frames = await page.evaluate(
        () =>
          (
            window as unknown as {
              __frames: { title: string | null; composer: boolean; conversation: string | null }[]
            }
          ).__frames,
      )
      const after = frames.slice(frames.findIndex((frame) => frame.title !== 'Earlier work'))
      expect(after.length).toBeGreaterThan(0)
      // Every state the new chat passed through had its title, the composer and its help.
      const blank = after.filter(
        (frame) =>
          frame.title !== 'Untitled chat' ||
          !frame.composer ||
          !frame.conversation?.includes('What shall we work on?'),
      )
      expect(blank).toEqual([])
      await screenshot(page, `first-hour-10-${theme}`)
    })
  }

  for (const theme of ['light', 'dark'] as Theme[]) {
    it(`the empty chat's help fits above the composer, or says there is more (${theme})`, async () => {
      const app = await startApp(tempDir())
      cleanups.push(() => app.stop())
      app.atelier.chats.create({})
      const { page } = await openPage(app, theme)
      const log = conversation(page)
      const folderCard = page.getByRole('region', { name: 'Bind a project folder' })
      await folderCard.waitFor()
      // At a laptop's height, both cards fit above the composer.
      expect(await within(folderCard, log)).toBe(true)
      expect(await page.getByRole('button', { name: 'More below' }).count()).toBe(0)
      await screenshot(page, `first-hour-10-help-fits-${theme}`)

      // Lower, they do not: a cue says so, and takes the person there.
      await page.setViewportSize({ width: 1000, height: 560 })
      expect(await within(folderCard, log)).toBe(false)
      const more = page.getByRole('button', { name: 'More below' })
      await more.waitFor()
      await screenshot(page, `first-hour-10-help-${theme}`)
      await more.click()
      await expect.poll(() => endWithin(folderCard, log)).toBe(true)
      await more.waitFor({ state: 'detached' })
      expect(await messageBox(page).isVisible()).toBe(true)
    })
  }

  for (const theme of ['light', 'dark'] as Theme[]) {
    it(`tool cards name the tool by its title, keep its id, and bash says where it ran (${theme})`, async () => {
      const folder = realpathSync(tempDir())
      writeFileSync(join(folder, 'notes.txt'), 'Plant the tomatoes in May.\n')
      const { page, fake, app } = await open({ folder, approvalMode: 'full-auto', colorScheme: theme })
      app.atelier.tools.settings.update('local', 'bash', { enabled: true })
      fake.enqueue(
        { toolCalls: [{ name: 'read_file', arguments: JSON.stringify({ path: 'notes.txt' }) }] },
        { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'pwd' }) }] },
        { text: 'Read and ran.' },
      )
      await send(page, 'Read the notes, then show the folder')
      await conversationText(page, (text) => text.includes('Read and ran.'))
      await turnOver(page)

      // The line says the verb; opened, the card names the tool by its title and id.
      const read = await openToolCall(page, 'read_file')
      await read.getByText('Read files', { exact: true }).waitFor()
      expect(await read.getByText('read_file', { exact: true }).count()).toBe(1)

      const bash = await openToolCall(page, 'bash')
      await bash.getByText('bash', { exact: true }).first().waitFor()
      const where = bash.getByText(`Ran in ${folder}`)
      await where.waitFor()
      expect(await where.getAttribute('title')).toBe(`Ran in ${folder}`)
      await screenshot(page, `first-hour-11-${theme}`)
    })
  }
})
