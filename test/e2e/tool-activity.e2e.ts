import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import {
  conversation,
  conversationText,
  screenshot,
  send,
  setSandbox,
  type Theme,
  toolCard,
  turnOver,
  useChatApp,
} from './support'

/** The issue's own size: the window a person works in all day. */
const WINDOW = { width: 1280, height: 800 }

/** The five calls a model makes side by side to look around a project. */
const LOOK_AROUND = [
  { name: 'read_file', arguments: JSON.stringify({ path: 'src/app.ts' }) },
  { name: 'read_file', arguments: JSON.stringify({ path: 'README.md' }) },
  { name: 'grep', arguments: JSON.stringify({ pattern: 'TODO', path: '.' }) },
  { name: 'glob', arguments: JSON.stringify({ pattern: '**/*.ts' }) },
  { name: 'list_directory', arguments: JSON.stringify({ path: 'src' }) },
]

/**
 * Issue 32, item 1: a tool call is one line — verb, argument, outcome — that opens in place to its
 * whole card; the calls of one response gather under one line; errors and questions stay open.
 */
describe('compact tool activity', () => {
  const { open, tempDir } = useChatApp()

  /** A small project: 48 lines of TypeScript, a README, three TODOs in two files. */
  function project(): string {
    const folder = tempDir()
    mkdirSync(join(folder, 'src', 'lib'), { recursive: true })
    const app = Array.from({ length: 47 }, (_, index) => `export const value${index + 1} = ${index + 1}`)
    writeFileSync(join(folder, 'src', 'app.ts'), `${['// TODO: name things', ...app].join('\n')}\n`)
    writeFileSync(
      join(folder, 'src', 'util.ts'),
      '// TODO: test this\n// TODO: and this\nexport const x = 1\n',
    )
    writeFileSync(join(folder, 'src', 'lib', 'deep.ts'), 'export const deep = true\n')
    writeFileSync(join(folder, 'README.md'), '# Demo\n\nA small project.\n')
    return folder
  }

  const group = (page: Page, count: number) =>
    conversation(page).getByRole('group', { name: `${count} tool calls`, exact: true })
  const heightOf = async (page: Page, count: number) => (await group(page, count).boundingBox())?.height ?? 0

  for (const theme of ['light', 'dark'] as Theme[]) {
    it(`shows five parallel calls in at most 300 px, each a line that opens to its full view (${theme})`, async () => {
      const { page, fake } = await open({ folder: project(), approvalMode: 'full-auto', colorScheme: theme })
      await page.setViewportSize(WINDOW)
      fake.enqueue({ toolCalls: LOOK_AROUND }, { text: 'Looked around.' })
      await send(page, 'Look around the project')
      await conversationText(page, (text) => text.includes('Looked around.'))
      await turnOver(page)

      const calls = group(page, 5)
      const line = calls.getByRole('button', { name: /^5 calls/ })
      expect(await line.getAttribute('aria-expanded')).toBe('false')
      expect(await line.textContent()).toContain('all done')
      expect(await heightOf(page, 5)).toBeLessThanOrEqual(300)

      // Opened, the group shows a line per call, each saying what it did and how it came out.
      await line.click()
      const lines = (await calls.locator('.tool-line[aria-expanded]').allTextContents()).map((text) =>
        text.replace(/\s+/g, ' ').trim(),
      )
      expect(lines).toEqual([
        '5 calls · all done: Read src/app.ts, Read README.md, Searched "TODO", Found **/*.ts, Listed src',
        'Read src/app.ts · 48 lines',
        'Read README.md · 3 lines',
        'Searched "TODO" · 3 matches in 2 files',
        'Found **/*.ts · 3 files',
        'Listed src · 3 entries',
      ])
      expect(await heightOf(page, 5)).toBeLessThanOrEqual(300)
      await screenshot(page, `tool-activity-group-${theme}`)

      // A line opens in place to today's card: the file's numbered lines.
      const read = toolCard(page, 'read_file').first()
      const readLine = read.getByRole('button', { name: /^Read src\/app\.ts/ })
      await readLine.click()
      expect(await readLine.getAttribute('aria-expanded')).toBe('true')
      const file = read.getByRole('region', { name: 'src/app.ts, lines 1–48 of 48' })
      await file.waitFor()
      expect(await file.locator('.file-line-number').count()).toBe(48)
      await readLine.press('Enter')
      await file.waitFor({ state: 'hidden' })
    })
  }

  it('keeps a failed call open, and its group with it', async () => {
    const { page, fake } = await open({ folder: project(), approvalMode: 'full-auto' })
    fake.enqueue(
      {
        toolCalls: [
          { name: 'read_file', arguments: JSON.stringify({ path: 'missing.txt' }) },
          { name: 'list_directory', arguments: JSON.stringify({ path: '.' }) },
        ],
      },
      { text: 'One failed.' },
    )
    await send(page, 'Read the missing file')
    await conversationText(page, (text) => text.includes('One failed.'))
    await turnOver(page)

    expect(
      await group(page, 2)
        .getByRole('button', { name: /^2 calls/ })
        .getAttribute('aria-expanded'),
    ).toBe('true')
    const failed = toolCard(page, 'read_file')
    expect(await failed.locator('.tool-line').getAttribute('aria-expanded')).toBe('true')
    const result = failed.getByRole('group', { name: 'Result of read_file' })
    expect(await result.isVisible()).toBe(true)
    expect(await result.textContent()).toContain('missing.txt')
    // The call that went well stays a line.
    expect(await toolCard(page, 'list_directory').locator('.tool-line').getAttribute('aria-expanded')).toBe(
      'false',
    )
  })

  it('lets Tab go through a glob tree and out of it, both ways', async () => {
    const { page, fake } = await open({ folder: project(), approvalMode: 'full-auto' })
    fake.enqueue({ toolCalls: [LOOK_AROUND[3] as (typeof LOOK_AROUND)[number]] }, { text: 'Found them.' })
    await send(page, 'Find the TypeScript')
    await conversationText(page, (text) => text.includes('Found them.'))
    await turnOver(page)

    const card = toolCard(page, 'glob')
    const line = card.getByRole('button', { name: /^Found \*\*\/\*\.ts/ })
    await line.click()
    const tree = card.getByRole('tree', { name: 'Paths found by glob' })
    await tree.waitFor()
    const inTree = () => tree.evaluate((element) => element.contains(document.activeElement))
    const focusedName = () => page.evaluate(() => document.activeElement?.getAttribute('aria-label'))

    // Tab enters the tree once, at its first row; arrows move within it; Tab then leaves it.
    await line.focus()
    for (let press = 0; press < 10 && !(await inTree()); press++) await page.keyboard.press('Tab')
    expect(await focusedName()).toBe('src')
    await page.keyboard.press('ArrowDown')
    const moved = await focusedName()
    expect(moved).not.toBe('src')
    await page.keyboard.press('Tab')
    expect(await inTree()).toBe(false)
    // Back in with Shift+Tab: to the row last moved to; once more leaves it backwards.
    await page.keyboard.press('Shift+Tab')
    expect(await focusedName()).toBe(moved)
    await page.keyboard.press('Shift+Tab')
    expect(await inTree()).toBe(false)
  })

  it('scrolls a wide Markdown table sideways in a narrow window rather than breaking its words', async () => {
    const { page, fake } = await open()
    await page.setViewportSize({ width: 700, height: 800 })
    const columns = ['setting', 'default', 'environment variable', 'description', 'since']
    const row = ['checkpoints.retention', '30 days', 'ATELIER_CHECKPOINT_RETENTION', 'How long', '0.4']
    fake.enqueue({
      text: [
        `| ${columns.join(' | ')} |`,
        `|${columns.map(() => '---').join('|')}|`,
        `| ${row.join(' | ')} |`,
      ].join('\n'),
    })
    await send(page, 'Show the settings as a table')
    const table = conversation(page).getByRole('table')
    await table.waitFor()
    await turnOver(page)
    const frame = conversation(page).locator('.markdown-table')
    expect(await frame.evaluate((element) => element.scrollWidth > element.clientWidth)).toBe(true)
    // A word stays on one line: its cell is as tall as one line of text.
    const cell = table.getByRole('cell', { name: 'ATELIER_CHECKPOINT_RETENTION' })
    const lineHeight = await cell.evaluate((element) =>
      Number.parseFloat(getComputedStyle(element).lineHeight),
    )
    const height = await cell.evaluate((element) => element.getBoundingClientRect().height)
    expect(height).toBeLessThan(lineHeight * 2)
  })

  /** The turn of docs/images/daily (taken from these screenshots once, before and after), at 1280×800. */
  for (const theme of ['light', 'dark'] as Theme[]) {
    it(`shows a working turn — five calls, an edit, a command that asks — at 1280×800 (${theme})`, async () => {
      const folder = project()
      const { page, fake, app } = await open({ folder, colorScheme: theme, approvalMode: 'ask' })
      await page.setViewportSize(WINDOW)
      app.atelier.tools.settings.update('local', 'bash', { enabled: true })
      setSandbox(app, { runUnasked: false })
      fake.enqueue(
        { text: 'Let me look around first.', toolCalls: LOOK_AROUND },
        {
          toolCalls: [
            {
              name: 'edit_file',
              arguments: JSON.stringify({
                path: 'README.md',
                old_string: 'A small project.\n',
                new_string: 'A small project.\n\nRun `npm test` to check it.\n',
              }),
            },
          ],
        },
        { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'npm test' }) }] },
      )
      await send(page, 'Add a line about the tests to the README, then run them')
      const approval = (tool: string) =>
        toolCard(page, tool).getByRole('group', { name: `Approval for ${tool}`, exact: true })
      await approval('edit_file').getByRole('button', { name: 'Allow once', exact: true }).click()
      await approval('bash').getByRole('button', { name: 'Allow once', exact: true }).waitFor()
      // The list follows the stream to its end, where the question is.
      await expect.poll(() => page.getByRole('button', { name: 'Jump to latest' }).count()).toBe(0)
      // The end, where the question waits, as the app shows it; then the turn from its prompt down.
      await screenshot(page, `daily-turn-${theme}-end`)
      await conversation(page).evaluate((log) => {
        log.scrollTop = 0
      })
      await screenshot(page, `daily-turn-${theme}`)
    })
  }
})
