import { readFileSync } from 'node:fs'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { describe, expect, it } from 'vitest'
import { LOCAL_USER } from '../../../../src-main/app/create-atelier'
import type { ToolDisplay } from '../../../../src-shared/tools'
import { useToolHarness } from '../../../support/tool-harness'
import { page, redirect, useWebServers } from '../../../support/web-server'

const ARTICLE = readFileSync(new URL('../../../fixtures/web/article.html', import.meta.url), 'utf8')
const MIB = 1024 * 1024

type WebPageDisplay = Extract<ToolDisplay, { kind: 'web-page' }>

describe('web_fetch', () => {
  const harness = useToolHarness()
  const server = useWebServers()

  /** The harness with web_fetch allowed to reach the given hosts (the tests' loopback servers). */
  function withAllowedHosts(allowedHosts: string[]) {
    const setup = harness()
    setup.atelier.tools.settings.update(LOCAL_USER, 'web_fetch', { parameters: { allowedHosts } })
    const fetch = (url: string) => setup.run('web_fetch', { url })
    return { ...setup, fetch }
  }

  describe('pages', () => {
    it('turns an article into Markdown of its main content: the code fenced, the table kept, links absolute', async () => {
      const web = await server()
      web.route('/docs/json', page('text/html; charset=utf-8', ARTICLE))
      const { fetch } = withAllowedHosts(['127.0.0.1'])

      const result = await fetch(`${web.origin}/docs/json`)

      expect(result.isError).toBe(false)
      expect(result.content).toMatch(/^Title: Reading JSON in Python/)
      expect(result.content).toContain(`URL: ${web.origin}/docs/json`)
      expect(result.content).toContain('Open the file and hand it to `json.load`')
      expect(result.content).toContain(
        '```python\nimport json\n\nwith open("settings.json") as handle:\n    settings = json.load(handle)\nprint(settings["name"])\n```',
      )
      expect(result.content).toContain(
        '| JSON | Python |\n| --- | --- |\n| object | dict |\n| array | list |',
      )
      expect(result.content).toContain(`[the reference](${web.origin}/docs/reference/json.html#load)`)
      for (const clutter of [
        'Sign in to the nav menu',
        'Sponsored banner',
        'Example Footer Corp',
        'track-me-script',
      ])
        expect(result.content).not.toContain(clutter)
      const display = result.display as WebPageDisplay
      expect(display).toMatchObject({
        kind: 'web-page',
        url: `${web.origin}/docs/json`,
        title: expect.stringContaining('Reading JSON in Python'),
        status: 200,
        mediaType: 'text/html',
        bytes: Buffer.byteLength(ARTICLE),
        truncated: false,
      })
      expect(display.preview).toContain('```python')
    })

    it('converts a large page off the main thread: the event loop keeps turning meanwhile', async () => {
      const web = await server()
      const [, article = ''] = /<article>([\s\S]*)<\/article>/.exec(ARTICLE) ?? []
      const large = `<html><head><title>Large</title></head><body><article>${article.repeat(300)}</article></body></html>`
      web.route('/large', page('text/html', large))
      const { fetch } = withAllowedHosts(['127.0.0.1'])
      const delay = monitorEventLoopDelay({ resolution: 10 })

      delay.enable()
      const result = await fetch(`${web.origin}/large`)
      delay.disable()

      expect(result.content).toContain('| object | dict |')
      // On the main thread, Readability alone holds a page of this size for seconds.
      expect(delay.max / 1e6).toBeLessThan(1000)
    })

    it('cuts a 20 MiB page at the download cap and says so, and the result at the result cap', async () => {
      const web = await server()
      const line = `${'x'.repeat(1023)}\n`
      web.route('/huge.txt', (_request, response) => {
        response.writeHead(200, { 'Content-Type': 'text/plain' })
        // Written in pieces, as a real server streams: the client stops reading at its cap.
        let sent = 0
        const more = () => {
          while (sent < 20 * MIB) {
            sent += line.length * 1024
            if (!response.write(line.repeat(1024))) return void response.once('drain', more)
          }
          response.end()
        }
        response.on('error', () => {})
        more()
      })
      const { fetch } = withAllowedHosts(['127.0.0.1'])

      const result = await fetch(`${web.origin}/huge.txt`)

      expect(result.isError).toBe(false)
      expect(result.truncated).toBe(true)
      expect(result.content).toContain('Cut: the page is larger than the 5.0 MiB download cap')
      expect(result.content).toContain('[Output truncated: showing')
      expect(result.content.length).toBeLessThan(101_000)
      expect(result.display).toMatchObject({ kind: 'web-page', bytes: 5 * MIB, truncated: true })
    })

    it('follows five redirects and refuses a sixth', async () => {
      const web = await server()
      for (let hop = 1; hop <= 6; hop++) web.route(`/hop${hop}`, redirect(`/hop${hop + 1}`))
      web.route('/hop7', page('text/plain', 'arrived'))
      const { fetch } = withAllowedHosts(['127.0.0.1'])

      const five = await fetch(`${web.origin}/hop2`)
      expect(five.isError).toBe(false)
      expect(five.content).toContain(`URL: ${web.origin}/hop7`)
      expect(five.content).toContain(`Redirected from: ${web.origin}/hop2`)

      web.requests.length = 0
      const six = await fetch(`${web.origin}/hop1`)
      expect(six).toMatchObject({ isError: true, errorType: 'execution_failed' })
      expect(six.content).toMatch(/Too many redirects: more than 5/)
      expect(web.requests.map((request) => request.path)).toEqual([
        '/hop1',
        '/hop2',
        '/hop3',
        '/hop4',
        '/hop5',
        '/hop6',
      ])
    })

    it('does not follow a redirect to a file: URL, to one with credentials or to no URL at all', async () => {
      const web = await server()
      web.route('/to-file', redirect('file:///etc/passwd'))
      web.route('/to-credentials', redirect(`http://user:secret@127.0.0.1:${web.port}/inside`))
      web.route('/to-nonsense', redirect('http://[not-an-address/'))
      const { fetch } = withAllowedHosts(['127.0.0.1'])

      for (const path of ['/to-file', '/to-credentials', '/to-nonsense']) {
        const result = await fetch(`${web.origin}${path}`)
        expect(result, path).toMatchObject({ isError: true, errorType: 'execution_failed' })
        expect(result.content, path).toMatch(/^The page redirected to .*, which is not followed: /)
      }
      expect(web.requests.map((request) => request.path)).toEqual([
        '/to-file',
        '/to-credentials',
        '/to-nonsense',
      ])
    })

    it('stops a server that never answers at the timeout', async () => {
      const web = await server()
      web.route('/slow', () => {})
      const { atelier, fetch } = withAllowedHosts(['127.0.0.1'])
      atelier.tools.settings.update(LOCAL_USER, 'web_fetch', {
        parameters: { allowedHosts: ['127.0.0.1'], timeoutSeconds: 5 },
      })

      const started = Date.now()
      const result = await fetch(`${web.origin}/slow`)

      expect(result).toMatchObject({ isError: true, errorType: 'timeout' })
      expect(Date.now() - started).toBeLessThan(9_000)
    })

    it('returns a text/plain and a JSON body as they are', async () => {
      const web = await server()
      const text = 'Release 2.1\n\n* <b>not HTML</b>: kept as written\n'
      const json = '{"name":"atelier","versions":[1,2,3],"html":"<p>x</p>"}'
      web.route('/notes.txt', page('text/plain; charset=utf-8', text))
      web.route('/data.json', page('application/json', json))
      const { fetch } = withAllowedHosts(['127.0.0.1'])

      const plain = await fetch(`${web.origin}/notes.txt`)
      expect(plain.content.endsWith(`\n\n${text}`)).toBe(true)
      expect(plain.content).toContain('Type: text/plain')
      const data = await fetch(`${web.origin}/data.json`)
      expect(data.content.endsWith(`\n\n${json}`)).toBe(true)
      expect((data.display as WebPageDisplay).preview).toBe(`\`\`\`json\n${json}\n\`\`\``)
    })

    it('describes a PDF and an image by type and size instead of dumping them', async () => {
      const web = await server()
      web.route('/paper.pdf', page('application/pdf', Buffer.from('%PDF-1.7\n\u0000binary')))
      web.route('/logo.png', page('image/png', Buffer.alloc(2048, 1)))
      const { fetch } = withAllowedHosts(['127.0.0.1'])

      const pdf = await fetch(`${web.origin}/paper.pdf`)
      expect(pdf.content).toContain('The URL is a PDF document (application/pdf, 16 B)')
      expect(pdf.content).not.toContain('%PDF')
      const png = await fetch(`${web.origin}/logo.png`)
      expect(png.content).toContain('The URL is an image (image/png, 2.0 KiB)')
    })

    it('sends a fixed User-Agent naming Atelier and no cookie, even one the site set', async () => {
      const web = await server()
      web.route('/login', (_request, response) => {
        response.writeHead(302, { Location: '/account', 'Set-Cookie': 'session=secret' }).end()
      })
      web.route('/account', page('text/plain', 'account'))
      const { fetch } = withAllowedHosts(['127.0.0.1'])

      await fetch(`${web.origin}/login`)

      expect(web.requests).toHaveLength(2)
      for (const { headers } of web.requests) {
        expect(headers['user-agent']).toMatch(/^Mozilla\/5\.0 \(compatible; Atelier\/[\d.]+; web_fetch\)$/)
        expect(headers.cookie).toBeUndefined()
        expect(headers.authorization).toBeUndefined()
      }
    })

    it('reports an HTTP error status as a failed call with the page', async () => {
      const web = await server()
      const { fetch } = withAllowedHosts(['127.0.0.1'])

      const result = await fetch(`${web.origin}/missing`)

      expect(result.isError).toBe(true)
      expect(result.content).toContain('Status: HTTP 404 Not Found')
      expect(result.content).toContain('not found')
    })

    it('refuses URLs that are not http(s) or carry credentials, before anything is sent', async () => {
      const web = await server()
      const { fetch } = withAllowedHosts(['127.0.0.1'])

      for (const url of [
        'file:///etc/passwd',
        'ftp://example.com/',
        'not a url',
        `http://user:pw@127.0.0.1:${web.port}/`,
      ]) {
        expect(await fetch(url)).toMatchObject({ isError: true, errorType: 'validation_failed' })
      }
      expect(web.requests).toHaveLength(0)
    })
  })

  describe('address rules', () => {
    it('refuses loopback, localhost and metadata addresses with the allow-list empty: the server sees no request', async () => {
      const web = await server()
      const { fetch } = withAllowedHosts([])

      for (const url of [
        `http://127.0.0.1:${web.port}/`,
        `http://[::1]:${web.port}/`,
        `http://localhost:${web.port}/`,
        'http://localhost/',
        `http://127.1:${web.port}/`,
        `http://0x7f.0.0.1:${web.port}/`,
        `http://2130706433:${web.port}/`,
        `http://[::ffff:127.0.0.1]:${web.port}/`,
        `http://0.0.0.0:${web.port}/`,
        'http://169.254.169.254/latest/meta-data/',
        'http://10.0.0.1/',
        'http://172.16.0.1/',
        'http://192.168.1.1/',
        'http://100.64.0.1/',
        'http://[fd00::1]/',
        'http://[fe80::1]/',
      ]) {
        const result = await fetch(url)
        expect(result, url).toMatchObject({ isError: true, errorType: 'blocked' })
        expect(result.content, url).toMatch(
          /^Refused to connect to .*(loopback|this host|private|link-local|carrier-grade)/,
        )
      }
      expect(web.requests).toHaveLength(0)
    })

    it('refuses a redirect from an allowed host to 127.0.0.1 before connecting to it', async () => {
      const allowed = await server()
      const inside = await server()
      allowed.route('/go', redirect(`http://127.0.0.1:${inside.port}/secret`))
      const { fetch } = withAllowedHosts(['localhost'])

      const result = await fetch(`http://localhost:${allowed.port}/go`)

      expect(result).toMatchObject({ isError: true, errorType: 'blocked' })
      expect(result.content).toContain('Refused to connect to 127.0.0.1: it is a loopback address')
      expect(allowed.requests.map((request) => request.path)).toEqual(['/go'])
      expect(inside.requests).toHaveLength(0)
    })

    it('lets through the hosts, addresses and CIDR blocks of allowedHosts, and no others', async () => {
      const web = await server()
      web.route('/', page('text/plain', 'hello'))
      const cases: [string[], string][] = [
        [['localhost'], 'localhost'],
        [['127.0.0.1'], '127.0.0.1'],
        [['127.0.0.0/8'], '127.0.0.1'],
        [['::1'], '[::1]'],
        [['Example.test', ' ::1/128 '], '[::1]'],
      ]
      for (const [allowed, host] of cases) {
        const { fetch } = withAllowedHosts(allowed)
        expect((await fetch(`http://${host}:${web.port}/`)).content, allowed.join()).toContain('hello')
      }
      const { fetch } = withAllowedHosts(['127.0.0.1'])
      expect(await fetch(`http://[::1]:${web.port}/`)).toMatchObject({ errorType: 'blocked' })
    })

    it('fails with the entry named when allowedHosts holds something that is not a host or a block', async () => {
      const web = await server()
      const { fetch } = withAllowedHosts(['127.0.0.1/33'])

      const result = await fetch(`http://127.0.0.1:${web.port}/`)

      expect(result.content).toContain('The allowedHosts entry "127.0.0.1/33" is not a host name')
      expect(web.requests).toHaveLength(0)
    })
  })
})
