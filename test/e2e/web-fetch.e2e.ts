import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { LOCAL_USER } from '../../src-main/app/create-atelier'
import { useWebServers, page as webPage } from '../support/web-server'
import { conversationText, openToolCall, screenshot, send, toolCard, turnOver, useChatApp } from './support'

const ARTICLE = readFileSync(new URL('../fixtures/web/article.html', import.meta.url), 'utf8')

describe('web_fetch card', () => {
  const { open } = useChatApp()
  const server = useWebServers()

  it('shows the page title linking to the final URL, its type and size, and a rendered preview', async () => {
    const web = await server()
    web.route('/docs/json', webPage('text/html; charset=utf-8', ARTICLE))
    const { app, page, fake } = await open({ approvalMode: 'full-auto' })
    app.atelier.tools.settings.update(LOCAL_USER, 'web_fetch', {
      parameters: { allowedHosts: ['127.0.0.1'] },
    })
    const url = `${web.origin}/docs/json`
    fake.enqueue(
      { toolCalls: [{ name: 'web_fetch', arguments: JSON.stringify({ url }) }] },
      { text: 'Read the page.' },
    )

    await send(page, 'How do I read JSON in Python?')
    await conversationText(page, (text) => text.includes('Read the page.'))
    await turnOver(page)
    const card = await openToolCall(page, 'web_fetch')

    const line = (await card.locator('.tool-line').first().textContent())?.replace(/\s+/g, ' ').trim()
    expect(line).toMatch(new RegExp(`^Fetched ${url} · \\d+(\\.\\d)? KiB$`))
    const title = card.getByRole('link', { name: 'Reading JSON in Python | Example Docs' })
    expect(await title.getAttribute('href')).toBe(url)
    expect(await card.locator('.web-page-meta').textContent()).toMatch(/text\/html · \d+(\.\d)? KiB/)
    const preview = card.getByRole('region', { name: 'Preview of Reading JSON in Python | Example Docs' })
    // The preview is Markdown rendered: the code as a code block, the table as a table.
    expect(await preview.locator('pre code').textContent()).toContain('import json')
    expect(await preview.getByRole('table').getByRole('row').count()).toBe(4)
    expect(await preview.getByRole('link', { name: 'the reference' }).getAttribute('href')).toBe(
      `${web.origin}/docs/reference/json.html#load`,
    )
    expect(await preview.textContent()).not.toContain('Sponsored')
    await screenshot(page, 'web-fetch-card')
  })

  it("asks in ask mode, and Always allow offers the page's domain", async () => {
    const web = await server()
    web.route('/notes.txt', webPage('text/plain', 'release notes'))
    const { app, page, fake } = await open({ approvalMode: 'ask' })
    app.atelier.tools.settings.update(LOCAL_USER, 'web_fetch', {
      parameters: { allowedHosts: ['localhost'] },
    })
    fake.enqueue(
      {
        toolCalls: [
          { name: 'web_fetch', arguments: JSON.stringify({ url: `http://localhost:${web.port}/notes.txt` }) },
        ],
      },
      { text: 'Read the notes.' },
    )

    await send(page, 'Read the release notes')
    const card = toolCard(page, 'web_fetch')
    await card.getByRole('button', { name: 'Always allow…', exact: true }).click()
    const rule = card.getByRole('textbox', { name: 'Rule to save' })
    expect(await rule.inputValue()).toBe('web_fetch(domain:localhost)')
    expect(web.requests).toHaveLength(0)
    await card.getByRole('button', { name: 'Save and allow', exact: true }).click()
    await conversationText(page, (text) => text.includes('Read the notes.'))
    await turnOver(page)

    expect(web.requests.map((request) => request.path)).toEqual(['/notes.txt'])
    expect(app.atelier.approvals.list()).toMatchObject([
      { rule: 'web_fetch(domain:localhost)', action: 'allow' },
    ])
  })
})
