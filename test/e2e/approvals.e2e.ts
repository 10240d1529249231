import { existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Locator, Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import type { ScriptedResponse } from '../support/fake-provider'
import {
  conversation,
  conversationText,
  messageBox,
  openToolCall,
  screenshot,
  send,
  setSandbox,
  settingsSection,
  stopButton,
  toolCard,
  turnOver,
  useChatApp,
} from './support'

/**
 * Approvals in Chromium, against the web host and the real services: the fake provider scripts the
 * calls, the files are real, and the person answers the cards the way a person (or a screen
 * reader) finds them, by role and accessible name.
 */
describe('approvals in the chat', () => {
  const { open, tempDir } = useChatApp()

  const approvalCards = (page: Page, tool: string) =>
    conversation(page).getByRole('group', { name: `Approval for ${tool}`, exact: true })

  const writeCall = (path: string, content: string): ScriptedResponse => ({
    toolCalls: [{ name: 'write_file', arguments: JSON.stringify({ path, content }) }],
  })

  /** The card of the latest call of `tool`, once its answers are on screen. */
  async function waitingCard(page: Page, tool: string) {
    const card = approvalCards(page, tool).last()
    await card.getByRole('button', { name: 'Allow once', exact: true }).waitFor()
    return card
  }

  const isFocused = (page: Page, tool: string) =>
    approvalCards(page, tool)
      .last()
      .evaluate((element) => element === document.activeElement)

  it('shows the call with the diff it would apply before anything is written; Enter allows it once', async () => {
    const folder = tempDir()
    const notes = join(folder, 'notes.txt')
    writeFileSync(notes, 'Plant the tomatoes in May.\nWater them daily.\n')
    const { page, fake, app } = await open({ folder })
    const args = { path: 'notes.txt', old_string: 'in May', new_string: 'in April' }
    fake.enqueue(
      // A read runs unasked in a folder.
      { toolCalls: [{ name: 'read_file', arguments: JSON.stringify({ path: 'notes.txt' }) }] },
      { toolCalls: [{ name: 'edit_file', arguments: JSON.stringify(args) }] },
      { text: 'Moved the planting to April.' },
    )

    await send(page, 'Plant a month earlier')
    const card = await waitingCard(page, 'edit_file')
    expect(await card.locator('.diff-removed').allTextContents()).toContain('-Plant the tomatoes in May.')
    expect(await card.locator('.diff-added').allTextContents()).toContain('+Plant the tomatoes in April.')
    // The arguments show once, in the call's own card around the question.
    expect(await toolCard(page, 'edit_file').locator('.tool-args').textContent()).toBe(
      JSON.stringify(args, null, 2),
    )
    expect(await card.locator('.tool-args').count()).toBe(0)
    expect(await card.textContent()).toContain('notes.txt')
    expect(await card.getByRole('heading', { name: 'Why it asks' }).count()).toBe(1)
    expect(await toolCard(page, 'edit_file').getByText('Waiting for approval').count()).toBe(1)
    expect(await approvalCards(page, 'read_file').count()).toBe(0)
    // Nothing is written while the card waits, and nothing says "Thinking…".
    expect(readFileSync(notes, 'utf8')).toBe('Plant the tomatoes in May.\nWater them daily.\n')
    expect(await conversation(page).getByText('Thinking…').count()).toBe(0)
    await screenshot(page, 'approval-card-light')

    // Sent with the message box empty: the card took focus, so Enter answers it.
    await expect.poll(() => isFocused(page, 'edit_file')).toBe(true)
    await page.keyboard.press('Enter')
    await conversationText(page, (text) => text.includes('Moved the planting to April.'))
    await turnOver(page)

    expect(readFileSync(notes, 'utf8')).toBe('Plant the tomatoes in April.\nWater them daily.\n')
    await card.getByText('Allowed once', { exact: true }).waitFor()
    expect(await card.getByRole('button').count()).toBe(0)
    expect(await toolCard(page, 'edit_file').getByText('Done', { exact: true }).count()).toBe(1)
    // Once saves nothing, and focus went back to the message box.
    expect(app.atelier.approvals.list()).toEqual([])
    expect(await messageBox(page).evaluate((element) => element === document.activeElement)).toBe(true)
  })

  it('Deny leaves the file as it was, the card says Denied, and the model reads the message', async () => {
    const folder = tempDir()
    const notes = join(folder, 'notes.txt')
    writeFileSync(notes, 'Plant the tomatoes in May.\n')
    const { page, fake } = await open({ folder, colorScheme: 'dark' })
    fake.enqueue(
      { toolCalls: [{ name: 'read_file', arguments: JSON.stringify({ path: 'notes.txt' }) }] },
      writeCall('notes.txt', 'Overwritten.\n'),
      { text: 'Understood: I left notes.txt alone.' },
    )

    await send(page, 'Rewrite the notes')
    const card = await waitingCard(page, 'write_file')
    await screenshot(page, 'approval-card-dark')
    await card
      .getByRole('textbox', { name: 'Message to the model (optional)' })
      .fill('Keep May: the frost is late this year.')
    await card.getByRole('button', { name: 'Deny', exact: true }).click()
    await conversationText(page, (text) => text.includes('Understood: I left notes.txt alone.'))
    await turnOver(page)

    expect(readFileSync(notes, 'utf8')).toBe('Plant the tomatoes in May.\n')
    expect(await card.getByText('Denied', { exact: true }).count()).toBe(1)
    expect(await card.getByRole('button').count()).toBe(0)
    const followUp = fake.requestsOf('openai-chat').at(-1)?.body
    const toolMessage = followUp.messages.findLast((message: { role: string }) => message.role === 'tool')
    expect(JSON.stringify(toolMessage.content)).toContain('The user denied this call')
    expect(JSON.stringify(toolMessage.content)).toContain('Keep May: the frost is late this year.')
    expect(await toolCard(page, 'write_file').locator('.badge', { hasText: 'Denied' }).count()).toBe(1)
  })

  it('Allow for this chat stops asking for that tool in that chat only; Esc denies in the other', async () => {
    const folder = tempDir()
    const { page, fake, app, chat } = await open({ folder })
    fake.enqueue(writeCall('a.txt', 'A\n'), { text: 'Wrote a.txt.' })

    await send(page, 'Write a')
    const card = await waitingCard(page, 'write_file')
    await card.getByRole('button', { name: 'Allow for this chat', exact: true }).click()
    await conversationText(page, (text) => text.includes('Wrote a.txt.'))
    await turnOver(page)
    expect(readFileSync(join(folder, 'a.txt'), 'utf8')).toBe('A\n')
    await card.getByText('Allowed for this chat', { exact: true }).waitFor()
    expect(app.atelier.approvals.list()).toMatchObject([
      { rule: 'write_file', action: 'allow', scope: 'chat', chatId: chat.id, source: 'approval' },
    ])

    // The same tool again in this chat: it runs without asking, and its card says which rule allowed it.
    fake.enqueue(writeCall('b.txt', 'B\n'), { text: 'Wrote b.txt.' })
    await send(page, 'Write b')
    await conversationText(page, (text) => text.includes('Wrote b.txt.'))
    await turnOver(page)
    expect(readFileSync(join(folder, 'b.txt'), 'utf8')).toBe('B\n')
    await openToolCall(page, 'write_file')
    const byRule = approvalCards(page, 'write_file').last()
    expect(await byRule.getByText('Allowed', { exact: true }).count()).toBe(1)
    expect(await byRule.textContent()).toContain('by rule write_file')
    expect(await byRule.getByRole('button').count()).toBe(0)

    // Another chat on the same folder asks again.
    const other = app.atelier.chats.create({ title: 'Another chat' })
    app.atelier.chats.configure({ id: other.id, workingDir: folder, mode: 'agent' })
    await page
      .getByRole('navigation', { name: 'Chats' })
      .getByRole('button', { name: 'Another chat', exact: true })
      .click()
    await page.getByRole('heading', { level: 1, name: 'Another chat' }).waitFor()
    fake.enqueue(writeCall('c.txt', 'C\n'), { text: 'I did not write c.txt.' })
    await send(page, 'Write c')
    const second = await waitingCard(page, 'write_file')
    await expect.poll(() => isFocused(page, 'write_file')).toBe(true)
    // Esc on the card denies the call; it does not stop the turn.
    await page.keyboard.press('Escape')
    await conversationText(page, (text) => text.includes('I did not write c.txt.'))
    await turnOver(page)
    expect(existsSync(join(folder, 'c.txt'))).toBe(false)
    expect(await second.getByText('Denied', { exact: true }).count()).toBe(1)
    expect(app.atelier.agent.conversation({ id: other.id }).turns.at(-1)?.status).toBe('completed')
  })

  it('Always allow… saves exactly the rule shown; Settings → Permissions lists it and Revoke removes it', async () => {
    const folder = tempDir()
    const real = realpathSync(folder)
    const { page, fake, app } = await open({ folder })
    fake.enqueue(writeCall('notes.md', '# Notes\n'), { text: 'Wrote notes.md.' })

    await send(page, 'Start the notes')
    const card = await waitingCard(page, 'write_file')
    await card.getByRole('button', { name: 'Always allow…', exact: true }).click()
    const rule = card.getByRole('textbox', { name: 'Rule to save' })
    // The suggestion is shown as it would be saved, and focused for editing.
    expect(await rule.inputValue()).toMatch(/^write_file/)
    expect(await rule.evaluate((element) => element === document.activeElement)).toBe(true)
    expect(await card.getByRole('radio', { name: 'This project folder' }).isChecked()).toBe(true)
    expect(await card.getByRole('radio', { name: 'Everywhere' }).isChecked()).toBe(false)
    await rule.fill('write_file(**/*.md)')
    await screenshot(page, 'approval-always-light')
    await card.getByRole('button', { name: 'Save and allow', exact: true }).click()
    await conversationText(page, (text) => text.includes('Wrote notes.md.'))
    await turnOver(page)
    expect(readFileSync(join(folder, 'notes.md'), 'utf8')).toBe('# Notes\n')
    await card.getByText('Always allowed', { exact: true }).waitFor()
    expect(app.atelier.approvals.list()).toMatchObject([
      { rule: 'write_file(**/*.md)', action: 'allow', scope: 'project', folder: real, source: 'approval' },
    ])

    // The saved rule answers the next matching call, and its card names it.
    fake.enqueue(writeCall('todo.md', '- water\n'), { text: 'Wrote todo.md.' })
    await send(page, 'Start a to-do list')
    await conversationText(page, (text) => text.includes('Wrote todo.md.'))
    await turnOver(page)
    expect(existsSync(join(folder, 'todo.md'))).toBe(true)
    await openToolCall(page, 'write_file')
    expect(await approvalCards(page, 'write_file').last().textContent()).toContain(
      'by rule write_file(**/*.md)',
    )

    const panel = await settingsSection(page, 'Permissions')
    const rules = panel.getByRole('list', { name: 'Saved rules' })
    const item = rules.getByRole('listitem').filter({ hasText: 'write_file(**/*.md)' })
    await item.waitFor()
    const text = (await item.textContent()) ?? ''
    expect(text).toContain('Allow')
    expect(text).toContain(`In ${real}`)
    expect(text).toContain('Saved from an approval card')
    expect(text).not.toContain('Never used')
    expect(await panel.getByRole('textbox', { name: 'Protected paths 1', exact: true }).inputValue()).toBe(
      '**/.git/**',
    )
    await screenshot(page, 'settings-permissions-light')

    await panel.getByRole('button', { name: 'Revoke write_file(**/*.md)' }).click()
    await rules.waitFor({ state: 'detached' })
    await panel.getByText(/No rules yet/).waitFor()
    expect(app.atelier.approvals.list()).toEqual([])

    // Revoked, the next call asks again.
    await page.getByRole('button', { name: 'Close settings' }).click()
    fake.enqueue(writeCall('more.md', 'more\n'), { text: 'Asked first.' })
    await send(page, 'One more file')
    const again = await waitingCard(page, 'write_file')
    await again.getByRole('button', { name: 'Deny', exact: true }).click()
    await conversationText(page, (text) => text.includes('Asked first.'))
    expect(existsSync(join(folder, 'more.md'))).toBe(false)
  })

  it('Stop while a card waits ends the turn: nothing is written and the card says Cancelled', async () => {
    const folder = tempDir()
    const { page, fake, app, chat } = await open({ folder })
    fake.enqueue(writeCall('notes.txt', 'never\n'))

    await send(page, 'Write a note')
    const card = await waitingCard(page, 'write_file')
    await stopButton(page).click()
    await turnOver(page)
    await card.getByText('Cancelled', { exact: true }).waitFor()
    expect(existsSync(join(folder, 'notes.txt'))).toBe(false)
    expect(app.atelier.agent.conversation({ id: chat.id }).turns.at(-1)?.status).toBe('stopped')
    expect(app.atelier.agent.view({ id: chat.id }).calls.filter((call) => call.question)).toEqual([])
    // The model was not asked again.
    expect(fake.requestsOf('openai-chat')).toHaveLength(1)
  })

  it('shows a waiting card again after a reload, and it can still be answered', async () => {
    const folder = tempDir()
    const { page, fake } = await open({ folder })
    fake.enqueue(writeCall('notes.txt', 'after the reload\n'), { text: 'Written after all.' })

    await send(page, 'Write a note')
    await waitingCard(page, 'write_file')
    await page.reload()
    const card = await waitingCard(page, 'write_file')
    await card.getByRole('button', { name: 'Allow once', exact: true }).click()
    await conversationText(page, (text) => text.includes('Written after all.'))
    expect(readFileSync(join(folder, 'notes.txt'), 'utf8')).toBe('after the reload\n')
  })

  it('the header shows and switches the approval mode; the empty state says what asks', async () => {
    const folder = tempDir()
    const { page, fake, app, chat } = await open()
    const mode = page.getByRole('combobox', { name: 'Approval mode' })
    expect(await mode.inputValue()).toBe('ask')
    expect(await mode.locator('option').evaluateAll((options) => options.map((o) => o.textContent))).toEqual([
      'Ask',
      'Accept edits',
      'Read only',
      'Full auto',
      'Plan',
    ])
    // Chat mode: no folder confines the tools, so everything asks.
    const empty = (await conversation(page).textContent()) ?? ''
    expect(empty).not.toContain('plain conversation')
    expect(empty).toContain('no folder to confine them')
    expect(empty).toContain('every file and shell call asks you first')

    await mode.selectOption({ label: 'Full auto' })
    await expect.poll(() => app.atelier.chats.get(chat.id).approvalMode).toBe('full-auto')
    await conversation(page)
      .getByText(/run without asking/)
      .waitFor()

    // Accept edits in a folder: a write runs without a card.
    app.atelier.chats.configure({ id: chat.id, workingDir: folder, mode: 'agent' })
    await mode.selectOption({ label: 'Accept edits' })
    await expect.poll(() => app.atelier.chats.get(chat.id).approvalMode).toBe('accept-edits')
    await conversation(page)
      .getByText(/commands ask you first/)
      .waitFor()
    fake.enqueue(writeCall('notes.txt', 'unasked\n'), { text: 'Written unasked.' })
    await send(page, 'Write a note')
    await conversationText(page, (text) => text.includes('Written unasked.'))
    expect(readFileSync(join(folder, 'notes.txt'), 'utf8')).toBe('unasked\n')
    expect(await approvalCards(page, 'write_file').count()).toBe(0)
  })
  it('queues the cards of parallel calls: the next one comes once the first is answered, and takes focus', async () => {
    const folder = tempDir()
    const { page, fake } = await open({ folder })
    fake.enqueue(
      {
        toolCalls: [
          { name: 'write_file', arguments: JSON.stringify({ path: 'one.txt', content: '1\n' }) },
          { name: 'write_file', arguments: JSON.stringify({ path: 'two.txt', content: '2\n' }) },
        ],
      },
      { text: 'One of two.' },
    )
    const pathIn = async (card: Locator) =>
      ((await card.textContent()) ?? '').includes('one.txt') ? 'one.txt' : 'two.txt'

    await send(page, 'Write both')
    await waitingCard(page, 'write_file')
    // The person is asked about one call at a time, in call order.
    expect(await approvalCards(page, 'write_file').count()).toBe(1)
    const first = approvalCards(page, 'write_file').first()
    const allowed = await pathIn(first)
    expect(allowed).toBe('one.txt')
    await first.getByRole('button', { name: 'Allow once', exact: true }).click()

    await expect.poll(() => approvalCards(page, 'write_file').count()).toBe(2)
    const cards = approvalCards(page, 'write_file')
    const second = cards.filter({ has: page.getByRole('button', { name: 'Deny', exact: true }) })
    await second.waitFor()
    const denied = await pathIn(second)
    expect(denied).not.toBe(allowed)
    await expect.poll(() => second.evaluate((element) => element === document.activeElement)).toBe(true)
    await page.keyboard.press('Escape')
    await conversationText(page, (text) => text.includes('One of two.'))
    expect(existsSync(join(folder, allowed))).toBe(true)
    expect(existsSync(join(folder, denied))).toBe(false)
    expect(await cards.getByText('Allowed once', { exact: true }).count()).toBe(1)
    expect(await cards.getByText('Denied', { exact: true }).count()).toBe(1)
  })

  it('shows each sub-command of a shell call with its verdict and the rule that matched', async () => {
    const folder = tempDir()
    const { page, fake, app } = await open({ folder })
    app.atelier.tools.settings.update('local', 'bash', { enabled: true })
    setSandbox(app, { runUnasked: false })
    app.atelier.approvals.add({ rule: 'bash(git status*)', action: 'allow', scope: 'global' })
    fake.enqueue(
      { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'git status && rm -rf build' }) }] },
      { text: 'Left it.' },
    )

    await send(page, 'Check and clean')
    const card = await waitingCard(page, 'bash')
    const rows = card.getByRole('table', { name: 'Commands in this call' }).getByRole('row')
    await expect.poll(() => rows.count()).toBe(3)
    const cells = await rows.evaluateAll((elements) =>
      elements.slice(1).map((row) => [...row.querySelectorAll('td')].map((cell) => cell.textContent ?? '')),
    )
    expect(cells[0]?.slice(0, 2)).toEqual(['git status', 'Runs'])
    expect(cells[0]?.[2]).toContain('bash(git status*)')
    expect(cells[1]?.slice(0, 2)).toEqual(['rm -rf build', 'Asks'])
    await screenshot(page, 'approval-card-shell-light')
    await card.getByRole('button', { name: 'Deny', exact: true }).click()
    await conversationText(page, (text) => text.includes('Left it.'))
  })
})

describe('Settings → Permissions', () => {
  const { open, tempDir } = useChatApp()

  it('adds a rule for a project folder, edits its text and action, and saves the protected paths', async () => {
    const folder = tempDir()
    const real = realpathSync(folder)
    const { page, app } = await open()
    const panel = await settingsSection(page, 'Permissions')
    await panel.getByText(/No rules yet/).waitFor()

    await panel.getByRole('button', { name: 'Add rule', exact: true }).click()
    const form = panel.getByRole('form', { name: 'New rule' })
    const rule = form.getByRole('textbox', { name: 'Rule', exact: true })
    await rule.fill('bash(git status')
    await form.getByRole('combobox', { name: 'Action' }).selectOption({ label: 'Deny' })
    await form.getByRole('radio', { name: 'One project folder' }).check()
    await form.getByRole('button', { name: 'Add rule', exact: true }).click()
    // A rule that does not parse, and a project rule without its folder, are refused in the form.
    await form.getByText(/Not a rule/).waitFor()
    await form.getByText('Choose the project folder it holds in.').waitFor()
    await rule.fill('bash(git push *)')
    await form.getByRole('textbox', { name: 'Project folder' }).fill(folder)
    await form.getByRole('button', { name: 'Add rule', exact: true }).click()
    await form.waitFor({ state: 'detached' })

    const item = panel.getByRole('listitem').filter({ hasText: 'bash(git push *)' })
    await item.waitFor()
    expect(await item.textContent()).toContain('Never used')
    expect(await item.textContent()).toContain('Added in settings')
    expect(await item.textContent()).toContain(`In ${real}`)
    expect(app.atelier.approvals.list()).toMatchObject([
      { rule: 'bash(git push *)', action: 'deny', scope: 'project', folder: real, source: 'settings' },
    ])

    await item.getByRole('button', { name: 'Edit rule bash(git push *)' }).click()
    const editor = item.getByRole('form', { name: 'Edit rule bash(git push *)' })
    await editor.getByRole('textbox', { name: 'Rule', exact: true }).fill('bash(git push --force*)')
    await editor.getByRole('combobox', { name: 'Action' }).selectOption({ label: 'Ask' })
    await editor.getByRole('button', { name: 'Save rule' }).click()
    await panel.getByRole('button', { name: 'Revoke bash(git push --force*)' }).waitFor()
    expect(app.atelier.approvals.list()).toMatchObject([{ rule: 'bash(git push --force*)', action: 'ask' }])

    // A rule made elsewhere (the command line, another window) shows up at once.
    app.atelier.approvals.add({ rule: 'read_file', action: 'allow', scope: 'global' }, 'cli')
    const cli = panel.getByRole('listitem').filter({ hasText: 'Added with the command line' })
    await cli.waitFor()
    expect(await cli.textContent()).toContain('Everywhere')
    await screenshot(page, 'settings-permissions-rules-light')

    await panel.getByRole('button', { name: 'Add to Protected paths' }).click()
    await panel.getByRole('textbox', { name: 'Protected paths 26', exact: true }).fill('secrets/**')
    await panel.getByRole('button', { name: 'Save protected paths' }).click()
    await expect.poll(() => app.atelier.preferences.get().protectedPaths.at(-1)).toBe('secrets/**')
    expect(app.atelier.preferences.get().protectedPaths).toHaveLength(26)
  })
  it('gives an agent profile an approval mode, which a chat with that profile shows until it picks its own', async () => {
    const { page, app, chat } = await open()
    const panel = await settingsSection(page, 'Agent profiles')
    await panel.getByRole('button', { name: 'New profile' }).click()
    const form = panel.getByRole('form', { name: 'New agent profile' })
    await form.getByRole('textbox', { name: 'Name' }).fill('Careful')
    const mode = form.getByRole('combobox', { name: 'Approval mode' })
    expect(await mode.inputValue()).toBe('ask')
    await mode.selectOption({ label: 'Read only' })
    await form.getByRole('button', { name: 'Create profile' }).click()
    await form.waitFor({ state: 'detached' })
    const profile = app.atelier.profiles.byName('Careful')
    expect(profile.approvalMode).toBe('read-only')
    expect(await panel.getByRole('region', { name: 'Careful' }).textContent()).toContain('Read only')

    app.atelier.chats.configure({ id: chat.id, agent: profile.id })
    await page.getByRole('button', { name: 'Close settings' }).click()
    const header = page.getByRole('combobox', { name: 'Approval mode' })
    await expect.poll(() => header.inputValue()).toBe('read-only')
    expect(app.atelier.chats.get(chat.id).approvalMode).toBeNull()
    await header.selectOption({ label: 'Ask' })
    await expect.poll(() => app.atelier.chats.get(chat.id).approvalMode).toBe('ask')
  })
})
