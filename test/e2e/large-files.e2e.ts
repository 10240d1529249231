import { closeSync, openSync, writeFileSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { conversationText, openToolCall, send, toolCard, turnOver, useChatApp } from './support'

/**
 * Issue 40, item 6: a file over 10 MiB read in a window, and a grep that says which files of the
 * folder it did not search. In Chromium against the web host, found by role and accessible name.
 */
describe('files too large to read whole', () => {
  const { open, tempDir } = useChatApp()

  /** A folder with a 12 MiB log, written a megabyte at a time, and a small source file. */
  function project(): string {
    const folder = tempDir()
    const fd = openSync(join(folder, 'big.log'), 'w')
    const line = `${'INFO request handled'.padEnd(63, '.')}\n`
    for (let i = 0; i < 12; i++) writeSync(fd, line.repeat((1024 * 1024) / line.length))
    closeSync(fd)
    writeFileSync(join(folder, 'app.ts'), 'export const handled = true\n')
    return folder
  }

  /** Runs one tool call in a turn of its own; the call's result, opened. */
  async function resultOf(name: string, args: Record<string, unknown>) {
    const { page, fake } = await open({ folder: project(), approvalMode: 'full-auto' })
    fake.enqueue({ toolCalls: [{ name, arguments: JSON.stringify(args) }] }, { text: 'Done.' })
    await send(page, `Call ${name}`)
    await conversationText(page, (text) => text.includes('Done.'))
    await turnOver(page)
    await openToolCall(page, name)
    const result = toolCard(page, name).getByRole('group', { name: `Result of ${name}` })
    if ((await result.getAttribute('open')) === null) await result.locator('summary').click()
    return result
  }

  it('shows a window of a file over 10 MiB as lines of a large file', async () => {
    const result = await resultOf('read_file', { path: 'big.log', maxLines: 20 })
    const lines = result.getByRole('region', { name: 'big.log, lines 1–20 of a large file' })
    await lines.waitFor()
    expect(await lines.locator('.file-line-number').count()).toBe(20)
  })

  it('says which files of the folder grep did not search, and why', async () => {
    const result = await resultOf('grep', { pattern: 'handled', path: '.' })
    await result.getByRole('button', { name: 'Open app.ts', exact: true }).waitFor()
    expect(await result.getByText('1 file not searched (1 too large): big.log').count()).toBe(1)
  })
})
