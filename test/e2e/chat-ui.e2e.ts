import { existsSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { Type } from '@sinclair/typebox'
import { describe, expect, it } from 'vitest'
import { ConversationRepository } from '../../src-main/db/conversation-repository'
import {
  conversation,
  conversationText,
  messageBox,
  openToolCall,
  screenshot,
  send,
  sendButton,
  startApp,
  stopButton,
  testTool,
  toolCard,
  turnOver,
  useChatApp,
} from './support'

/**
 * The chat screen in Chromium, against the web host and the real services, with the fake provider
 * scripting the model. Everything is found the way a person (or a screen reader) finds it: by role
 * and accessible name.
 */
describe('the chat screen', () => {
  const { open, openPage, tempDir, cleanups } = useChatApp()

  it('streams the answer as it arrives and renders it as safe Markdown', async () => {
    const { page, context, fake } = await open()
    await context.grantPermissions(['clipboard-read', 'clipboard-write'])
    const answer = [
      'Here is **bold** text and a [link to the docs](https://example.com/docs).',
      '',
      '```js',
      'const answer = 42',
      '```',
      '',
      'Raw markup: <script>window.__pwned = "script"</script> <img src="x" onerror="window.__pwned = \'img\'">',
      '',
      'The end.',
    ].join('\n')
    fake.enqueue({ text: answer, chunkSize: 6, delayMs: 30 })

    expect(await sendButton(page).isDisabled()).toBe(true)
    await send(page, 'Show me some Markdown')
    await conversation(page).getByText('Show me some Markdown').waitFor()

    // Part of the answer shows while the rest is still on its way.
    const partial = await conversationText(
      page,
      (text) => text.includes('Here is') && !text.includes('The end.'),
    )
    expect(partial).not.toContain('The end.')
    await stopButton(page).waitFor()
    await conversationText(page, (text) => text.includes('The end.'))
    await turnOver(page)

    const log = conversation(page)
    expect(await log.locator('strong').allTextContents()).toEqual(['bold'])
    const link = log.getByRole('link', { name: 'link to the docs' })
    expect(await link.getAttribute('href')).toBe('https://example.com/docs')
    expect(await link.getAttribute('target')).toBe('_blank')
    expect(await link.getAttribute('rel')).toBe('noreferrer')

    // The fenced block is highlighted as JavaScript and can be copied.
    expect(await log.locator('pre code.hljs.language-js .hljs-keyword').first().textContent()).toBe('const')
    await log.getByRole('button', { name: 'Copy code' }).click()
    await log.getByRole('button', { name: 'Copy code' }).getByText('Copied').waitFor()
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('const answer = 42')

    // Raw HTML from the model is neither run nor rendered.
    expect(await log.locator('script, img, [onerror]').count()).toBe(0)
    expect(await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned)).toBeUndefined()
    const text = (await log.textContent()) ?? ''
    expect(text).not.toContain('<script>')
    expect(text).not.toContain('onerror')

    // The prompt is a bubble on the right.
    const bubble = log.getByText('Show me some Markdown')
    const [bubbleBox, logBox] = [await bubble.boundingBox(), await log.boundingBox()]
    expect(bubbleBox && logBox && bubbleBox.x + bubbleBox.width > logBox.x + logBox.width * 0.6).toBe(true)
  })

  it('shows a tool call with its arguments and result', async () => {
    const folder = tempDir()
    writeFileSync(join(folder, 'alpha.txt'), 'alpha\n')
    mkdirSync(join(folder, 'src'))
    const { page, fake } = await open({ folder })
    fake.enqueue(
      { toolCalls: [{ name: 'list_directory', arguments: JSON.stringify({ path: '.' }) }] },
      { text: 'The folder holds **alpha.txt** and a `src` folder.' },
    )

    await send(page, 'What is in this folder?')
    const card = toolCard(page, 'list_directory')
    await card.waitFor()
    await conversationText(page, (text) => text.includes('The folder holds'))
    await turnOver(page)
    await openToolCall(page, 'list_directory')

    expect(await card.locator('.tool-args').textContent()).toBe('{\n  "path": "."\n}')
    // The entries as a tree (issue 19, item 4), not as the JSON the model reads.
    const tree = card.getByRole('tree', { name: 'Entries of .' })
    expect(await tree.getByRole('treeitem').allTextContents()).toEqual(['src', 'alpha.txt'])
    expect(await card.getByText('Done', { exact: true }).count()).toBe(1)
    // The result is collapsible.
    expect(await card.locator('details.tool-result > summary').textContent()).toBe('Result · 2 entries')
  })

  it('shows generated images inline, read through images.read', async () => {
    const { page, fake, app } = await open({ approvalMode: 'full-auto' })
    app.atelier.providers.create({
      kind: 'openai-responses',
      name: 'Images',
      baseUrl: fake.baseUrlFor('openai-responses'),
    })
    fake.enqueue(
      {
        toolCalls: [
          { name: 'generate_image', arguments: JSON.stringify({ prompt: 'A ripe tomato', count: 2 }) },
        ],
      },
      { text: 'Here are two tomatoes.' },
    )
    await send(page, 'Draw a tomato')
    await conversationText(page, (text) => text.includes('Here are two tomatoes.'))
    const images = toolCard(page, 'generate_image').getByRole('img', { name: /^Generated image/ })
    await images.nth(1).waitFor()
    expect(await images.count()).toBe(2)
    const sources = await images.evaluateAll((elements) =>
      elements.map((element) => {
        const image = element as HTMLImageElement
        return { src: image.src.slice(0, 22), width: image.naturalWidth }
      }),
    )
    expect(sources).toEqual([
      { src: 'data:image/png;base64,', width: 1 },
      { src: 'data:image/png;base64,', width: 1 },
    ])
  })

  it('stops a long shell command: the card says Cancelled and Stop goes away', async () => {
    const folder = tempDir()
    const { page, fake, app, chat } = await open({ folder, approvalMode: 'full-auto' })
    app.atelier.tools.settings.update('local', 'bash', { enabled: true })
    fake.enqueue({
      toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'echo started; sleep 30' }) }],
    })

    await send(page, 'Run the long job')
    const card = await openToolCall(page, 'bash')
    // The shell's output shows while it runs.
    await card.getByRole('log', { name: 'Live output of bash' }).getByText('started').waitFor()
    expect(await card.getByText('Running…').count()).toBe(1)

    const stopped = Date.now()
    await stopButton(page).click()
    await card.getByText('Cancelled', { exact: true }).waitFor()
    expect(Date.now() - stopped).toBeLessThan(10_000)
    await turnOver(page)
    await screenshot(page, 'chat-shell-stopped-light')
    expect(await stopButton(page).count()).toBe(0)
    await conversation(page).getByText('Stopped by you').first().waitFor()
    expect(app.atelier.agent.conversation({ id: chat.id }).turns.at(-1)?.status).toBe('stopped')
    // Focus went back to the message box.
    expect(await messageBox(page).evaluate((element) => element === document.activeElement)).toBe(true)
  })

  it('refuses a tool the chat’s agent profile does not offer: nothing is written, and both model and card say so', async () => {
    const folder = tempDir()
    const { page, fake, chat } = await open({ folder })
    await page.evaluate(async (chatId) => {
      const api = window.atelier
      if (!api) throw new Error('no window.atelier')
      const reader = await api.agents.create({
        name: 'Reader',
        systemPrompt: 'You read this project; you change nothing.',
        tools: ['read_file'],
        defaultMode: 'agent',
      })
      await api.chats.configure({ id: chatId, agent: reader.id })
    }, chat.id)
    fake.enqueue(
      {
        toolCalls: [
          {
            name: 'write_file',
            arguments: JSON.stringify({ path: 'notes.txt', content: 'Written anyway.\n' }),
          },
        ],
      },
      { text: 'I may only read in this chat.' },
    )

    await send(page, 'Write a note')
    await conversationText(page, (text) => text.includes('I may only read in this chat.'))
    await turnOver(page)

    expect(existsSync(join(folder, 'notes.txt'))).toBe(false)
    const [first, followUp] = fake.requestsOf('openai-chat').map((request) => request.body)
    expect(first.tools.map((tool: { function: { name: string } }) => tool.function.name)).toEqual([
      'read_file',
    ])
    const toolMessage = followUp.messages.find((message: { role: string }) => message.role === 'tool')
    expect(toolMessage.content).toMatch(
      /"write_file" is not offered in this chat.*Offered tools: read_file\./,
    )
    const card = toolCard(page, 'write_file')
    expect(await card.getByText('Not offered', { exact: true }).count()).toBe(1)
    expect(await card.getByText('Error', { exact: true }).count()).toBe(0)
    await screenshot(page, 'chat-tool-not-offered-light')
  })

  it('marks a result Truncated when it was cut, not when its text only reads like a cut one', async () => {
    const { page, fake, app } = await open({ approvalMode: 'full-auto' })
    app.atelier.tools.registry.register(
      testTool({
        name: 'repeat_text',
        title: 'Repeat text',
        description: 'Returns the text, repeated.',
        parameters: Type.Object({ text: Type.String(), times: Type.Integer({ minimum: 1 }) }),
        execute: async ({ text, times }) => text.repeat(times),
      }),
    )
    const quotedNotice = 'Ten chars.\n\n[Output truncated: showing 10 of 20 characters. …]'
    fake.enqueue(
      {
        toolCalls: [
          { name: 'repeat_text', arguments: JSON.stringify({ text: quotedNotice, times: 1 }) },
          // Past the executor's cap of 100,000 characters.
          { name: 'repeat_text', arguments: JSON.stringify({ text: 'ten chars ', times: 10_001 }) },
        ],
      },
      { text: 'One of them was cut.' },
    )

    await send(page, 'Repeat these')
    await conversationText(page, (text) => text.includes('One of them was cut.'))
    await turnOver(page)

    const [quoted, cut] = [
      await openToolCall(page, 'repeat_text', 0),
      await openToolCall(page, 'repeat_text', 1),
    ]
    expect(await quoted.locator('.tool-result-content').textContent()).toBe(quotedNotice)
    expect(await quoted.getByText('Truncated', { exact: true }).count()).toBe(0)
    expect(await cut.locator('.tool-result-content').textContent()).toContain(
      '[Output truncated: showing 100000',
    )
    expect(await cut.getByText('Truncated', { exact: true }).count()).toBe(1)
  })

  it('binds a folder through the web folder browser, and read_file then reads relative paths there', async () => {
    const { page, fake, app, chat } = await open()
    const project = join(tempDir(), 'garden')
    mkdirSync(project)
    writeFileSync(join(project, 'notes.txt'), 'The secret word is marmalade.\n')
    const real = realpathSync(project)

    await page.getByRole('button', { name: 'Choose folder' }).click()
    const dialog = page.getByRole('dialog', { name: 'Choose a folder' })
    await dialog.waitFor()
    await dialog.getByRole('textbox', { name: 'Folder path' }).fill(dirname(real))
    await dialog.getByRole('textbox', { name: 'Folder path' }).press('Enter')
    await dialog.getByRole('button', { name: 'garden', exact: true }).click()
    await dialog.getByText(real, { exact: true }).waitFor()
    // Up and back in again.
    await dialog.getByRole('button', { name: 'Up', exact: true }).click()
    await dialog.getByText(dirname(real), { exact: true }).waitFor()
    await dialog.getByRole('button', { name: 'garden', exact: true }).click()
    await dialog.getByText(real, { exact: true }).waitFor()
    await screenshot(page, 'chat-folder-browser-light')
    await dialog.getByRole('button', { name: 'Use this folder' }).click()
    await dialog.waitFor({ state: 'detached' })

    // The chip shows where the folder lives, its whole path on hover.
    await page.getByRole('group', { name: 'Project folder' }).getByTitle(real, { exact: true }).waitFor()
    const agentMode = page.getByRole('switch', { name: 'Agent mode' })
    await page.waitForFunction(() => document.querySelector('[role=switch][aria-checked=true]'))
    expect(await agentMode.getAttribute('aria-checked')).toBe('true')
    expect(app.atelier.chats.get(chat.id)).toMatchObject({ workingDir: real, mode: 'agent' })

    fake.enqueue(
      { toolCalls: [{ name: 'read_file', arguments: JSON.stringify({ path: 'notes.txt' }) }] },
      { text: 'The note says marmalade.' },
    )
    await send(page, 'What does notes.txt say?')
    await conversationText(page, (text) => text.includes('The note says'))
    expect(await toolCard(page, 'read_file').textContent()).toContain('The secret word is marmalade.')
    const followUp = fake.requestsOf('openai-chat').at(-1)?.body
    const toolMessage = followUp.messages.find((message: { role: string }) => message.role === 'tool')
    expect(JSON.stringify(toolMessage.content)).toContain('marmalade')

    // The folder is now among the recent ones; Escape closes the browser; Clear unbinds.
    await page.getByRole('button', { name: 'Choose folder' }).click()
    await dialog
      .getByRole('list', { name: 'Recent folders' })
      .getByRole('button', { name: /garden/ })
      .waitFor()
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'detached' })
    await page.getByRole('button', { name: 'Clear folder' }).click()
    await page.getByRole('main').getByText('No folder bound').waitFor()
    expect(app.atelier.chats.get(chat.id).workingDir).toBeNull()
  })

  it('shows in Capabilities exactly the tools the provider then receives, for the chosen model', async () => {
    const { page, fake, app, chat } = await open()

    // Choose a model by name; free text works too.
    const model = page.getByRole('combobox', { name: 'Model' })
    await model.fill('fake-model-small')
    await model.press('Enter')
    await expect.poll(() => app.atelier.chats.get(chat.id).model).toBe('fake-model-small')
    // The chat names no provider, so it uses the first set up, shown as chosen (issue 19, item 6).
    expect(await page.getByRole('combobox', { name: 'Provider' }).inputValue()).toBe(
      app.atelier.providers.list()[0]?.id,
    )
    expect(app.atelier.chats.get(chat.id).provider).toBeNull()
    expect(await page.getByRole('combobox', { name: 'Agent profile' }).inputValue()).toBe('default')

    await page.getByRole('button', { name: 'Capabilities' }).click()
    const dialog = page.getByRole('dialog', { name: 'Capabilities' })
    const table = dialog.getByRole('table', { name: 'Tools' })
    await table.waitFor()
    const shown = await table.locator('tbody th').allTextContents()
    expect(shown.length).toBeGreaterThan(3)
    const dialogText = (await dialog.textContent()) ?? ''
    expect(dialogText).toContain('openai-chat')
    expect(dialogText).toContain('fake-model-small')
    expect(dialogText).toMatch(/may start them/)
    await screenshot(page, 'chat-capabilities-light')
    await dialog.getByText('Wire JSON', { exact: true }).click()
    const wire = JSON.parse((await dialog.locator('details pre').textContent()) ?? '[]') as {
      function: { name: string }
    }[]
    expect(wire.map((tool) => tool.function.name)).toEqual(shown)
    await dialog.getByRole('button', { name: 'Close' }).click()
    await dialog.waitFor({ state: 'detached' })

    fake.enqueue({ text: 'Hello.' })
    await send(page, 'Hi')
    await conversationText(page, (text) => text.includes('Hello.'))
    const request = fake.requestsOf('openai-chat').at(-1)?.body
    expect(request.model).toBe('fake-model-small')
    expect(request.tools.map((tool: { function: { name: string } }) => tool.function.name)).toEqual(shown)
  })

  it('works from the keyboard alone: Tab to the message box, Enter sends, Esc stops', async () => {
    const { page, fake, app, chat } = await open()
    fake.enqueue({ text: 'slow '.repeat(600), chunkSize: 5, delayMs: 25 })

    const box = messageBox(page)
    let sawFocusRing = false
    for (let press = 0; press < 40; press++) {
      await page.keyboard.press('Tab')
      const focused = await page.evaluate(() => {
        const element = document.activeElement as HTMLElement | null
        return {
          label: element?.textContent?.trim() ?? '',
          outline: element ? getComputedStyle(element).outlineStyle : 'none',
        }
      })
      if (focused.label === 'Choose folder') sawFocusRing = focused.outline !== 'none'
      if (await box.evaluate((element) => element === document.activeElement)) break
    }
    expect(await box.evaluate((element) => element === document.activeElement)).toBe(true)
    expect(sawFocusRing).toBe(true)

    await page.keyboard.type('First line')
    await page.keyboard.press('Shift+Enter')
    await page.keyboard.type('second line')
    expect(await box.inputValue()).toBe('First line\nsecond line')
    await page.keyboard.press('Enter')
    expect(await box.inputValue()).toBe('')
    await stopButton(page).waitFor()
    await conversationText(page, (text) => text.includes('slow slow slow'))

    await page.keyboard.press('Escape')
    await turnOver(page)
    await conversation(page).getByText('Stopped by you').waitFor()
    expect(app.atelier.agent.conversation({ id: chat.id }).turns.at(-1)?.status).toBe('stopped')
    expect(await conversation(page).getByText('First line\nsecond line').count()).toBe(1)
    expect(await box.evaluate((element) => element === document.activeElement)).toBe(true)
  })

  it('shows a failed turn as an alert whose Retry sends the prompt again, and retries as a notice', async () => {
    const { page, fake } = await open()
    fake.enqueue({ status: 400 })

    await send(page, 'Try this')
    const alert = conversation(page).getByRole('alert')
    await alert.waitFor()
    expect(await alert.textContent()).toContain('This turn failed')
    await screenshot(page, 'chat-failed-turn-light')
    await turnOver(page)

    // A provider hiccup is retried, and says so while it waits.
    fake.enqueue({ status: 503 }, { text: 'Second time lucky.' })
    await alert.getByRole('button', { name: 'Retry' }).click()
    await page
      .getByRole('status')
      .getByText(/trying again in \d+ s/)
      .waitFor()
    await conversationText(page, (text) => text.includes('Second time lucky.'))
    await turnOver(page)
    expect(await conversation(page).getByRole('alert').count()).toBe(0)
    const prompts = fake.requestsOf('openai-chat').map((request) => request.body.messages.at(-1)?.content)
    expect(prompts.at(-1)).toBe('Try this')
  })

  it('teaches what is missing in a new chat: a provider, a folder', async () => {
    const app = await startApp(tempDir())
    cleanups.push(() => app.stop())
    app.atelier.chats.create({})
    const { page } = await openPage(app)
    await page.getByRole('heading', { name: 'Connect a model' }).waitFor()
    const text = (await conversation(page).textContent()) ?? ''
    for (const expected of [
      'OPENAI_API_KEY',
      'GEMINI_API_KEY',
      'ANTHROPIC_API_KEY',
      'http://127.0.0.1:11434/v1',
    ]) {
      expect(text).toContain(expected)
    }
    await page.getByRole('heading', { name: 'Bind a project folder' }).waitFor()
    await screenshot(page, 'chat-empty-light')
  })

  it('keeps a long chat light: only rows near the view are in the page, and it opens at the end', async () => {
    const app = await startApp(tempDir())
    cleanups.push(() => app.stop())
    const chat = app.atelier.chats.create({ title: 'A long chat' })
    const history = new ConversationRepository(app.atelier.db)
    for (let index = 1; index <= 200; index++) {
      const { turn } = history.beginTurn(chat.id, `Question ${index}`)
      const words = 'Some words to read. '.repeat((index % 7) * 12)
      history.append(chat.id, turn.id, 'assistant', [
        { type: 'text', text: `Answer **${index}**\n\n${words}` },
      ])
      history.endTurn(turn.id, 'completed')
    }
    const { page } = await openPage(app)
    const log = conversation(page)
    await log.getByText('Answer 200').waitFor()
    expect(await log.locator('.conversation-row').count()).toBeLessThan(40)

    // Scrolled up, the earliest rows render, and the view stays where the person put it.
    await log.evaluate((element) => {
      element.scrollTop = 0
    })
    await log.getByText(/Question 1$/).waitFor()
    await page.getByRole('button', { name: 'Jump to latest' }).click()
    await log.getByText('Answer 200').waitFor()
    await page.getByRole('button', { name: 'Jump to latest' }).waitFor({ state: 'detached' })
  })

  it('looks right in both themes (screenshots)', async () => {
    const folder = tempDir()
    writeFileSync(join(folder, 'notes.txt'), 'Plant the tomatoes in May.\nWater them daily.\n')
    const { page, fake, app } = await open({ folder, approvalMode: 'full-auto' })
    fake.enqueue(
      { toolCalls: [{ name: 'read_file', arguments: JSON.stringify({ path: 'notes.txt' }) }] },
      {
        toolCalls: [
          {
            name: 'edit_file',
            arguments: JSON.stringify({
              path: 'notes.txt',
              old_string: 'in May',
              new_string: 'in late April',
            }),
          },
        ],
      },
      {
        text: [
          'I moved the planting date in **notes.txt**:',
          '',
          '- *Plant the tomatoes* now says **late April**',
          '- Watering stays daily',
          '',
          '```ts',
          "const plan = { plant: 'late April', water: 'daily' }",
          '```',
        ].join('\n'),
      },
    )
    await send(page, 'Move the planting date a little earlier.')
    await conversationText(page, (text) => text.includes('Watering stays daily'))
    await turnOver(page)
    await openToolCall(page, 'edit_file')
    await toolCard(page, 'edit_file')
      .getByText('+Plant the tomatoes in late April.', { exact: true })
      .waitFor()
    expect(await toolCard(page, 'edit_file').locator('.diff-added').count()).toBeGreaterThan(0)
    expect(await toolCard(page, 'edit_file').locator('.diff-removed').count()).toBeGreaterThan(0)

    await page.setViewportSize({ width: 1280, height: 1200 })
    await screenshot(page, 'chat-light')

    const dark = await openPage(app, 'dark')
    await dark.page.setViewportSize({ width: 1280, height: 1200 })
    await conversationText(dark.page, (text) => text.includes('Watering stays daily'))
    expect(await dark.page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe(
      'rgb(23, 24, 28)',
    )
    await screenshot(dark.page, 'chat-dark')
  })
})
