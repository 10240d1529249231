import { closeSync, openSync, writeFileSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { conversationText, send, toolCard, turnOver, useChatApp } from './support'

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

  it('shows a window of a file over 10 MiB as lines of a large file', async () => {
    const { page, fake } = await open({ folder: project(), approvalMode: 'full-auto' })
    fake.enqueue(
      { toolCalls: [{ name: 'read_file', arguments: JSON.stringify({ path: 'big.log', maxLines: 20 }) }] },
      { text: 'Read the start.' },
    )
    await send(page, 'Read the start of big.log')
    await conversationText(page, (text) => text.includes('Read the start.'))
    await turnOver(page)

    const result = toolCard(page, 'read_file').getByRole('group', { name: 'Result of read_file' })
    if ((await result.getAttribute('open')) === null) await result.locator('summary').click()
    const lines = result.getByRole('region', { name: 'big.log, lines 1–20 of a large file' })
    await lines.waitFor()
    expect(await lines.locator('.file-line-number').count()).toBe(20)
  })

  it('says which files of the folder grep did not search, and why', async () => {
    const { page, fake } = await open({ folder: project(), approvalMode: 'full-auto' })
    fake.enqueue(
      { toolCalls: [{ name: 'grep', arguments: JSON.stringify({ pattern: 'handled', path: '.' }) }] },
      { text: 'Searched.' },
    )
    await send(page, 'Find handled')
    await conversationText(page, (text) => text.includes('Searched.'))
    await turnOver(page)

    const result = toolCard(page, 'grep').getByRole('group', { name: 'Result of grep' })
    if ((await result.getAttribute('open')) === null) await result.locator('summary').click()
    await result.getByRole('button', { name: 'Open app.ts', exact: true }).waitFor()
    expect(await result.getByText('1 file not searched (1 too large): big.log').count()).toBe(1)
  })
})
