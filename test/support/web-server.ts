import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach } from 'vitest'

export type Route = (request: IncomingMessage, response: ServerResponse) => void

/** A local web server that answers by path and counts every request it receives. */
export interface WebServer {
  port: number
  /** `http://127.0.0.1:PORT`. */
  origin: string
  /** Every request received, in order: the path and the headers sent. */
  requests: { path: string; headers: IncomingHttpHeaders }[]
  route(path: string, answer: Route): void
}

/**
 * Starts servers on every loopback address (`::`, dual stack, so 127.0.0.1, ::1 and localhost all
 * reach them) and closes them, with their connections, after each test. An unknown path is a 404.
 */
export function useWebServers(): () => Promise<WebServer> {
  const closers: (() => Promise<void>)[] = []
  afterEach(async () => {
    await Promise.all(closers.splice(0).map((close) => close()))
  })
  return async () => {
    const routes = new Map<string, Route>()
    const requests: WebServer['requests'] = []
    const server = createServer((request, response) => {
      const path = request.url ?? '/'
      requests.push({ path, headers: request.headers })
      const answer = routes.get(path.split('?')[0] ?? path)
      if (answer) return answer(request, response)
      response.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found')
    })
    await new Promise<void>((resolve) => server.listen(0, '::', resolve))
    closers.push(
      () =>
        new Promise((resolve) => {
          server.closeAllConnections()
          server.close(() => resolve())
        }),
    )
    const { port } = server.address() as AddressInfo
    return {
      port,
      origin: `http://127.0.0.1:${port}`,
      requests,
      route: (path, answer) => routes.set(path, answer),
    }
  }
}

/** A route that sends `body` with `type`. */
export function page(type: string, body: string | Buffer): Route {
  return (_request, response) => {
    response.writeHead(200, { 'Content-Type': type }).end(body)
  }
}

/** A route that redirects to `location`. */
export function redirect(location: string, status = 302): Route {
  return (_request, response) => {
    response.writeHead(status, { Location: location }).end()
  }
}
