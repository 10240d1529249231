import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import type { ScriptedResponse } from '../support/fake-provider'
import { conversation, openToolCall, screenshot, send, turnOver, useChatApp } from './support'

/**
 * The live plan and plan mode in Chromium, against the web host and the real services: the fake
 * model advances its plan and proposes one; the person reads the checklist and answers the plan's
 * card by role and name.
 */
describe('plans in the chat', () => {
  const { open, tempDir } = useChatApp()

  const pinnedPlan = (page: Page) =>
    page.locator('.composer-dock').getByRole('region', { name: 'Plan', exact: true })

  const updatePlan = (...steps: [string, 'pending' | 'in_progress' | 'completed'][]): ScriptedResponse => ({
    toolCalls: [
      {
        name: 'update_plan',
        arguments: JSON.stringify({ steps: steps.map(([step, status]) => ({ step, status })) }),
      },
    ],
  })

  const writeCall = (path: string): ScriptedResponse => ({
    toolCalls: [{ name: 'write_file', arguments: JSON.stringify({ path, content: `${path}\n` }) }],
  })

  /** Answers the write waiting for approval once its card is on screen. */
  async function allowWrite(page: Page) {
    const card = conversation(page)
      .getByRole('group', { name: 'Approval for write_file', exact: true })
      .last()
    await card.getByRole('button', { name: 'Allow once', exact: true }).click()
  }

  it('pins the checklist above the composer and updates it live as the model advances it', async () => {
    const folder = tempDir()
    const { page, fake } = await open({ folder, approvalMode: 'ask' })
    // Each write asks: the turn waits there, so what the checklist shows meanwhile is certain.
    fake.enqueue(
      updatePlan(['Write a.txt', 'in_progress'], ['Write b.txt', 'pending']),
      writeCall('a.txt'),
      updatePlan(['Write a.txt', 'completed'], ['Write b.txt', 'in_progress']),
      writeCall('b.txt'),
      updatePlan(['Write a.txt', 'completed'], ['Write b.txt', 'completed']),
      { text: 'Both written.' },
    )
    await send(page, 'Write two files')

    const plan = pinnedPlan(page)
    await plan.getByText('0 of 2 done').waitFor()
    const current = plan.locator('[aria-current="step"]')
    expect(await current.textContent()).toContain('Write a.txt')
    expect(await plan.getByRole('listitem').allTextContents()).toEqual([
      expect.stringContaining('Write a.txt (in progress)'),
      expect.stringContaining('Write b.txt (to do)'),
    ])
    await screenshot(page, 'plan-checklist')
    await allowWrite(page)

    await plan.getByText('1 of 2 done').waitFor()
    expect(await current.textContent()).toContain('Write b.txt')
    expect(await plan.getByRole('listitem').first().textContent()).toContain('(done)')
    await allowWrite(page)

    await turnOver(page)
    // Once the turn is over the plan is kept with it, on the last update's card.
    expect(await pinnedPlan(page).count()).toBe(0)
    const card = await openToolCall(page, 'update_plan')
    const kept = card.getByRole('region', { name: 'Plan update' })
    expect(await kept.getByText('2 of 2 done').count()).toBe(1)
    expect(readFileSync(join(folder, 'b.txt'), 'utf8')).toBe('b.txt\n')
  })

  it('shows a proposed plan as a card; Approve in Accept edits goes on in the same turn', async () => {
    const folder = tempDir()
    const { page, fake, app, chat } = await open({ folder, approvalMode: 'plan' })
    const plan = '## Plan\n\n1. Write hello.txt\n2. Report back'
    fake.enqueue(
      { toolCalls: [{ name: 'propose_plan', arguments: JSON.stringify({ plan }) }] },
      writeCall('hello.txt'),
      { text: 'Wrote hello.txt.' },
    )
    await send(page, 'Greet')

    const card = conversation(page).getByRole('group', { name: 'Approval for propose_plan', exact: true })
    const proposed = card.getByRole('region', { name: 'Proposed plan' })
    await proposed.getByRole('heading', { name: 'Plan' }).waitFor()
    expect(await proposed.getByRole('listitem').allTextContents()).toEqual(['Write hello.txt', 'Report back'])
    expect(await page.getByRole('combobox', { name: 'Approval mode' }).inputValue()).toBe('plan')
    // Nothing is written while the plan waits.
    expect(existsSync(join(folder, 'hello.txt'))).toBe(false)
    await screenshot(page, 'plan-proposed')

    await card.getByRole('combobox', { name: 'Go on in' }).selectOption({ label: 'Accept edits' })
    await card.getByRole('button', { name: 'Approve', exact: true }).click()
    await turnOver(page)

    expect(readFileSync(join(folder, 'hello.txt'), 'utf8')).toBe('hello.txt\n')
    expect(app.atelier.chats.get(chat.id).approvalMode).toBe('accept-edits')
    await expect
      .poll(() => page.getByRole('combobox', { name: 'Approval mode' }).inputValue())
      .toBe('accept-edits')
    const planCall = await openToolCall(page, 'propose_plan')
    expect(await planCall.getByText('Approved, going on in Accept edits').count()).toBe(1)
  })

  it('sends Keep planning with the feedback the person wrote', async () => {
    const folder = tempDir()
    const { page, fake } = await open({ folder, approvalMode: 'plan' })
    fake.enqueue(
      { toolCalls: [{ name: 'propose_plan', arguments: JSON.stringify({ plan: '1. Write hello.txt' }) }] },
      { text: 'I will plan again.' },
    )
    await send(page, 'Greet')

    const card = conversation(page).getByRole('group', { name: 'Approval for propose_plan', exact: true })
    await card.getByRole('textbox', { name: 'What should the plan reconsider?' }).fill('Use greeting.txt')
    await card.getByRole('button', { name: 'Keep planning', exact: true }).click()
    await turnOver(page)

    const sent = JSON.stringify(fake.requestsOf('openai-chat').at(-1)?.body.messages)
    expect(sent).toContain('keep planning, saying: Use greeting.txt')
    expect(existsSync(join(folder, 'hello.txt'))).toBe(false)
  })
})
