import type { Locator, Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { mcpToolName } from '../../src-main/tools/mcp/names'
import { OAUTH_TOOL, startOAuthMcpServer } from '../fixtures/oauth-mcp-server'
import { screenshot, send, settingsSection, toolCard, turnOver, useChatApp } from './support'

const SERVER = 'tracker'
const TOOL = mcpToolName(SERVER, OAUTH_TOOL)

/**
 * Signing in to a remote MCP server behind OAuth, in Chromium against the web host: the server is
 * the local OAuth-protected one (test/fixtures/oauth-mcp-server.ts), whose authorization page
 * approves at once, so the page Atelier opens lands straight on Atelier's loopback listener.
 */
describe('MCP sign-in in the app', () => {
  const { open, cleanups } = useChatApp()

  const card = (panel: Locator) => panel.getByRole('region', { name: SERVER, exact: true })
  const statusOf = (server: Locator) => server.locator('.mcp-status-label').textContent()

  /** The capabilities inspector's tool names, once it has loaded. */
  async function inspectedTools(page: Page): Promise<string[]> {
    await page.getByRole('button', { name: 'Capabilities' }).click()
    const inspector = page.getByRole('dialog', { name: 'Capabilities' })
    const table = inspector.getByRole('table', { name: 'Tools' })
    await table.waitFor()
    const names = await table.locator('tbody th code').allTextContents()
    const unavailable = await inspector
      .getByText(/is unavailable, so its tools are not sent/)
      .allTextContents()
    await inspector.getByRole('button', { name: 'Close' }).click()
    await inspector.waitFor({ state: 'detached' })
    return [...names, ...unavailable]
  }

  it('signs in through the browser, lists the tools, and renews an expired token without asking again', async () => {
    const server = await startOAuthMcpServer()
    cleanups.push(() => server.close())
    const { app, page, context, fake } = await open({ approvalMode: 'full-auto' })
    app.atelier.mcp.add({ name: SERVER, transport: 'http', url: server.url }, { approve: false })

    // A turn or the inspector meets the 401: the server is left out, and said to need sign-in.
    const before = await inspectedTools(page)
    expect(before).not.toContain(TOOL)
    expect(before.join('\n')).toContain(`${SERVER} is unavailable, so its tools are not sent: needs sign-in`)

    const panel = await settingsSection(page, 'MCP')
    const tracker = card(panel)
    await expect.poll(() => statusOf(tracker)).toBe('Needs sign-in')
    expect(server.authorizations).toBe(0)
    await screenshot(page, 'settings-mcp-needs-sign-in-light')
    await page.emulateMedia({ colorScheme: 'dark' })
    await screenshot(page, 'settings-mcp-needs-sign-in-dark')
    await page.emulateMedia({ colorScheme: 'light' })

    // Sign in opens the authorization page; it approves at once and lands on Atelier's listener.
    const opened = context.waitForEvent('page')
    await tracker.getByRole('button', { name: 'Sign in' }).click()
    const signInPage = await opened
    await signInPage.getByRole('heading', { name: /Signed in/ }).waitFor()
    expect(new URL(signInPage.url()).hostname).toBe('127.0.0.1')
    expect(server.authorizations).toBe(1)
    await signInPage.close()

    await tracker.getByText('Signed in', { exact: true }).waitFor()
    await screenshot(page, 'settings-mcp-signed-in-light')
    await expect.poll(() => tracker.getByText(/^\d+ tools?$/).textContent()).toBe('1 tool')
    await page.getByRole('button', { name: 'Close settings' }).click()
    expect(await inspectedTools(page)).toContain(TOOL)

    // The access token expires: a turn's call renews it with the refresh token, and no page opens.
    server.expireAccessTokens()
    const pagesBefore = context.pages().length
    fake.enqueue({ toolCalls: [{ name: TOOL, arguments: '{}' }] }, { text: 'Done.' })
    await send(page, 'Who am I there?')
    await turnOver(page)
    expect(await toolCard(page, TOOL).textContent()).toContain('signed in as')
    expect(server.refusals).toBeGreaterThanOrEqual(1)
    expect(server.refreshes).toBeGreaterThanOrEqual(1)
    expect(server.authorizations).toBe(1)
    expect(context.pages()).toHaveLength(pagesBefore)
    await screenshot(page, 'chat-mcp-signed-in-light')

    // Sign out forgets the tokens: the server needs sign-in again and its tools leave.
    const settings = await settingsSection(page, 'MCP')
    await card(settings).getByRole('button', { name: 'Sign out' }).click()
    await expect.poll(() => statusOf(card(settings))).toBe('Needs sign-in')
    await page.getByRole('button', { name: 'Close settings' }).click()
    expect(await inspectedTools(page)).not.toContain(TOOL)
  })
})
