import type { LookupAddress } from 'node:dns'
import { describe, expect, it } from 'vitest'
import type { HostResolver } from '../../../../src-main/tools/web/address-rules'
import { safeGet } from '../../../../src-main/tools/web/safe-get'
import { page, redirect, useWebServers } from '../../../support/web-server'

/** A DNS of the test's own: each name answers with its list, and every question is counted. */
function resolverOf(answers: Record<string, string[]>) {
  const asked: string[] = []
  const resolve: HostResolver = async (hostname) => {
    asked.push(hostname)
    const addresses = answers[hostname]
    if (!addresses) throw Object.assign(new Error(`no such host ${hostname}`), { code: 'ENOTFOUND' })
    return addresses.map((address): LookupAddress => ({ address, family: address.includes(':') ? 6 : 4 }))
  }
  return { resolve, asked }
}

function get(url: string, allowedHosts: string[], resolve?: HostResolver) {
  return safeGet(url, { allowedHosts, maxBytes: 1024 * 1024, signal: new AbortController().signal, resolve })
}

describe('safeGet', () => {
  const server = useWebServers()

  describe('address rules on resolved names', () => {
    it('refuses a host name that resolves to 127.0.0.1 before connecting: the server sees nothing', async () => {
      const web = await server()
      const dns = resolverOf({ 'innocent.example': ['127.0.0.1'] })

      await expect(get(`http://innocent.example:${web.port}/`, [], dns.resolve)).rejects.toMatchObject({
        code: 'blocked',
        message: expect.stringContaining(
          'Refused to connect to innocent.example (127.0.0.1): it is a loopback address',
        ),
      })
      expect(web.requests).toHaveLength(0)
    })

    it('refuses a name with one public and one private answer, whichever the connection would pick', async () => {
      const web = await server()
      const dns = resolverOf({ 'split.example': ['93.184.216.34', '10.1.2.3'] })

      await expect(get(`http://split.example:${web.port}/`, [], dns.resolve)).rejects.toMatchObject({
        code: 'blocked',
        message: expect.stringContaining('10.1.2.3'),
      })
    })

    it('connects to the very address it checked: one lookup per hop, none by the socket', async () => {
      const web = await server()
      web.route('/', page('text/plain', 'pinned'))
      // Nobody but this resolver knows the name: the socket can only have used its answer.
      const dns = resolverOf({ 'pinned.example': ['127.0.0.1'] })

      const response = await get(`http://pinned.example:${web.port}/`, ['127.0.0.0/8'], dns.resolve)

      expect(response.body.toString()).toBe('pinned')
      expect(dns.asked).toEqual(['pinned.example'])
      expect(web.requests[0]?.headers.host).toBe(`pinned.example:${web.port}`)
    })

    it('checks the resolved address of every redirect hop', async () => {
      const web = await server()
      const inside = await server()
      web.route('/go', redirect(`http://rebound.example:${inside.port}/admin`))
      const dns = resolverOf({ 'allowed.example': ['127.0.0.1'], 'rebound.example': ['127.0.0.1'] })

      await expect(
        get(`http://allowed.example:${web.port}/go`, ['allowed.example'], dns.resolve),
      ).rejects.toMatchObject({
        code: 'blocked',
        message: expect.stringContaining('rebound.example (127.0.0.1)'),
      })
      expect(dns.asked).toEqual(['allowed.example', 'rebound.example'])
      expect(inside.requests).toHaveLength(0)
    })

    it('says so when a name does not resolve', async () => {
      const dns = resolverOf({})

      await expect(get('http://nowhere.example/', [], dns.resolve)).rejects.toMatchObject({
        code: 'execution_failed',
        message: expect.stringContaining('Could not fetch http://nowhere.example/'),
      })
    })
  })

  describe('bodies', () => {
    it('inflates a gzip body and counts the cap on what it inflates to', async () => {
      const { gzipSync } = await import('node:zlib')
      const web = await server()
      web.route('/bomb', (_request, response) => {
        response.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Encoding': 'gzip' })
        response.end(gzipSync(Buffer.alloc(8 * 1024 * 1024, 'a')))
      })

      const response = await get(`${web.origin}/bomb`, ['127.0.0.1'])

      expect(response.body.length).toBe(1024 * 1024)
      expect(response.truncated).toBe(true)
    })
  })
})
