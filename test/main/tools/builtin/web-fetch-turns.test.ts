import { describe, expect, it } from 'vitest'
import { LOCAL_USER } from '../../../../src-main/app/create-atelier'
import { useAgentFixture } from '../../../support/agent-harness'
import { person } from '../../../support/scripted-person'
import { toolResult } from '../../../support/turn-events'
import { page, useWebServers } from '../../../support/web-server'

const fetchCall = (id: string, url: string) => ({ id, name: 'web_fetch', arguments: JSON.stringify({ url }) })

describe('web_fetch in a turn', { timeout: 60_000 }, () => {
  const fixture = useAgentFixture()
  const server = useWebServers()

  async function askingChat() {
    const setup = await fixture()
    setup.atelier.chats.configure({ id: setup.chat.id, approvalMode: 'ask' })
    // The test server is on loopback, which the address rules refuse unless allowed.
    setup.atelier.tools.settings.update(LOCAL_USER, 'web_fetch', {
      parameters: { allowedHosts: ['localhost', '127.0.0.1'] },
    })
    const web = await server()
    web.route('/a', page('text/plain', 'page a'))
    web.route('/b', page('text/plain', 'page b'))
    return { ...setup, web }
  }

  it('asks in ask mode; Always allow saves the domain, which then runs unasked, and only that domain', async () => {
    const { fake, run, web, atelier } = await askingChat()
    fake.enqueue(
      { toolCalls: [fetchCall('call_a', `http://localhost:${web.port}/a`)] },
      { toolCalls: [fetchCall('call_b', `http://localhost:${web.port}/b`)] },
      { toolCalls: [fetchCall('call_ip', `http://127.0.0.1:${web.port}/a`)] },
      { text: 'Read them.' },
    )
    const { asker, asked } = person(
      (request) => ({ decision: 'always', rules: request.suggestedRules, scope: 'global' }),
      () => ({ decision: 'deny', message: 'Not by address.' }),
    )

    const { events } = await run('read the pages', { asker })

    expect(asked.map((request) => request.description.summary)).toEqual([
      `http://localhost:${web.port}/a`,
      `http://127.0.0.1:${web.port}/a`,
    ])
    expect(asked[0]).toMatchObject({
      tool: 'web_fetch',
      description: { kind: 'network', host: 'localhost' },
      suggestedRules: ['web_fetch(domain:localhost)'],
    })
    expect(asked[1]?.suggestedRules).toEqual(['web_fetch(domain:127.0.0.1)'])
    expect(atelier.approvals.list().map((rule) => rule.rule)).toContain('web_fetch(domain:localhost)')
    expect(toolResult(events, 'call_a')?.content).toContain('page a')
    expect(toolResult(events, 'call_b')?.content).toContain('page b')
    expect(toolResult(events, 'call_ip')).toMatchObject({ isError: true, errorType: 'denied' })
    expect(web.requests.map((request) => request.path)).toEqual(['/a', '/b'])
  })

  it('refuses a loopback address or localhost before asking anyone, and asks nothing of DNS to do so', async () => {
    const { fake, run, web, atelier, chat } = await askingChat()
    atelier.tools.settings.update(LOCAL_USER, 'web_fetch', { parameters: { allowedHosts: [] } })
    atelier.chats.configure({ id: chat.id, approvalMode: 'ask' })
    fake.enqueue(
      {
        toolCalls: [
          fetchCall('call_ip', `http://127.0.0.1:${web.port}/a`),
          fetchCall('call_name', `http://localhost:${web.port}/a`),
          fetchCall('call_below', `http://app.localhost:${web.port}/a`),
        ],
      },
      { text: 'Those are local.' },
    )
    const { asker, asked } = person()

    const { events } = await run('read the local pages', { asker })

    expect(asked).toEqual([])
    for (const id of ['call_ip', 'call_name', 'call_below']) {
      expect(toolResult(events, id), id).toMatchObject({
        isError: true,
        errorType: 'blocked',
        content: expect.stringMatching(
          /^Refused to connect to (127\.0\.0\.1|localhost|app\.localhost): it is a/,
        ),
      })
    }
    expect(web.requests).toHaveLength(0)
  })
})
