import { describe, expect, it } from 'vitest'
import { conversationText, openToolCall, send, settingsSection, turnOver, useChatApp } from './support'

/**
 * Code intelligence in Chromium, against the web host, the real services and the shipped
 * TypeScript server: Settings → Code intelligence, a server whose command is missing, and the
 * errors an edit brought, under its diff on the card.
 */
describe('code intelligence in the app', () => {
  const { open, tempDir } = useChatApp()

  it('Settings lists the shipped servers; a configured command that does not exist fails its test clearly and shows as missing', async () => {
    const { page, app } = await open()
    const panel = await settingsSection(page, 'Code intelligence')
    const typescript = panel.getByRole('listitem', {
      name: 'TypeScript and JavaScript (typescript-language-server)',
    })
    await typescript.getByText('Available', { exact: true }).waitFor()

    await panel.getByLabel('Name', { exact: true }).fill('nowhere')
    await panel.getByLabel('File endings', { exact: true }).fill('zz')
    await panel.getByLabel('Command', { exact: true }).fill('atelier-no-such-language-server --stdio')
    await panel.getByRole('button', { name: 'Test', exact: true }).last().click()
    const failed = panel.getByRole('alert').filter({ hasText: 'The test failed' })
    await failed.waitFor()
    expect(await failed.textContent()).toContain('`atelier-no-such-language-server` was not found on PATH')

    await panel.getByRole('button', { name: 'Add server', exact: true }).click()
    await expect
      .poll(() => app.atelier.preferences.get().codeIntelligence.servers.map(({ id }) => id))
      .toEqual(['nowhere'])
    const nowhere = panel.getByRole('listitem', { name: 'nowhere' })
    await nowhere.getByText('Missing', { exact: true }).waitFor()
    expect(await nowhere.textContent()).toContain('Not installed')
  })

  it('an edit that brings a type error shows it under the diff, linked to its line', async () => {
    const folder = tempDir()
    const { page, fake, app } = await open({ folder, approvalMode: 'full-auto' })
    app.atelier.preferences.update({
      codeIntelligence: { ...app.atelier.preferences.get().codeIntelligence, waitSeconds: 30 },
    })
    fake.enqueue(
      {
        toolCalls: [
          {
            name: 'write_file',
            arguments: JSON.stringify({
              path: 'count.ts',
              content: "export const count: number = 'three'\n",
            }),
          },
        ],
      },
      { text: 'Wrote it.' },
    )
    await send(page, 'Write count.ts')
    // The first edit starts the TypeScript server: seconds on a busy machine.
    await conversationText(page, (text) => text.includes('Wrote it.'), 90_000)
    await turnOver(page)
    const card = await openToolCall(page, 'write_file')
    const problems = card.getByRole('list', { name: 'Problems the change brought' })
    await problems.waitFor()
    expect(await problems.textContent()).toContain("Type 'string' is not assignable to type 'number'.")
    const link = problems.getByRole('link', { name: '1:14' })
    expect(await link.getAttribute('href')).toMatch(/^#.*-line-1$/)
  }, 120_000)
})
