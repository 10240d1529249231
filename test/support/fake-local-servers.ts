import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

/** A path's answer: JSON, or text as it is; given the request's body. */
export type Routes = Record<string, (body: string) => unknown>

/** A real HTTP server on a free loopback port answering by path; anything else is a 404. */
export async function startFakeServer(routes: Routes, contentType = 'application/json'): Promise<Server> {
  const server = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk) => {
      body += chunk
    })
    request.on('end', () => {
      const route = routes[request.url ?? '']
      if (!route) return response.writeHead(404).end()
      const answer = route(body)
      response.writeHead(200, { 'content-type': contentType })
      response.end(typeof answer === 'string' ? answer : JSON.stringify(answer))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return server
}

export const portOf = (server: Server) => (server.address() as AddressInfo).port

export function stopServer(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()))
}

/** A port nothing listens on: one just freed. */
export async function closedPort(): Promise<number> {
  const server = await startFakeServer({})
  const port = portOf(server)
  await stopServer(server)
  return port
}

/** Shaped like Ollama: `/api/tags` lists the models, `/api/show` gives a context length for `withContext`. */
export function ollamaRoutes(models: string[], withContext: Record<string, number> = {}): Routes {
  return {
    '/api/tags': () => ({ models: models.map((name) => ({ name, size: 1 })) }),
    '/api/show': (body) => {
      const length = withContext[JSON.parse(body).model]
      return length ? { model_info: { 'llama.context_length': length } } : {}
    },
  }
}
