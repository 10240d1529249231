import { mkdirSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import { join } from 'node:path'
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises'
import { afterEach, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { type Atelier, createAtelier } from '../../../src-main/app/create-atelier'
import { MAX_CONNECTIONS, startWebHost, type WebHost } from '../../../src-main/web/web-host'
import {
  MAX_REQUEST_BYTES,
  type ServerMessage,
  WEB_PROTOCOL,
  webSocketProtocols,
} from '../../../src-shared/web-protocol'
import { useTempDirs } from '../../support/temp-dir'
import { encodeFrame, invokeFrame, openRawWebSocket, type ReceivedFrame, TEXT_FRAME } from './raw-websocket'

interface Reply {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

function get(port: number, path: string, headers: Record<string, string>): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers, method: 'GET' }, (res) => {
      let body = ''
      res.setEncoding('utf8').on('data', (chunk: string) => {
        body += chunk
      })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
    })
    req.on('error', reject).end()
  })
}

/** Resolves with the HTTP status of a refused upgrade, or 101 when the socket opened. */
function upgradeStatus(url: string, protocols: string[], headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, protocols, { headers })
    socket.on('open', () => {
      socket.close()
      resolve(101)
    })
    socket.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0))
    socket.on('error', reject)
  })
}

/** A client as the browser's bridge is one: it offers the token and matches results by id. */
async function openContractClient(host: WebHost) {
  const authority = `127.0.0.1:${host.port}`
  const socket = new WebSocket(`ws://${authority}/api`, webSocketProtocols(host.token), {
    headers: { origin: `http://${authority}` },
  })
  const events: ServerMessage[] = []
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as ServerMessage
    if (message.type === 'event') events.push(message)
  })
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject))
  let nextId = 1
  const call = (method: string, request: unknown) =>
    new Promise<ServerMessage>((resolve) => {
      const id = nextId++
      socket.on('message', function listener(data) {
        const message = JSON.parse(String(data)) as ServerMessage
        if (message.type !== 'result' || message.id !== id) return
        socket.off('message', listener)
        resolve(message)
      })
      socket.send(JSON.stringify({ type: 'invoke', id, method, request }))
    })
  return { socket, call, events }
}

const textMessages = (frames: ReceivedFrame[]) =>
  frames.filter((frame) => frame.opcode === TEXT_FRAME).map((frame) => JSON.parse(String(frame.payload)))

describe('startWebHost', () => {
  const tempDir = useTempDirs()
  let atelier: Atelier | undefined
  let host: WebHost | undefined
  const closers: (() => void)[] = []
  afterEach(async () => {
    for (const close of closers.splice(0)) close()
    await host?.close()
    await atelier?.close()
  })

  async function start() {
    const rendererDir = join(tempDir(), 'renderer')
    mkdirSync(join(rendererDir, 'assets'), { recursive: true })
    writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>Atelier</title>')
    writeFileSync(join(rendererDir, 'assets', 'app.js'), 'console.log(1)')
    writeFileSync(join(tempDir(), 'secret.txt'), 'outside the renderer')
    atelier = createAtelier({ dataDir: tempDir() })
    host = await startWebHost({ atelier, rendererDir })
    const authority = `127.0.0.1:${host.port}`
    return {
      atelier,
      host,
      authority,
      protocols: webSocketProtocols(host.token),
      /** The headers of a request from the host's own page. */
      page: { host: authority, origin: `http://${authority}` },
    }
  }
  type Started = Awaited<ReturnType<typeof start>>

  async function openRaw(started: Started) {
    const { connection } = await openRawWebSocket(started.host.port, started.protocols)
    if (!connection) throw new Error('the host refused an authorized handshake')
    closers.push(() => connection.socket.destroy())
    return connection
  }

  async function contractClient(started: Started) {
    const client = await openContractClient(started.host)
    closers.push(() => client.socket.terminate())
    return client
  }

  it('prints a loopback URL whose fragment, which browsers send to no server, carries a long random token', async () => {
    const { host, atelier } = await start()
    expect(host.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#token=[\w-]{43}$/)
    expect(host.url.endsWith(`#token=${host.token}`)).toBe(true)
    const other = await startWebHost({ atelier, rendererDir: tempDir() })
    expect(other.token).not.toBe(host.token)
    await other.close()
  })

  describe('over HTTP', () => {
    it('serves the renderer with the CSP and sets no cookie, whatever the address carries', async () => {
      const { host, authority, page } = await start()
      for (const path of ['/', `/?token=${host.token}`]) {
        const reply = await get(host.port, path, { host: authority })
        expect(reply.status).toBe(200)
        expect(reply.body).toContain('<title>Atelier</title>')
        expect(reply.headers['set-cookie']).toBeUndefined()
        expect(reply.headers['referrer-policy']).toBe('no-referrer')
        expect(reply.headers['content-security-policy']).toContain("default-src 'none'; script-src 'self'")
        expect(reply.headers['content-security-policy']).toContain(`connect-src 'self' ws://${authority}`)
      }
      const script = await get(host.port, '/assets/app.js', page)
      expect(script.status).toBe(200)
      expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8')
    })

    it.each<[string, (c: Started) => Record<string, string>]>([
      ['a foreign Origin', (c) => ({ ...c.page, origin: 'http://evil.example' })],
      ['a foreign Host (DNS rebinding)', (c) => ({ ...c.page, host: `evil.example:${c.host.port}` })],
      ['localhost instead of the printed host', (c) => ({ ...c.page, host: `localhost:${c.host.port}` })],
    ])('refuses %s with 403', async (_case, build) => {
      const started = await start()
      const reply = await get(started.host.port, '/', build(started))
      expect(reply.status).toBe(403)
      expect(reply.body).not.toContain('<title>Atelier</title>')
    })

    it('finds nothing outside the renderer folder', async () => {
      const { host, authority } = await start()
      for (const path of ['/../secret.txt', '/%2e%2e/secret.txt', '/assets/%2e%2e%2f%2e%2e%2fsecret.txt']) {
        const reply = await get(host.port, path, { host: authority })
        expect(reply.status).toBe(404)
        expect(reply.body).not.toContain('outside the renderer')
      }
    })

    it('answers a malformed request target with 403 and keeps serving', async () => {
      const { host, authority } = await start()
      for (const path of ['http://[', '//[']) {
        expect((await get(host.port, path, { host: authority })).status).toBe(403)
      }
      expect((await get(host.port, '/missing', { host: authority })).status).toBe(404)
    })
  })

  describe('over WebSocket', () => {
    it.each<[string, (c: Started) => { url?: string; protocols: string[]; headers: Record<string, string> }]>(
      [
        ['no token', (c) => ({ protocols: [WEB_PROTOCOL], headers: c.page })],
        ['a wrong token', (c) => ({ protocols: webSocketProtocols('wrong'), headers: c.page })],
        [
          'a wrong token of the right length',
          (c) => ({ protocols: webSocketProtocols('x'.repeat(c.host.token.length)), headers: c.page }),
        ],
        [
          'the token in a cookie, as hosts before sent it',
          (c) => ({
            protocols: [WEB_PROTOCOL],
            headers: { ...c.page, cookie: `atelier_token_${c.host.port}=${c.host.token}` },
          }),
        ],
        [
          'the token in the query',
          (c) => ({
            url: `ws://${c.authority}/api?token=${c.host.token}`,
            protocols: [WEB_PROTOCOL],
            headers: c.page,
          }),
        ],
        [
          'a foreign Origin',
          (c) => ({ protocols: c.protocols, headers: { ...c.page, origin: 'http://evil.example' } }),
        ],
        [
          'a foreign Host (DNS rebinding)',
          (c) => ({ protocols: c.protocols, headers: { ...c.page, host: `evil.example:${c.host.port}` } }),
        ],
      ],
    )('refuses an upgrade with %s with 403', async (_case, build) => {
      const started = await start()
      const { url = `ws://${started.authority}/api`, protocols, headers } = build(started)
      expect(await upgradeStatus(url, protocols, headers)).toBe(403)
    })

    it('answers contract calls and pushes events to a client that offers the token, and never echoes it', async () => {
      const started = await start()
      const { socket, call, events } = await contractClient(started)
      expect(socket.protocol).toBe(WEB_PROTOCOL)

      expect(await call('chats.create', { title: 'Via socket' })).toMatchObject({
        ok: true,
        value: { title: 'Via socket' },
      })
      await expect
        .poll(() => events)
        .toContainEqual(
          expect.objectContaining({
            event: 'chats.changed',
            payload: { chats: [expect.objectContaining({ title: 'Via socket' })] },
          }),
        )
      expect(await call('chats.create', { title: 5 })).toMatchObject({
        ok: false,
        error: { code: 'validation_failed' },
      })
      expect(started.atelier.chats.list()).toHaveLength(1)
    })

    it("takes a request carrying the contract's longest string in three-byte characters", async () => {
      const started = await start()
      const { call } = await contractClient(started)
      const prompt = '€'.repeat(1_000_000)
      expect(Buffer.byteLength(prompt)).toBe(3_000_000)
      expect(await call('turns.start', { chatId: 'no-such-chat', prompt })).toMatchObject({
        ok: false,
        error: { code: 'not_found' },
      })
    })
  })

  describe('with a client that breaks the rules', () => {
    it.each<[string, Buffer, number]>([
      [
        'a text frame that is not UTF-8',
        encodeFrame({ opcode: TEXT_FRAME, payload: Buffer.from([0xc3, 0x28, 0xff]) }),
        1007,
      ],
      ['a frame with the reserved opcode 3', encodeFrame({ opcode: 0x3, payload: Buffer.from('{}') }), 1002],
      [
        'an unmasked frame',
        encodeFrame({ opcode: TEXT_FRAME, payload: Buffer.from('{}'), masked: false }),
        1002,
      ],
      [
        'a header claiming more than 16 MiB',
        encodeFrame({ opcode: TEXT_FRAME, claimedLength: 16 * 1024 * 1024 + 1 }),
        1009,
      ],
    ])('closes the connection that sent %s and answers the next one', async (_case, frame, closeCode) => {
      const started = await start()
      const rude = await openRaw(started)
      rude.socket.write(frame)
      expect(await rude.ended).toEqual({ closeCode })

      const { call } = await contractClient(started)
      expect(await call('chats.list', {})).toMatchObject({ ok: true, value: [] })
    })

    it('closes only the connection whose frame is over the limit', async () => {
      const started = await start()
      const bystander = await contractClient(started)
      const rude = await openRaw(started)
      rude.socket.write(encodeFrame({ opcode: TEXT_FRAME, claimedLength: MAX_REQUEST_BYTES + 1 }))
      rude.socket.write(Buffer.alloc(1024 * 1024))
      expect(await rude.ended).toEqual({ closeCode: 1009 })
      expect(await bystander.call('chats.list', {})).toMatchObject({ ok: true })
    })

    it(`refuses connections beyond ${MAX_CONNECTIONS} with 503 while the open ones are mid-way through large frames, and takes one again when one closes`, async () => {
      const started = await start()
      const open = []
      for (let i = 0; i < MAX_CONNECTIONS; i++) {
        const connection = await openRaw(started)
        connection.socket.write(encodeFrame({ opcode: TEXT_FRAME, claimedLength: MAX_REQUEST_BYTES }))
        connection.socket.write(Buffer.alloc(1024 * 1024))
        open.push(connection)
      }
      // Fifty in all, as many as took the host from 92 to 826 MiB when every one was let in.
      const extra = await Promise.all(
        Array.from({ length: 50 - MAX_CONNECTIONS }, () =>
          openRawWebSocket(started.host.port, started.protocols),
        ),
      )
      expect(extra.map(({ status }) => status)).toEqual(Array(50 - MAX_CONNECTIONS).fill(503))

      open[0]?.socket.destroy()
      await open[0]?.ended
      await expect
        .poll(async () => {
          const { status, connection } = await openRawWebSocket(started.host.port, started.protocols)
          connection?.socket.destroy()
          return status
        })
        .toBe(101)
    })

    it('stops reading a client that does not read its answers, and answers everything once it does', async () => {
      const started = await start()
      for (let i = 0; i < 60; i++) {
        started.atelier.chats.create({ title: `${'A chat with a long title '.repeat(7)}${i}` })
      }
      const requests = 4000
      const stalled = await openRaw(started)
      stalled.socket.pause()
      // The host runs in this process, so what it holds shows in this process's heap and buffers.
      const heldByTheHost = () => {
        const { heapUsed, arrayBuffers } = process.memoryUsage()
        return heapUsed + arrayBuffers
      }
      const before = heldByTheHost()
      stalled.socket.write(
        Buffer.concat(Array.from({ length: requests }, (_, i) => invokeFrame(i, 'chats.list', {}))),
      )
      await sleep(1000)
      // Answered unread, the 4,000 answers (each lists 60 chats, about 35 kB) would hold some 140 MB.
      expect(heldByTheHost() - before).toBeLessThan(40 * 1024 * 1024)

      const bystander = await contractClient(started)
      expect(await bystander.call('chats.list', {})).toMatchObject({ ok: true })

      stalled.socket.resume()
      await expect.poll(() => stalled.received.length, { timeout: 10_000 }).toBe(requests)
      expect(new Set(textMessages(stalled.received).map((message) => message.id)).size).toBe(requests)
    })

    it('drops a client that has stopped reading its events, and keeps serving the others', async () => {
      const started = await start()
      const reader = await contractClient(started)
      const stalled = await openRaw(started)
      stalled.socket.pause()
      // Each new chat broadcasts the whole list: 600 of them send the stalled client some 60 MB.
      for (let i = 0; i < 600; i++) {
        started.atelier.chats.create({ title: `${'A chat with a long title '.repeat(7)}${i}` })
        await nextTurn()
      }
      stalled.socket.resume()
      await stalled.ended
      await expect.poll(() => reader.events.length, { timeout: 10_000 }).toBe(600)
      expect(await reader.call('chats.list', {})).toMatchObject({ ok: true, value: expect.any(Array) })
      expect(textMessages(stalled.received).length).toBeLessThan(600)
    })
  })
})
