/**
 * Where the browser comes back after the person signs in: an HTTP listener on 127.0.0.1 (RFC 8252's
 * loopback redirect for native apps), at `/callback`, for one sign-in. It checks `state` — a
 * callback that does not carry the one this sign-in sent is refused and the wait goes on, so a page
 * elsewhere cannot complete someone's sign-in — and answers the browser only once the code has been
 * exchanged, so the tab says whether signing in really worked.
 */
import { createServer, type Server } from 'node:http'
import { AtelierError } from '../../../../src-shared/errors'

export const CALLBACK_PATH = '/callback'

export interface CallbackArrival {
  code: string
  /** Tells the browser how it ended; the listener closes after. */
  answer(outcome: { ok: true } | { ok: false; message: string }): void
}

export interface LoopbackCallback {
  redirectUrl: string
  /** The authorization code; rejects when the server sent an error, the wait timed out, or it was closed. */
  arrival: Promise<CallbackArrival>
  /** Stops waiting (a new sign-in replaces this one, or the app closes). */
  close(reason: Error): void
}

export async function listenForCallback({
  state,
  port,
  timeoutMs,
  serverName,
}: {
  state: string
  /** The port to try first (the one the client was registered with); any free one otherwise. */
  port: number | undefined
  timeoutMs: number
  serverName: string
}): Promise<LoopbackCallback> {
  let settle: { resolve(arrival: CallbackArrival): void; reject(error: Error): void } | undefined
  const arrival = new Promise<CallbackArrival>((resolve, reject) => {
    settle = { resolve, reject }
  })
  // Whoever awaits it handles its rejection; until then it must not count as unhandled.
  arrival.catch(() => {})
  let done = false
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1')
    if (url.pathname !== CALLBACK_PATH || request.method !== 'GET') {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found')
      return
    }
    const page = (status: number, title: string, text: string) =>
      response
        .writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
        .end(resultPage(title, text))
    if (done || url.searchParams.get('state') !== state) {
      page(400, 'Sign-in refused', 'This sign-in link is not the one Atelier is waiting for.')
      return
    }
    done = true
    const error = url.searchParams.get('error')
    const code = url.searchParams.get('code')
    if (error || !code) {
      const description = url.searchParams.get('error_description')
      const message = `The authorization server refused the sign-in: ${error ?? 'no code'}${description ? ` (${description})` : ''}`
      page(400, 'Sign-in failed', message)
      finish()
      settle?.reject(new AtelierError('sign_in_failed', message))
      return
    }
    // The exchange may take its time; the browser is answered when it ends, however long that is.
    clearTimeout(timer)
    settle?.resolve({
      code,
      answer: (outcome) => {
        if (outcome.ok) page(200, 'Signed in', 'Signed in — you can close this tab.')
        else page(400, 'Sign-in failed', outcome.message)
        finish()
      },
    })
  })
  const timer = setTimeout(() => {
    close(
      new AtelierError(
        'sign_in_timeout',
        `Sign-in to “${serverName}” was not completed within ${duration(timeoutMs)}; sign in again.`,
      ),
    )
  }, timeoutMs)
  timer.unref()
  const finish = () => {
    clearTimeout(timer)
    // The page is sent first; connections still open (keep-alive) are ended with it.
    server.close()
    setImmediate(() => server.closeAllConnections())
  }
  const close = (reason: Error) => {
    if (!done) settle?.reject(reason)
    done = true
    finish()
  }
  const bound = await listen(server, port)
  return { redirectUrl: `http://127.0.0.1:${bound}${CALLBACK_PATH}`, arrival, close }
}

/** Listens on `port` if it is free, else on any free port. */
async function listen(server: Server, port: number | undefined): Promise<number> {
  const attempt = (on: number) =>
    new Promise<number>((resolve, reject) => {
      const failed = (error: Error) => reject(error)
      server.once('error', failed)
      server.listen(on, '127.0.0.1', () => {
        server.off('error', failed)
        const address = server.address()
        resolve(typeof address === 'object' && address ? address.port : on)
      })
    })
  if (port) {
    try {
      return await attempt(port)
    } catch {
      // Taken: the client is registered again for whichever port is free.
    }
  }
  return attempt(0)
}

function duration(ms: number): string {
  if (ms < 1000) return `${ms} ms`
  const seconds = Math.round(ms / 1000)
  return seconds >= 60 && seconds % 60 === 0 ? `${seconds / 60} minutes` : `${seconds} seconds`
}

function resultPage(title: string, text: string): string {
  const html = (value: string) => value.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`)
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${html(title)} — Atelier</title></head><body style="font-family: system-ui, sans-serif; margin: 4rem auto; max-width: 32rem"><h1>${html(title)}</h1><p>${html(text)}</p></body></html>`
}
