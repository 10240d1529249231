import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { ScriptedResponse } from '../support/fake-provider'
import { conversation, openToolCall, screenshot, send, turnOver, useChatApp } from './support'

/**
 * Subagents in Chromium, against the web host and the real services: the fake model's parent and
 * child turns are scripted apart by what their requests carry. The person answers the child's
 * approval in the parent chat, reads the task's card and opens the child's transcript.
 */
describe('subagents in the chat', () => {
  const { open, tempDir } = useChatApp()

  const parent = (response: ScriptedResponse): ScriptedResponse => ({ ...response, whenRequestHas: 'PARENT' })
  const child = (response: ScriptedResponse): ScriptedResponse => ({ ...response, whenRequestHas: 'CHILD' })

  it('asks the child’s approval in the parent chat, labelled; Deny reaches the child; the card opens its transcript', async () => {
    const folder = tempDir()
    const { app, page, fake } = await open({ folder, approvalMode: 'ask' })
    // The task itself is allowed by a rule: what asks is the child's own write.
    app.atelier.approvals.add({ rule: 'task', action: 'allow', scope: 'global' })
    fake.enqueue(
      parent({
        toolCalls: [
          {
            name: 'task',
            arguments: JSON.stringify({
              description: 'Write the note',
              prompt: 'CHILD: write note.txt',
              agent: 'general',
            }),
          },
        ],
      }),
      child({
        toolCalls: [{ name: 'write_file', arguments: JSON.stringify({ path: 'note.txt', content: 'x\n' }) }],
        usage: { inputTokens: 100, outputTokens: 5 },
      }),
      child({
        text: 'The write was denied, so nothing was written.',
        usage: { inputTokens: 120, outputTokens: 9 },
      }),
      parent({ text: 'The subagent could not write the note.' }),
    )
    await send(page, 'PARENT: have a subagent write a note')

    const approval = conversation(page).getByRole('group', { name: 'Approval for write_file', exact: true })
    await approval.waitFor()
    expect(await approval.textContent()).toContain('Asked by the subagent general: Write the note')
    await screenshot(page, 'subagent-approval')
    await approval.getByRole('button', { name: 'Deny', exact: true }).click()
    await turnOver(page)
    expect(existsSync(join(folder, 'note.txt'))).toBe(false)

    const card = await openToolCall(page, 'task')
    const section = card.getByRole('region', { name: 'Subagent general' })
    expect(await section.textContent()).toContain('Write the note')
    expect(await section.getByRole('region', { name: 'Answer of general' }).textContent()).toContain(
      'The write was denied, so nothing was written.',
    )
    // Its two responses' tokens, in all.
    expect(await section.textContent()).toContain('220 in · 14 out')
    // Its calls, folded under one line, each with its own card.
    await section.getByText('1 tool call').click()
    const write = section.getByRole('article', { name: 'Tool call write_file' })
    await write.waitFor()
    await screenshot(page, 'subagent-card')

    // The whole transcript, from the stored child chat, after a reload too.
    await page.reload()
    const stored = await openToolCall(page, 'task')
    await stored.getByRole('button', { name: 'Open transcript' }).click()
    const dialog = page.getByRole('dialog', { name: 'general: Write the note' })
    await dialog.getByText('CHILD: write note.txt').waitFor()
    await dialog.getByText('The write was denied, so nothing was written.').waitFor()
    expect(await dialog.getByRole('article', { name: 'Tool call write_file' }).count()).toBe(1)
    await screenshot(page, 'subagent-transcript')
    // The child's chat is not among the chats.
    const chats = page.getByRole('navigation', { name: 'Chats' })
    expect(await chats.getByText('Write the note').count()).toBe(0)
  })
})
