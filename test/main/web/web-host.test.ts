import { mkdirSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { type Atelier, createAtelier } from '../../../src-main/app/create-atelier'
import { startWebHost, type WebHost } from '../../../src-main/web/web-host'
import type { ServerMessage } from '../../../src-shared/web-protocol'
import { useTempDirs } from '../../support/temp-dir'

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
function upgradeStatus(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers })
    socket.on('open', () => {
      socket.close()
      resolve(101)
    })
    socket.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0))
    socket.on('error', reject)
  })
}

describe('startWebHost', () => {
  const tempDir = useTempDirs()
  let atelier: Atelier | undefined
  let host: WebHost | undefined
  afterEach(async () => {
    await host?.close()
    atelier?.close()
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
    const origin = `http://${authority}`
    const cookieName = `atelier_token_${host.port}`
    const cookie = `${cookieName}=${host.token}`
    return { host, authority, origin, cookieName, cookie, authorized: { host: authority, origin, cookie } }
  }
  type Started = Awaited<ReturnType<typeof start>>

  it('prints a loopback URL that carries a long random token', async () => {
    const { host } = await start()
    expect(host.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{43}$/)
    const other = await startWebHost({ atelier: atelier as Atelier, rendererDir: tempDir() })
    expect(other.token).not.toBe(host.token)
    await other.close()
  })

  describe('over HTTP', () => {
    it('trades the token in the URL for an HttpOnly SameSite cookie and a redirect', async () => {
      const { host, authority } = await start()
      const reply = await get(host.port, `/?token=${host.token}`, { host: authority })
      expect(reply.status).toBe(302)
      expect(reply.headers.location).toBe('/')
      expect(String(reply.headers['set-cookie'])).toMatch(
        new RegExp(`^atelier_token_${host.port}=${host.token}; Path=/; HttpOnly; SameSite=Strict`),
      )
    })

    it('serves the renderer with the CSP to a request with the token cookie', async () => {
      const { host, authority, origin, cookie } = await start()
      const page = await get(host.port, '/', { host: authority, cookie })
      expect(page.status).toBe(200)
      expect(page.body).toContain('<title>Atelier</title>')
      expect(page.headers['content-security-policy']).toContain("default-src 'none'; script-src 'self'")
      expect(page.headers['content-security-policy']).toContain(`connect-src 'self' ws://${authority}`)
      const script = await get(host.port, '/assets/app.js', { host: authority, origin, cookie })
      expect(script.status).toBe(200)
      expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8')
    })

    it.each<[string, (c: Started) => { path: string; headers: Record<string, string> }]>([
      ['no token', (c) => ({ path: '/', headers: { host: c.authority } })],
      [
        'a wrong token',
        (c) => ({ path: '/', headers: { host: c.authority, cookie: `${c.cookieName}=wrong` } }),
      ],
      [
        'a wrong token of the right length',
        (c) => ({ path: `/?token=${'x'.repeat(43)}`, headers: { host: c.authority } }),
      ],
      [
        'a foreign Origin',
        (c) => ({ path: '/', headers: { ...c.authorized, origin: 'http://evil.example' } }),
      ],
      [
        'a foreign Host (DNS rebinding)',
        (c) => ({ path: '/', headers: { ...c.authorized, host: `evil.example:${c.host.port}` } }),
      ],
      [
        'localhost instead of the printed host',
        (c) => ({ path: '/', headers: { ...c.authorized, host: `localhost:${c.host.port}` } }),
      ],
    ])('refuses %s with 403', async (_case, build) => {
      const started = await start()
      const { path, headers } = build(started)
      const reply = await get(started.host.port, path, headers)
      expect(reply.status).toBe(403)
      expect(reply.body).not.toContain('<title>Atelier</title>')
    })

    it('finds nothing outside the renderer folder', async () => {
      const { host, authority, cookie } = await start()
      for (const path of ['/../secret.txt', '/%2e%2e/secret.txt', '/assets/%2e%2e%2f%2e%2e%2fsecret.txt']) {
        const reply = await get(host.port, path, { host: authority, cookie })
        expect(reply.status).toBe(404)
        expect(reply.body).not.toContain('outside the renderer')
      }
    })
  })

  describe('over WebSocket', () => {
    it.each<[string, (c: Started) => Record<string, string>]>([
      ['no token', (c) => ({ host: c.authority, origin: c.origin })],
      ['a wrong token', (c) => ({ ...c.authorized, cookie: `${c.cookieName}=wrong` })],
      ['a foreign Origin', (c) => ({ ...c.authorized, origin: 'http://evil.example' })],
      ['a foreign Host (DNS rebinding)', (c) => ({ ...c.authorized, host: `evil.example:${c.host.port}` })],
    ])('refuses an upgrade with %s with 403', async (_case, build) => {
      const started = await start()
      expect(await upgradeStatus(`ws://${started.authority}/api`, build(started))).toBe(403)
    })

    it('answers contract calls and pushes events to an authorized client', async () => {
      const { authority, origin, cookie } = await start()
      const socket = new WebSocket(`ws://${authority}/api`, { headers: { origin, cookie } })
      const messages: ServerMessage[] = []
      const next = (predicate: (message: ServerMessage) => boolean) =>
        new Promise<ServerMessage>((resolve) => {
          const found = messages.find(predicate)
          if (found) return resolve(found)
          socket.on('message', function listener(data) {
            const message = JSON.parse(String(data)) as ServerMessage
            if (!predicate(message)) return
            socket.off('message', listener)
            resolve(message)
          })
        })
      socket.on('message', (data) => messages.push(JSON.parse(String(data)) as ServerMessage))
      await new Promise((resolve) => socket.once('open', resolve))

      socket.send(
        JSON.stringify({ type: 'invoke', id: 1, method: 'chats.create', request: { title: 'Via socket' } }),
      )
      expect(await next((m) => m.type === 'result' && m.id === 1)).toMatchObject({
        ok: true,
        value: { title: 'Via socket' },
      })
      expect(await next((m) => m.type === 'event')).toMatchObject({
        event: 'chats.changed',
        payload: { chats: [{ title: 'Via socket' }] },
      })

      socket.send(JSON.stringify({ type: 'invoke', id: 2, method: 'chats.create', request: { title: 5 } }))
      expect(await next((m) => m.type === 'result' && m.id === 2)).toMatchObject({
        ok: false,
        error: { code: 'validation_failed' },
      })
      expect(atelier?.chats.list()).toHaveLength(1)
      socket.close()
    })
  })
})

describe('startWebHost robustness', () => {
  const tempDir = useTempDirs()

  it('answers a malformed request target with 403 and keeps serving', async () => {
    const atelier = createAtelier({ dataDir: tempDir() })
    const host = await startWebHost({ atelier, rendererDir: tempDir() })
    try {
      const authority = `127.0.0.1:${host.port}`
      for (const path of ['http://[', '//[']) {
        expect((await get(host.port, path, { host: authority })).status).toBe(403)
      }
      const cookie = `atelier_token_${host.port}=${host.token}`
      expect((await get(host.port, '/missing', { host: authority, cookie })).status).toBe(404)
    } finally {
      await host.close()
      atelier.close()
    }
  })
})
