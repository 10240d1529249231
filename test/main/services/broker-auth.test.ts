/**
 * Signing in to the broker the ways Settings → Tool services offers beyond a token or a password —
 * an nkey seed, a `.creds` file, a private CA for TLS — each against a nats-server configured for it
 * (key material made at test time), through the same service the panel and the CLI use.
 */
import { describe, expect, it } from 'vitest'
import type { BrokerInput } from '../../../src-shared/tool-services'
import { useAgentFixture } from '../../support/agent-harness'
import { credsServer, nkeyServer, tlsServer } from '../../support/nats-auth'
import { useNatsServers } from '../../support/nats-server'
import { useTempDirs } from '../../support/temp-dir'

describe('the broker signs in', { timeout: 60_000 }, () => {
  const fixture = useAgentFixture()
  const nats = useNatsServers()
  const tempDir = useTempDirs()

  /** How the broker stands once Atelier has tried to connect with `input` (on `url`). */
  async function connectWith(url: string, input: Omit<BrokerInput, 'url'>) {
    const { atelier } = await fixture()
    await atelier.services.setBroker({ url, ...input })
    return atelier.services.connect()
  }

  it('with an nkey seed, and fails saying so with another', async () => {
    const { config, seed } = nkeyServer(tempDir())
    const server = await nats(['-c', config])
    expect(await connectWith(server.url, { auth: { kind: 'nkey' }, secret: seed })).toMatchObject({
      status: 'connected',
      auth: { kind: 'nkey' },
      hasSecret: true,
    })
    const other = nkeyServer(tempDir()).seed
    expect(await connectWith(server.url, { auth: { kind: 'nkey' }, secret: other })).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/Authorization Violation/i),
    })
  })

  it('with a .creds file of an operator-mode server, and fails with the creds of an unknown account', async () => {
    const { config, creds, stranger } = credsServer(tempDir())
    const server = await nats(['-c', config])
    expect(await connectWith(server.url, { auth: { kind: 'creds', file: creds } })).toMatchObject({
      status: 'connected',
      auth: { kind: 'creds', file: creds },
    })
    expect(await connectWith(server.url, { auth: { kind: 'creds', file: stranger } })).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/Authorization Violation/i),
    })
  })

  it('over TLS with a private CA, and refuses the server without that CA', async () => {
    const { config, caFile } = tlsServer(tempDir())
    const server = await nats(['-c', config])
    expect(await connectWith(server.url, { auth: { kind: 'none' }, caFile })).toMatchObject({
      error: null,
      status: 'connected',
      caFile,
    })
    expect(await connectWith(server.url, { auth: { kind: 'none' } })).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/certificate/i),
    })
  })
})
