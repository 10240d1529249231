import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  conversationText,
  openToolCall,
  screenshot,
  send,
  settingsSection,
  turnOver,
  useChatApp,
} from './support'

/** Hooks as a person meets them: added and tested in Settings → Hooks, then seen on the card of the call they ran on. */
describe('hooks in the app', () => {
  const { open, tempDir } = useChatApp()

  it('adds a hook in Settings, tests it with a sample input, and shows it on the card of the call it blocked', async () => {
    const folder = tempDir()
    const scratch = tempDir()
    const gate = join(scratch, 'gate.js')
    writeFileSync(
      gate,
      `const input = JSON.parse(require('fs').readFileSync(0, 'utf8'))
process.stderr.write('No globbing of ' + input.tool_name + ' today: list the folder instead.')
process.exit(2)
`,
    )
    const { page, fake } = await open({ folder, approvalMode: 'full-auto' })

    const panel = await settingsSection(page, 'Hooks')
    await panel.getByRole('button', { name: 'Add hook' }).click()
    const form = panel.getByRole('form', { name: 'New hook' })
    await form.getByLabel('Event').selectOption('PreToolUse')
    await form.getByLabel('Matcher').fill('glob')
    await form.getByLabel('Command').fill(`node ${gate}`)
    await form.getByRole('button', { name: 'Add hook' }).click()
    const entry = panel.getByRole('listitem', { name: `PreToolUse hook node ${gate}` })
    await entry.waitFor()

    await entry.getByRole('button', { name: 'Test' }).click()
    const tested = entry.getByRole('status', { name: `Test run of node ${gate}` })
    await tested.waitFor()
    // The sample input of PreToolUse names bash.
    expect(await tested.textContent()).toContain('No globbing of bash today')
    expect(await tested.textContent()).toContain('blocked')
    await screenshot(page, 'settings-hooks-light')
    await page.getByRole('button', { name: 'Close settings' }).click()

    fake.enqueue(
      { toolCalls: [{ id: 'call_glob', name: 'glob', arguments: JSON.stringify({ pattern: '*' }) }] },
      { text: 'I will list the folder instead.' },
    )
    await send(page, 'What is in the folder?')
    await conversationText(page, (text) => text.includes('I will list the folder instead.'))
    await turnOver(page)
    const card = await openToolCall(page, 'glob')
    const hooks = card.getByRole('region', { name: 'Hooks of glob' })
    await hooks.waitFor()
    const text = (await hooks.textContent()) ?? ''
    expect(text).toContain('PreToolUse')
    expect(text).toContain('blocked')
    expect(text).toContain('No globbing of glob today: list the folder instead.')
    expect(await card.textContent()).toContain(`(hook: node ${gate})`)
    await screenshot(page, 'tool-card-hook-blocked-light')
  })
})
