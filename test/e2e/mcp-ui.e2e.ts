import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Locator, Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import type { McpServerInfo } from '../../src-shared/mcp'
import { MASKED_VALUE } from '../../src-shared/secrets'
import { environmentOf } from '../main/tools/mcp/secret-probes'
import { EVERYTHING_SERVER } from '../support/mcp-servers'
import { descendantProcesses, openToolCall, ROOT, settingsSection, useChatApp } from './support'

const SCREENSHOTS = join(ROOT, 'test-results', 'screenshots')
const LONG_TOOL = 'everything__trigger-long-running-operation'

/** The everything servers this test started, at any depth. */
const everythingProcesses = () => descendantProcesses((args) => args.includes(EVERYTHING_SERVER))

/**
 * Settings → MCP and the MCP parts of the chat screen, in Chromium against the web host, with the
 * real everything server as the MCP server and the fake provider scripting the model.
 */
describe('MCP servers in the app', () => {
  const { open, openPage } = useChatApp()

  async function closeSettings(page: Page) {
    await page.getByRole('button', { name: 'Close settings' }).click()
    await page.getByRole('log', { name: 'Conversation' }).waitFor()
  }

  const card = (panel: Locator, name: string) => panel.getByRole('region', { name, exact: true })
  /** The status word(s) of a server's card, and the line under them. */
  const statusOf = (server: Locator) => server.locator('.mcp-status-label').textContent()
  const statusDetailOf = (server: Locator) => server.locator('.mcp-status-detail').textContent()
  const serversOf = (page: Page) =>
    page.evaluate(() => window.atelier?.mcp.list()) as Promise<McpServerInfo[]>

  /** The app scrolls inside its main pane, so the window is made as tall as the section first. */
  async function screenshot(page: Page, name: string) {
    mkdirSync(SCREENSHOTS, { recursive: true })
    const height = await page.evaluate(() => document.querySelector('.main')?.scrollHeight ?? 0)
    await page.setViewportSize({ width: 1280, height: Math.min(Math.max(860, height), 4000) })
    await page.mouse.move(0, 0)
    await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) })
    await page.setViewportSize({ width: 1280, height: 860 })
  }

  it('adds a stdio server, runs it only once approved and needed, and shows its progress', async () => {
    const { page, fake } = await open({ approvalMode: 'full-auto' })
    expect(everythingProcesses()).toEqual([])

    const panel = await settingsSection(page, 'MCP')
    await panel.getByRole('heading', { name: 'No MCP servers yet' }).waitFor()
    await panel.getByRole('button', { name: 'Add server' }).click()
    const form = panel.getByRole('form', { name: 'Add an MCP server' })
    await form.getByRole('textbox', { name: 'Name', exact: true }).fill('everything')
    expect(await form.getByRole('combobox', { name: 'Transport' }).inputValue()).toBe('stdio')
    await form.getByRole('textbox', { name: 'Command', exact: true }).fill(process.execPath)
    const args = form.getByRole('group', { name: 'Arguments' })
    await args.getByRole('button', { name: 'Add to Arguments' }).click()
    await args.getByRole('textbox', { name: 'Arguments 1' }).fill(EVERYTHING_SERVER)
    await args.getByRole('button', { name: 'Add to Arguments' }).click()
    await args.getByRole('textbox', { name: 'Arguments 2' }).fill('stdio')
    await form.getByRole('button', { name: 'Add server' }).click()

    // The exact command line is put before the person at once, and nothing runs before Approve.
    const commandLine = [process.execPath, EVERYTHING_SERVER, 'stdio'].join(' ')
    const approval = page.getByRole('dialog', { name: 'Run “everything”?' })
    await approval.waitFor()
    expect(await approval.locator('pre').first().textContent()).toBe(commandLine)
    expect(await approval.textContent()).toContain('Not set: it starts in Atelier’s own working folder.')
    const everything = card(panel, 'everything')
    expect(await statusOf(everything)).toBe('Needs approval')
    await approval.getByRole('button', { name: 'Approve' }).click()
    await approval.waitFor({ state: 'detached' })
    // The form that opened it is gone: focus lands on the server's card, not on the page's start.
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label')))
      .toBe('Edit server everything')
    await expect.poll(() => statusOf(everything)).toBe('Not running')
    expect(await statusDetailOf(everything)).toBe(
      'It starts when a turn or the capabilities inspector needs it.',
    )
    expect(await everything.locator('code.command-line').textContent()).toBe(commandLine)
    expect(
      await everything.getByRole('switch', { name: 'Enable everything' }).getAttribute('aria-checked'),
    ).toBe('true')
    expect(everythingProcesses()).toEqual([])

    // The capabilities inspector connects it, says so, and tags its tools with it.
    await closeSettings(page)
    await page.getByRole('button', { name: 'Capabilities' }).click()
    const inspector = page.getByRole('dialog', { name: 'Capabilities' })
    const note = inspector.getByText(/^Opening this view connects the enabled MCP servers/)
    expect(await note.isVisible()).toBe(true)
    expect(await note.textContent()).toContain('turn it off in Settings → MCP')
    const table = inspector.getByRole('table', { name: 'Tools' })
    const echo = table.getByRole('row', { name: /everything__echo/ })
    await echo.waitFor()
    await echo.getByText('everything', { exact: true }).waitFor()
    expect(everythingProcesses()).toHaveLength(1)
    await screenshot(page, 'chat-mcp-capabilities-light')
    await inspector.getByRole('button', { name: 'Close' }).click()
    await inspector.waitFor({ state: 'detached' })

    await settingsSection(page, 'MCP')
    await expect.poll(() => statusOf(everything)).toBe('Running')
    expect(await everything.getByText(/^\d+ tools$/).isVisible()).toBe(true)
    await everything.getByRole('button', { name: 'Show stderr' }).click()
    const stderr = page.getByRole('dialog', { name: 'Stderr of everything' })
    const log = stderr.getByRole('log', { name: 'Stderr of everything' })
    await log.waitFor()
    expect(await log.textContent()).toContain('Starting default (STDIO) server')
    expect(await log.evaluate((pre) => getComputedStyle(pre).fontFamily)).toMatch(/mono|Menlo|Consolas/i)
    await page.keyboard.press('Escape')
    await stderr.waitFor({ state: 'detached' })

    // A turn calls its long operation: a progress bar while it runs, then the result, sent back to the model.
    fake.enqueue(
      { toolCalls: [{ name: LONG_TOOL, arguments: JSON.stringify({ duration: 2, steps: 4 }) }] },
      { text: 'The long operation is done.' },
    )
    await closeSettings(page)
    await page.getByRole('textbox', { name: 'Message' }).fill('Run the long operation')
    await page.getByRole('button', { name: 'Send', exact: true }).click()
    const tool = await openToolCall(page, LONG_TOOL)
    const progress = tool.getByRole('progressbar', { name: `Progress of ${LONG_TOOL}` })
    await progress.waitFor()
    expect(await progress.getAttribute('max')).toBe('4')
    expect(await tool.locator('.tool-progress').textContent()).toMatch(/^[1-4] of 4$/)
    await screenshot(page, 'chat-mcp-progress-light')
    await page.getByText('The long operation is done.').waitFor()
    await progress.waitFor({ state: 'detached' })
    expect(await tool.locator('.tool-result-content').textContent()).toContain(
      'Long running operation completed. Duration: 2 seconds, Steps: 4.',
    )
    const followUp = fake.requestsOf('openai-chat').at(-1)?.body
    const result = followUp.messages.find((message: { role: string }) => message.role === 'tool')
    expect(JSON.stringify(result.content)).toContain('Long running operation completed')

    // An image the server returns inline is shown on the card (the model reads only its description).
    fake.enqueue(
      { toolCalls: [{ name: 'everything__get-tiny-image', arguments: '{}' }] },
      { text: 'That is the logo.' },
    )
    await page.getByRole('textbox', { name: 'Message' }).fill('Show me the logo')
    await page.getByRole('button', { name: 'Send', exact: true }).click()
    const logo = page.getByRole('img', { name: 'Returned by everything__get-tiny-image (1 of 1)' })
    await logo.waitFor()
    await expect.poll(() => logo.evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBe(20)
    await page.getByText('That is the logo.').waitFor()

    // Turned off, it stops at once, and says so.
    await settingsSection(page, 'MCP')
    const enabled = everything.getByRole('switch', { name: 'Enable everything' })
    await enabled.click()
    await expect.poll(() => enabled.getAttribute('aria-checked')).toBe('false')
    await expect.poll(() => statusOf(everything)).toBe('Off')
    await expect.poll(everythingProcesses, { timeout: 10_000 }).toEqual([])
  }, 120_000)

  it('imports, edits, re-approves and deletes servers; looks right in both themes', async () => {
    const { app, page } = await open()
    app.atelier.mcp.add(
      {
        name: 'everything',
        transport: 'stdio',
        command: process.execPath,
        args: [EVERYTHING_SERVER, 'stdio'],
      },
      { approve: true },
    )
    const panel = await settingsSection(page, 'MCP')
    const everything = card(panel, 'everything')
    await everything.waitFor()

    // Pasted JSON.
    await panel.getByRole('button', { name: 'Import…' }).click()
    const importer = page.getByRole('dialog', { name: 'Import MCP servers' })
    expect(await importer.getByRole('button', { name: 'Import', exact: true }).isDisabled()).toBe(true)
    await importer
      .getByRole('textbox', { name: 'mcpServers JSON' })
      .fill(
        '{"mcpServers":{"fs":{"command":"npx","args":["-y","@modelcontextprotocol/server-filesystem","/tmp"]}}}',
      )
    await importer.getByRole('button', { name: 'Import', exact: true }).click()
    await importer.waitFor({ state: 'detached' })
    await panel
      .getByRole('status')
      .getByText(/^Imported fs\./)
      .waitFor()
    const fs = card(panel, 'fs')
    expect(await statusOf(fs)).toBe('Needs approval')
    expect(await fs.locator('code.command-line').textContent()).toBe(
      'npx -y @modelcontextprotocol/server-filesystem /tmp',
    )

    // A chosen file, read in the page; a name already used is skipped.
    await panel.getByRole('button', { name: 'Import…' }).click()
    const chooser = page.waitForEvent('filechooser')
    await importer.getByRole('button', { name: 'Choose file…' }).click()
    await (await chooser).setFiles({
      name: 'claude_desktop_config.json',
      mimeType: 'application/json',
      buffer: Buffer.from(
        JSON.stringify({
          mcpServers: {
            fs: { command: 'npx', args: ['-y', 'other'] },
            docs: { url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer abc' } },
          },
        }),
      ),
    })
    await importer.getByText('From claude_desktop_config.json').waitFor()
    expect(await importer.getByRole('textbox', { name: 'mcpServers JSON' }).inputValue()).toContain('"docs"')
    await screenshot(page, 'settings-mcp-import-light')
    await importer.getByRole('button', { name: 'Import', exact: true }).click()
    await panel
      .getByRole('status')
      .getByText('Imported docs. Skipped fs: the name is already used.', { exact: false })
      .waitFor()
    const docs = card(panel, 'docs')
    expect(await docs.textContent()).toContain('http://127.0.0.1:9/mcp')
    expect(await docs.textContent()).toContain('Authorization (stored encrypted)')
    expect(await statusOf(docs)).toBe('Not running')

    // Never run: nothing on stderr yet.
    await fs.getByRole('button', { name: 'Show stderr' }).click()
    const stderr = page.getByRole('dialog', { name: 'Stderr of fs' })
    await stderr.getByText('Nothing written yet.').waitFor()
    await stderr.getByRole('button', { name: 'Close' }).click()
    await stderr.waitFor({ state: 'detached' })

    await screenshot(page, 'settings-mcp-light')

    // Editing the arguments changes the command line: it is shown for approval again, at once.
    await everything.getByRole('button', { name: 'Edit server everything' }).click()
    const form = panel.getByRole('form', { name: 'Edit everything' })
    expect(await form.getByRole('textbox', { name: 'Command', exact: true }).inputValue()).toBe(
      process.execPath,
    )
    const args = form.getByRole('group', { name: 'Arguments' })
    expect(await args.getByRole('textbox', { name: 'Arguments 2' }).inputValue()).toBe('stdio')
    await form.getByRole('textbox', { name: 'Environment variables' }).fill('not an assignment')
    await form.getByRole('button', { name: 'Save server' }).click()
    expect(await form.getByRole('alert').textContent()).toContain('Line 1: write NAME=value')
    await form.getByRole('textbox', { name: 'Environment variables' }).fill('EVERYTHING_MODE=test')
    expect(await form.getByRole('alert').count()).toBe(0)
    await args.getByRole('button', { name: 'Remove stdio from Arguments' }).click()
    await screenshot(page, 'settings-mcp-form-light')
    await form.getByRole('button', { name: 'Save server' }).click()
    const approval = page.getByRole('dialog', { name: 'Run “everything”?' })
    await approval.waitFor()
    expect(await approval.locator('pre').first().textContent()).toBe(
      `${process.execPath} ${EVERYTHING_SERVER}`,
    )
    // Secret by default, as every value: the approval shows it masked.
    expect(await approval.locator('pre').nth(1).textContent()).toBe(
      `EVERYTHING_MODE=${MASKED_VALUE} (stored encrypted)`,
    )
    await screenshot(page, 'settings-mcp-approval-light')
    await approval.getByRole('button', { name: 'Cancel' }).click()
    await approval.waitFor({ state: 'detached' })
    await expect.poll(() => statusOf(everything)).toBe('Needs approval')
    expect((await serversOf(page)).find((server) => server.name === 'everything')?.needsApproval).toBe(true)

    // Review command… reopens it; Approve lets it run.
    await everything.getByRole('button', { name: 'Review command…' }).click()
    await approval.getByRole('button', { name: 'Approve' }).click()
    await approval.waitFor({ state: 'detached' })
    await expect.poll(() => statusOf(everything)).toBe('Not running')

    // Delete asks first; Cancel keeps it.
    await fs.getByRole('button', { name: 'Delete server fs' }).click()
    const confirm = page.getByRole('dialog', { name: 'Delete “fs”?' })
    await confirm.getByRole('button', { name: 'Cancel' }).click()
    expect(await fs.isVisible()).toBe(true)
    await fs.getByRole('button', { name: 'Delete server fs' }).click()
    await confirm.getByRole('button', { name: 'Delete' }).click()
    await fs.waitFor({ state: 'detached' })
    expect((await serversOf(page)).map((server) => server.name).sort()).toEqual(['docs', 'everything'])

    // The same page in the dark theme, with a server waiting for approval.
    await page.evaluate(() =>
      window.atelier?.mcp.import({
        json: '{"mcpServers":{"fs":{"command":"npx","args":["-y","@modelcontextprotocol/server-filesystem","/tmp"]}}}',
      }),
    )
    const { page: dark } = await openPage(app, 'dark')
    const darkPanel = await settingsSection(dark, 'MCP')
    await card(darkPanel, 'fs').waitFor()
    expect(await dark.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe('rgb(23, 24, 28)')
    await screenshot(dark, 'settings-mcp-dark')
    await card(darkPanel, 'fs').getByRole('button', { name: 'Review command…' }).click()
    await dark.getByRole('dialog', { name: 'Run “fs”?' }).waitFor()
    await screenshot(dark, 'settings-mcp-approval-dark')
  }, 120_000)

  it('stores a token encrypted: masked in the form, the approval and the list, and the server still gets it', async () => {
    const { app, page } = await open()
    const token = 'ghp_TypedInTheBrowser_0123456789'
    const panel = await settingsSection(page, 'MCP')
    await panel.getByRole('button', { name: 'Add server' }).click()
    const form = panel.getByRole('form', { name: 'Add an MCP server' })
    await form.getByRole('textbox', { name: 'Name', exact: true }).fill('github')
    await form.getByRole('textbox', { name: 'Command', exact: true }).fill(process.execPath)
    const args = form.getByRole('group', { name: 'Arguments' })
    await args.getByRole('button', { name: 'Add to Arguments' }).click()
    await args.getByRole('textbox', { name: 'Arguments 1' }).fill(EVERYTHING_SERVER)
    await form
      .getByRole('textbox', { name: 'Environment variables' })
      .fill(`GITHUB_TOKEN=${token}\nGITHUB_HOST=github.com\nORGANISATION=acme-private`)

    // Every value is secret at first, whatever its name; the person unticks the one that is not.
    const secrets = form.getByRole('group', { name: 'Secret variables' })
    const box = (name: string) => secrets.getByRole('checkbox', { name, exact: true })
    for (const name of ['GITHUB_TOKEN', 'GITHUB_HOST', 'ORGANISATION'])
      expect(await box(name).isChecked()).toBe(true)
    await box('GITHUB_HOST').uncheck()
    await screenshot(page, 'settings-mcp-secret-form-light')
    await form.getByRole('button', { name: 'Add server' }).click()

    const approval = page.getByRole('dialog', { name: 'Run “github”?' })
    await approval.waitFor()
    expect(await approval.locator('pre').nth(1).textContent()).toBe(
      [
        'GITHUB_HOST=github.com',
        `GITHUB_TOKEN=${MASKED_VALUE} (stored encrypted)`,
        `ORGANISATION=${MASKED_VALUE} (stored encrypted)`,
      ].join('\n'),
    )
    await approval.getByRole('button', { name: 'Approve' }).click()
    await approval.waitFor({ state: 'detached' })
    const github = card(panel, 'github')
    expect(await github.textContent()).toContain(
      'GITHUB_HOST, GITHUB_TOKEN (stored encrypted), ORGANISATION (stored encrypted)',
    )
    expect(JSON.stringify(await serversOf(page))).not.toMatch(/ghp_|acme-private/)
    expect(await page.content()).not.toMatch(/ghp_|acme-private/)

    // Edited without retyping it: the form shows dots, and the stored token is kept.
    await github.getByRole('button', { name: 'Edit server github' }).click()
    const edit = panel.getByRole('form', { name: 'Edit github' })
    const env = edit.getByRole('textbox', { name: 'Environment variables' })
    expect(await env.inputValue()).toBe(
      `GITHUB_HOST=github.com\nGITHUB_TOKEN=${MASKED_VALUE}\nORGANISATION=${MASKED_VALUE}`,
    )
    // The values kept encrypted say so; the one marked not secret stays unticked.
    const editSecrets = edit.getByRole('group', { name: 'Secret variables' })
    expect(await editSecrets.getByText('stored encrypted', { exact: true }).count()).toBe(2)
    expect(await editSecrets.getByRole('checkbox', { name: 'GITHUB_HOST', exact: true }).isChecked()).toBe(
      false,
    )
    await env.fill(`GITHUB_HOST=ghe.example.com\nGITHUB_TOKEN=${MASKED_VALUE}\nORGANISATION=${MASKED_VALUE}`)
    await edit.getByRole('button', { name: 'Save server' }).click()
    await approval.waitFor()
    await approval.getByRole('button', { name: 'Approve' }).click()
    await approval.waitFor({ state: 'detached' })
    const environment = await environmentOf(app.atelier, 'github')
    expect(environment).toMatchObject({
      GITHUB_TOKEN: token,
      GITHUB_HOST: 'ghe.example.com',
      ORGANISATION: 'acme-private',
    })
    expect(await page.content()).not.toMatch(/ghp_|acme-private/)
  }, 120_000)
})
