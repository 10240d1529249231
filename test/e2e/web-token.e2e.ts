import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { useTempDirs } from '../support/temp-dir'
import { startApp, useBrowser } from './support'

describe('the web host in Chromium', () => {
  const tempDir = useTempDirs()
  const { browser, cleanups } = useBrowser()

  async function app() {
    const started = await startApp(tempDir())
    cleanups.push(started.stop)
    return started
  }

  async function newPage() {
    const context = await browser().newContext()
    cleanups.push(() => context.close())
    return { context, page: await context.newPage() }
  }

  /** Another web server on this machine, as any dev server is: it keeps everything browsers send it. */
  async function startOtherLocalServer() {
    const received: { requestLine: string; headers: IncomingHttpHeaders }[] = []
    const server = createServer((request, response) => {
      received.push({ requestLine: `${request.method} ${request.url}`, headers: request.headers })
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      response.end('<!doctype html><title>Another local server</title><img src="/pixel.png">')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    cleanups.push(() => {
      server.closeAllConnections()
      return new Promise((resolve) => server.close(resolve))
    })
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received }
  }

  const chatButton = (page: Page, title: string) =>
    page.getByRole('navigation', { name: 'Chats' }).getByRole('button', { name: title, exact: true })

  it('sends the token to no other local server, and keeps working across Back and a reload', async () => {
    const { atelier, host } = await app()
    atelier.chats.create({ title: 'Release notes' })
    const other = await startOtherLocalServer()
    const { context, page } = await newPage()

    await page.goto(host.url)
    await chatButton(page, 'Release notes').waitFor()
    expect(page.url()).toBe(`http://127.0.0.1:${host.port}/`)
    expect(await page.evaluate(() => document.cookie)).toBe('')
    expect(await context.cookies()).toEqual([])

    // The person follows a link from the app to the other server, and opens that one in a new tab too.
    await Promise.all([
      page.waitForURL(`${other.url}/from-the-app`),
      page.evaluate((url) => {
        location.href = url
      }, `${other.url}/from-the-app`),
    ])
    const tab = await context.newPage()
    await tab.goto(`${other.url}/in-a-new-tab`)
    await expect
      .poll(() => other.received.map(({ requestLine }) => requestLine))
      .toEqual(expect.arrayContaining(['GET /from-the-app', 'GET /in-a-new-tab', 'GET /pixel.png']))
    expect(JSON.stringify(other.received)).not.toContain(host.token)
    for (const { headers } of other.received) {
      expect(headers.cookie).toBeUndefined()
      expect(headers.referer ?? '').not.toContain(`127.0.0.1:${host.port}/`)
    }

    await page.goBack()
    await chatButton(page, 'Release notes').waitFor()
    await page.reload()
    await chatButton(page, 'Release notes').waitFor()
    await page.getByRole('button', { name: 'New chat', exact: true }).click()
    await chatButton(page, 'Untitled chat').waitFor()
    expect(atelier.chats.list().map((chat) => chat.title)).toContain('Untitled chat')
    expect(page.url()).not.toContain(host.token)
  })

  it('opens from the printed address in any window, as a bookmark does, and lets no page in without it', async () => {
    const { atelier, host } = await app()
    atelier.chats.create({ title: 'Release notes' })
    for (let window = 0; window < 2; window++) {
      const { page } = await newPage()
      await page.goto(host.url)
      await chatButton(page, 'Release notes').waitFor()
    }

    for (const [address, explanation] of [
      [`http://127.0.0.1:${host.port}/`, 'This page has no access token'],
      [
        `http://127.0.0.1:${host.port}/#token=${'x'.repeat(host.token.length)}`,
        'Atelier did not let this page in',
      ],
      [`http://127.0.0.1:${host.port}/?token=${host.token}`, 'This page has no access token'],
    ] as const) {
      const { page } = await newPage()
      await page.goto(address)
      const alert = page.getByRole('alert')
      await alert.getByRole('heading', { name: 'Atelier could not connect' }).waitFor()
      expect(await alert.textContent()).toContain(explanation)
      expect(await page.evaluate(() => window.atelier)).toBeUndefined()
    }
  })

  it('refuses a request too large for the host without losing the connection', async () => {
    const { host } = await app()
    const { page } = await newPage()
    await page.goto(host.url)
    await page.getByRole('navigation', { name: 'Chats' }).waitFor()
    // A million control characters (within the contract's length, but 6 MB once JSON-escaped) and an
    // image of 6 MB as base64 (within its own cap): together past what one request may carry.
    const refusal = await page.evaluate(() =>
      window.atelier?.turns
        .start({
          chatId: 'any',
          prompt: '\u0001'.repeat(1_000_000),
          attachments: [{ kind: 'image', mimeType: 'image/png', base64: 'A'.repeat(6_000_000) }],
        })
        .catch((error) => error),
    )
    expect(refusal).toMatchObject({
      code: 'validation_failed',
      message: expect.stringContaining('too large'),
    })
    expect(await page.evaluate(() => window.atelier?.chats.list())).toEqual([])
  })
})
