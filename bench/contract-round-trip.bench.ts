import WebSocket, { WebSocketServer } from 'ws'
import { startWebHost } from '../src-main/web/web-host'
import { webSocketProtocols } from '../src-shared/web-protocol'
import { type Benchmark, measure, sized, withBenchAtelier } from './measure'

const CALLS = sized(2000, 10)
const ROUNDS = 5

function requester(socket: WebSocket) {
  const pending = new Map<number, () => void>()
  socket.on('message', (data) => {
    const { id } = JSON.parse(String(data)) as { id: number }
    pending.get(id)?.()
    pending.delete(id)
  })
  return (id: number, message: object) =>
    new Promise<void>((resolve) => {
      pending.set(id, resolve)
      socket.send(JSON.stringify({ ...message, id }))
    })
}

const open = (socket: WebSocket) => new Promise((resolve) => socket.once('open', resolve))

const benchmark: Benchmark = async () => {
  return withBenchAtelier(async (atelier) => {
    for (let i = 0; i < 20; i++) atelier.chats.create({ title: `Chat ${i}` })
    const host = await startWebHost({ atelier, rendererDir: atelier.dataDir })
    const authority = `127.0.0.1:${host.port}`
    const echo = new WebSocketServer({ host: '127.0.0.1', port: 0 })
    const chats = atelier.chats.list()
    echo.on('connection', (ws) =>
      ws.on('message', (data) => {
        const { id } = JSON.parse(String(data)) as { id: number }
        ws.send(JSON.stringify({ type: 'result', id, ok: true, value: chats }))
      }),
    )
    await new Promise((resolve) => echo.once('listening', resolve))
    const echoPort = (echo.address() as { port: number }).port

    try {
      const contractSocket = new WebSocket(`ws://${authority}/api`, webSocketProtocols(host.token), {
        headers: { origin: `http://${authority}` },
      })
      const echoSocket = new WebSocket(`ws://127.0.0.1:${echoPort}`)
      await Promise.all([open(contractSocket), open(echoSocket)])
      const viaHost = requester(contractSocket)
      const viaEcho = requester(echoSocket)
      const request = { type: 'invoke', method: 'chats.list', request: {} }

      const overSocket = await measure(CALLS, ROUNDS, (i) => viaHost(i, request))
      const bareSocket = await measure(CALLS, ROUNDS, (i) => viaEcho(i, request))
      const dispatched = await measure(CALLS, ROUNDS, () => atelier.dispatch('chats.list', {}))
      const direct = await measure(CALLS, ROUNDS, () => atelier.chats.list())
      contractSocket.close()
      echoSocket.close()
      return [
        {
          name: 'chats.list over the web host',
          ours: { label: 'web host', msPerOp: overSocket },
          reference: { label: 'bare ws, canned reply', msPerOp: bareSocket },
        },
        {
          name: 'chats.list through the dispatcher',
          ours: { label: 'dispatch()', msPerOp: dispatched },
          reference: { label: 'service call', msPerOp: direct },
        },
      ]
    } finally {
      echo.close()
      await host.close()
    }
  })
}

export default benchmark
