import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Page } from 'playwright-core'
import { afterEach, describe, expect, it } from 'vitest'
import { Sandbox } from '../../src-main/tools/sandbox/sandbox'
import {
  conversation,
  conversationText,
  openToolCall,
  screenshot,
  send,
  setSandbox,
  settingsSection,
  toolCard,
  turnOver,
  useChatApp,
} from './support'

/**
 * The sandbox in Chromium, against the web host, the real services and the real `bwrap`: Settings →
 * Sandbox, the badge on a command's card, and a command asking to leave the sandbox, answered by
 * the person, checked by whether a loopback server the test runs heard from it.
 */
describe('the sandbox in the app', () => {
  const { open, tempDir } = useChatApp()
  const servers: Server[] = []

  afterEach(async () => {
    for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve))
  })

  /** A loopback HTTP server that counts the requests it heard. */
  async function loopbackServer(): Promise<{ url: string; hits: () => number }> {
    let hits = 0
    const server = createServer((_request, response) => {
      hits += 1
      response.end('reached\n')
    })
    servers.push(server)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as AddressInfo
    return { url: `http://127.0.0.1:${port}/hit`, hits: () => hits }
  }

  const approvalCard = (page: Page) =>
    conversation(page).getByRole('group', { name: 'Approval for bash', exact: true }).last()

  /** A bash call the model makes: `curl` of `url`, asking to leave the sandbox for the network. */
  const fetchCall = (url: string) => ({
    toolCalls: [
      {
        name: 'bash',
        arguments: JSON.stringify({
          command: `curl -s -m 5 ${url}`,
          leave_sandbox: { needs: 'network', justification: 'fetch the test page' },
        }),
      },
    ],
  })

  it('Settings → Sandbox shows bubblewrap available here, and a switch turned on stays on after a reload', async () => {
    const { page, app } = await open()
    const panel = await settingsSection(page, 'Sandbox')
    const machine = panel.getByRole('region', { name: 'This computer', exact: true })
    await machine.getByText('bubblewrap (Linux)', { exact: true }).waitFor()
    expect(await machine.getByText('Available', { exact: true }).count()).toBe(1)
    expect(await machine.textContent()).toMatch(/took \d+ ms at start/)
    expect(await machine.getByText('/usr/bin/bwrap').count()).toBe(1)

    const network = panel.getByRole('switch', { name: 'Allow the network', exact: true })
    const sandboxed = panel.getByRole('switch', { name: 'Run commands in the sandbox', exact: true })
    expect(await sandboxed.getAttribute('aria-checked')).toBe('true')
    expect(await network.getAttribute('aria-checked')).toBe('false')
    await network.click()
    await expect.poll(() => app.atelier.preferences.get().sandbox.network).toBe(true)
    await screenshot(page, 'settings-sandbox-light')

    await page.reload()
    const again = await settingsSection(page, 'Sandbox')
    const after = again.getByRole('switch', { name: 'Allow the network', exact: true })
    expect(await after.getAttribute('aria-checked')).toBe('true')
    // The other switches kept their values: the section saves the settings whole.
    expect(app.atelier.preferences.get().sandbox).toMatchObject({
      enabled: true,
      runUnasked: true,
      escapeInFullAuto: false,
      customTools: true,
    })
  })

  it('a plain command runs in the sandbox unasked in Ask, its card says Sandboxed, and the network stays off', async () => {
    const folder = tempDir()
    const server = await loopbackServer()
    const { page, fake, app } = await open({ folder, approvalMode: 'ask' })
    app.atelier.tools.settings.update('local', 'bash', { enabled: true })
    fake.enqueue(
      {
        toolCalls: [
          {
            name: 'bash',
            arguments: JSON.stringify({
              command: `echo made > made.txt; curl -s -m 5 ${server.url}; echo tried`,
            }),
          },
        ],
      },
      { text: 'Tried it in the sandbox.' },
    )

    await send(page, 'Try the page')
    await conversationText(page, (text) => text.includes('Tried it in the sandbox.'))
    await turnOver(page)
    const card = await openToolCall(page, 'bash')
    await card.locator('.badge', { hasText: /^Sandboxed$/ }).waitFor()
    expect(await approvalCard(page).count()).toBe(0)
    expect(await card.getByRole('log', { name: 'Output of bash' }).textContent()).toContain('tried')
    expect(server.hits()).toBe(0)

    // Capabilities says which policy holds for the commands.
    await page.getByRole('button', { name: 'Capabilities', exact: true }).click()
    const dialog = page.getByRole('dialog', { name: 'Capabilities' })
    await dialog.getByText(/^Commands run in the sandbox \(bubblewrap \(Linux\)\)/).waitFor()
    expect(await dialog.textContent()).toContain('the network is off')
  })

  it('a command asking for the network shows the justification; Allow once lets it reach the server', async () => {
    const folder = tempDir()
    const server = await loopbackServer()
    const { page, fake, app } = await open({ folder, approvalMode: 'ask', colorScheme: 'dark' })
    app.atelier.tools.settings.update('local', 'bash', { enabled: true })
    fake.enqueue(fetchCall(server.url), { text: 'Fetched the page.' })

    await send(page, 'Fetch the page')
    const card = approvalCard(page)
    await card.getByRole('button', { name: 'Allow once', exact: true }).waitFor()
    const escalation = card.getByRole('region', {
      name: 'This command asks to leave the sandbox for the network',
      exact: true,
    })
    expect(await escalation.locator('q').textContent()).toBe('fetch the test page')
    // Leaving the sandbox is asked every time: no answer here stands for the next call.
    expect(await card.getByRole('button', { name: 'Allow for this chat' }).count()).toBe(0)
    expect(await card.getByRole('button', { name: 'Always allow…' }).count()).toBe(0)
    // Nothing ran while the card waits.
    expect(server.hits()).toBe(0)
    await screenshot(page, 'approval-leave-sandbox-dark')

    await card.getByRole('button', { name: 'Allow once', exact: true }).click()
    await conversationText(page, (text) => text.includes('Fetched the page.'))
    await turnOver(page)
    expect(server.hits()).toBe(1)
    const bash = toolCard(page, 'bash')
    await bash.locator('.badge', { hasText: 'Sandboxed · network' }).waitFor()
    await screenshot(page, 'shell-card-sandbox-network-dark')
    expect(await bash.getByRole('log', { name: 'Output of bash' }).textContent()).toContain('reached')
  })

  it('Deny keeps the command from running: the server hears nothing', async () => {
    const folder = tempDir()
    const server = await loopbackServer()
    const { page, fake, app } = await open({ folder, approvalMode: 'ask' })
    app.atelier.tools.settings.update('local', 'bash', { enabled: true })
    fake.enqueue(fetchCall(server.url), { text: 'Left the page alone.' })

    await send(page, 'Fetch the page')
    const card = approvalCard(page)
    await card.getByRole('button', { name: 'Deny', exact: true }).waitFor()
    expect(await card.textContent()).toContain('fetch the test page')
    await card.getByRole('button', { name: 'Deny', exact: true }).click()
    await conversationText(page, (text) => text.includes('Left the page alone.'))
    await turnOver(page)
    expect(server.hits()).toBe(0)
    expect(await card.getByText('Denied', { exact: true }).count()).toBe(1)
    expect(await toolCard(page, 'bash').locator('[class*="badge--sandbox"]').count()).toBe(0)
  })

  it('with the sandbox turned off, a command’s card says it was not sandboxed', async () => {
    const folder = tempDir()
    const { page, fake, app } = await open({ folder, approvalMode: 'full-auto' })
    app.atelier.tools.settings.update('local', 'bash', { enabled: true })
    setSandbox(app, { enabled: false })
    fake.enqueue(
      { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'echo plain' }) }] },
      { text: 'Ran it.' },
    )

    await send(page, 'Run it')
    await conversationText(page, (text) => text.includes('Ran it.'))
    await turnOver(page)
    const badge = toolCard(page, 'bash').locator('.badge', { hasText: 'Not sandboxed: off' })
    await badge.waitFor()
    expect(await badge.getAttribute('title')).toContain('Settings → Sandbox')

    await page.getByRole('button', { name: 'Capabilities', exact: true }).click()
    const dialog = page.getByRole('dialog', { name: 'Capabilities' })
    await dialog.getByText('Commands are not sandboxed: the sandbox is turned off in').waitFor()
    // The words name where to turn it back on, and take the person there.
    await dialog.getByRole('link', { name: 'Settings → Sandbox' }).click()
    await page.getByRole('tabpanel', { name: 'Sandbox', exact: true }).waitFor()
    expect(await dialog.count()).toBe(0)
  })

  it('a stdio MCP server added with Run in the sandbox says so on its card and at its launch approval', async () => {
    const { page, app } = await open()
    const panel = await settingsSection(page, 'MCP')
    await panel.getByRole('button', { name: 'Add server' }).click()
    const form = panel.getByRole('form', { name: 'Add an MCP server' })
    await form.getByRole('textbox', { name: 'Name', exact: true }).fill('confined')
    await form.getByRole('textbox', { name: 'Command', exact: true }).fill(process.execPath)
    const inSandbox = form.getByRole('switch', { name: 'Run in the sandbox', exact: true })
    expect(await inSandbox.getAttribute('aria-checked')).toBe('false')
    await inSandbox.click()
    await form.getByRole('button', { name: 'Add server' }).click()

    const approval = page.getByRole('dialog', { name: 'Run “confined”?' })
    await approval.waitFor()
    expect(await approval.textContent()).toContain('Runs in the sandbox')
    await approval.getByRole('button', { name: 'Cancel' }).click()
    const card = panel.getByRole('region', { name: 'confined', exact: true })
    expect(await card.locator('.tag', { hasText: /^Sandboxed$/ }).count()).toBe(1)
    expect(app.atelier.mcp.list().find((server) => server.name === 'confined')?.definition).toMatchObject({
      sandboxed: true,
    })
  })

  it('with no bwrap to be found, Settings says why and what to install, and a command asks and says it ran unconfined', async () => {
    const folder = tempDir()
    // The real probe, on a PATH where no bwrap is.
    const detectSandbox = () => Sandbox.detect('linux', tempDir())
    const { page, fake, app } = await open({ folder, approvalMode: 'ask', detectSandbox })
    app.atelier.tools.settings.update('local', 'bash', { enabled: true })

    const panel = await settingsSection(page, 'Sandbox')
    const machine = panel.getByRole('region', { name: 'This computer', exact: true })
    await machine.getByText('Not available', { exact: true }).waitFor()
    expect(await machine.textContent()).toContain('bubblewrap (bwrap) is not installed.')
    expect(await machine.getByText('sudo apt-get install bubblewrap').count()).toBe(1)
    await screenshot(page, 'settings-sandbox-unavailable-light')
    await page.getByRole('button', { name: 'Close settings' }).click()

    fake.enqueue(
      { toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command: 'echo unconfined' }) }] },
      { text: 'Ran it unconfined.' },
    )
    await send(page, 'Run it')
    // Nothing runs "sandboxed" unasked: the approvals decide as without a sandbox.
    const card = approvalCard(page)
    await card.getByRole('button', { name: 'Allow once', exact: true }).click()
    await conversationText(page, (text) => text.includes('Ran it unconfined.'))
    await turnOver(page)
    const badge = toolCard(page, 'bash').locator('.badge', { hasText: 'Not sandboxed: unavailable' })
    await badge.waitFor()
    expect(await badge.getAttribute('title')).toBe('bubblewrap (bwrap) is not installed.')
  })
})
