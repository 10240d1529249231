import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Type } from '@sinclair/typebox'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import {
  conversation,
  conversationText,
  openToolCall,
  screenshot,
  send,
  setSandbox,
  stopButton,
  testTool,
  toolCard,
  turnOver,
  useChatApp,
} from './support'

/**
 * A call's card, driven by its state alone: every state the scheduler sends shows on the card as it
 * comes, a question is asked inside the card of the call it belongs to — one at a time, in call
 * order — and what was decided stays with the call after a reload.
 */
describe('tool calls in the chat', () => {
  const { open, tempDir } = useChatApp()

  const badge = (page: Page, tool: string) => toolCard(page, tool).locator('.tool-card-badges .badge').last()
  const question = (page: Page, tool: string) =>
    toolCard(page, tool).getByRole('group', { name: `Approval for ${tool}`, exact: true })

  it('asks about edit_file, bash and write_file in call order, one card at a time; Enter answers only the one shown', async () => {
    const folder = tempDir()
    writeFileSync(join(folder, 'notes.txt'), 'one\n')
    const { page, fake, app } = await open({ folder })
    app.atelier.tools.settings.update('local', 'bash', { enabled: true })
    setSandbox(app, { runUnasked: false })
    fake.enqueue(
      { toolCalls: [{ name: 'read_file', arguments: JSON.stringify({ path: 'notes.txt' }) }] },
      {
        toolCalls: [
          {
            name: 'edit_file',
            arguments: JSON.stringify({ path: 'notes.txt', old_string: 'one', new_string: 'two' }),
          },
          { name: 'bash', arguments: JSON.stringify({ command: 'rm -rf build && cat notes.txt' }) },
          { name: 'write_file', arguments: JSON.stringify({ path: 'out.txt', content: 'done\n' }) },
        ],
      },
      { text: 'All three.' },
    )
    await send(page, 'Edit, check, write')

    // The edit asks first; the two after it are queued, asking nothing yet.
    const edit = question(page, 'edit_file')
    await edit.getByRole('button', { name: 'Allow once', exact: true }).waitFor()
    expect(await badge(page, 'edit_file').textContent()).toBe('Waiting for approval')
    expect(await badge(page, 'bash').textContent()).toBe('Queued')
    expect(await badge(page, 'write_file').textContent()).toBe('Queued')
    expect(await conversation(page).getByRole('button', { name: 'Allow once' }).count()).toBe(1)
    await screenshot(page, 'tool-calls-queued-light')
    // The person takes a moment: that wait is not the edit's duration.
    await page.waitForTimeout(1200)
    await expect.poll(() => edit.evaluate((element) => element === document.activeElement)).toBe(true)
    await page.keyboard.press('Enter')

    // Then the command, and Enter answers it — not the write still queued behind it.
    const bash = question(page, 'bash')
    await bash.getByRole('button', { name: 'Allow once', exact: true }).waitFor()
    expect(await badge(page, 'write_file').textContent()).toBe('Queued')
    expect(await conversation(page).getByRole('button', { name: 'Allow once' }).count()).toBe(1)
    await expect.poll(() => bash.evaluate((element) => element === document.activeElement)).toBe(true)
    await page.keyboard.press('Escape')

    const write = question(page, 'write_file')
    await write.getByRole('button', { name: 'Allow once', exact: true }).click()
    await conversationText(page, (text) => text.includes('All three.'))
    await turnOver(page)

    expect(readFileSync(join(folder, 'notes.txt'), 'utf8')).toBe('two\n')
    expect(readFileSync(join(folder, 'out.txt'), 'utf8')).toBe('done\n')
    expect(await badge(page, 'edit_file').textContent()).toBe('Done')
    expect(await badge(page, 'bash').textContent()).toBe('Denied')
    // The edit ran in a moment; the 1.2 s the person took is not shown as its duration.
    const duration = (await toolCard(page, 'edit_file').locator('.tool-card-duration').textContent()) ?? ''
    expect(duration).toMatch(/^\d+ ms$/)

    // After a reload, each call still says what was decided for it.
    await page.reload()
    for (const tool of ['edit_file', 'bash', 'write_file']) await openToolCall(page, tool)
    expect(await question(page, 'edit_file').textContent()).toContain('Allowed once')
    expect(await question(page, 'bash').textContent()).toContain('Denied')
    expect(await question(page, 'write_file').textContent()).toContain('Allowed once')
    expect(await question(page, 'edit_file').textContent()).toMatch(/after \d/)
    await screenshot(page, 'tool-calls-decided-light')
  })

  it('fails an edit of a file the chat has not read without asking anyone', async () => {
    const folder = tempDir()
    writeFileSync(join(folder, 'notes.txt'), 'unread\n')
    const { page, fake } = await open({ folder })
    fake.enqueue(
      {
        toolCalls: [
          {
            name: 'edit_file',
            arguments: JSON.stringify({ path: 'notes.txt', old_string: 'unread', new_string: 'changed' }),
          },
        ],
      },
      { text: 'I will read it first.' },
    )
    await send(page, 'Change it')
    await conversationText(page, (text) => text.includes('I will read it first.'))
    await turnOver(page)
    expect(await badge(page, 'edit_file').textContent()).toBe('Error')
    expect(await toolCard(page, 'edit_file').textContent()).toContain('has not been read in this chat')
    expect(await question(page, 'edit_file').count()).toBe(0)
    expect(readFileSync(join(folder, 'notes.txt'), 'utf8')).toBe('unread\n')
  })

  it('shows each state from the call’s event: progress while it runs, its result, and cancelled on a stop', async () => {
    const folder = tempDir()
    const { page, fake, app } = await open({ folder, approvalMode: 'full-auto' })
    let release = () => {}
    const released = new Promise<void>((resolve) => {
      release = resolve
    })
    app.atelier.tools.registry.register(
      testTool({
        name: 'count_to_three',
        description: 'Counts, reporting each step; waits at two until let go.',
        parameters: Type.Object({}),
        kind: 'read',
        execute: async (_args, context) => {
          context.onUpdate({ kind: 'progress', done: 1, total: 3, message: 'Counting' })
          context.onUpdate({ kind: 'progress', done: 2, total: 3, message: 'Counting' })
          await released
          return 'three'
        },
      }),
    )
    app.atelier.tools.registry.register(
      testTool({
        name: 'wait_forever',
        description: 'Runs until stopped.',
        parameters: Type.Object({}),
        kind: 'read',
        execute: (_args, context) =>
          new Promise((_, reject) =>
            context.signal.addEventListener('abort', () => reject(context.signal.reason)),
          ),
      }),
    )
    fake.enqueue({ toolCalls: [{ name: 'count_to_three', arguments: '{}' }] }, { text: 'Counted.' })
    await send(page, 'Count')
    const card = await openToolCall(page, 'count_to_three')
    await card.getByText('2 of 3 · Counting').waitFor()
    expect(await badge(page, 'count_to_three').textContent()).toBe('Running…')
    expect(
      await card.getByRole('progressbar', { name: 'Progress of count_to_three' }).getAttribute('value'),
    ).toBe('2')
    release()
    await conversationText(page, (text) => text.includes('Counted.'))
    expect(await badge(page, 'count_to_three').textContent()).toBe('Done')
    expect(await card.textContent()).toContain('three')
    await turnOver(page)

    fake.enqueue({ toolCalls: [{ name: 'wait_forever', arguments: '{}' }] })
    await send(page, 'Wait')
    await toolCard(page, 'wait_forever').getByText('Running…').waitFor()
    await stopButton(page).click()
    await turnOver(page)
    expect(await badge(page, 'wait_forever').textContent()).toBe('Cancelled')
    expect(existsSync(join(folder, 'anything'))).toBe(false)
  })

  it('tells a failed turn by its code, stored with the turn, after a reload too', async () => {
    const { page, fake } = await open()
    fake.enqueue({ status: 401 })
    await send(page, 'Hello')
    const notice = conversation(page).getByRole('alert')
    await notice.getByText('The provider refused the API key').waitFor()
    await page.reload()
    await conversation(page).getByRole('alert').getByText('The provider refused the API key').waitFor()
  })
})
