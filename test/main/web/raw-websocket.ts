/**
 * A WebSocket client written by hand over node:net, so a test can send the frames no well-behaved
 * library would: bad UTF-8, reserved opcodes, unmasked frames, lengths it never sends.
 */
import { randomBytes } from 'node:crypto'
import { connect, type Socket } from 'node:net'

/** Opcodes of RFC 6455 §5.2. */
export const TEXT_FRAME = 0x1
export const CLOSE_FRAME = 0x8

export interface FrameSpec {
  opcode: number
  payload?: Buffer
  /** A client must mask its frames (RFC 6455 §5.3); false sends one as a server would. */
  masked?: boolean
  /** The payload length the header claims; the payload's own by default. */
  claimedLength?: number
}

/** One final frame, byte for byte: FIN and opcode, mask bit and length, masking key, payload. */
export function encodeFrame({
  opcode,
  payload = Buffer.alloc(0),
  masked = true,
  claimedLength = payload.length,
}: FrameSpec): Buffer {
  const maskBit = masked ? 0x80 : 0
  let header: Buffer
  if (claimedLength < 126) {
    header = Buffer.from([0x80 | opcode, maskBit | claimedLength])
  } else if (claimedLength <= 0xffff) {
    header = Buffer.from([0x80 | opcode, maskBit | 126, 0, 0])
    header.writeUInt16BE(claimedLength, 2)
  } else {
    header = Buffer.from([0x80 | opcode, maskBit | 127, 0, 0, 0, 0, 0, 0, 0, 0])
    header.writeBigUInt64BE(BigInt(claimedLength), 2)
  }
  if (!masked) return Buffer.concat([header, payload])
  const key = randomBytes(4)
  const maskedPayload = Buffer.alloc(payload.length)
  for (let i = 0; i < payload.length; i++) maskedPayload[i] = (payload[i] as number) ^ (key[i % 4] as number)
  return Buffer.concat([header, key, maskedPayload])
}

/** A text frame carrying one contract call, as the browser's bridge sends it. */
export function invokeFrame(id: number, method: string, request: unknown): Buffer {
  return encodeFrame({
    opcode: TEXT_FRAME,
    payload: Buffer.from(JSON.stringify({ type: 'invoke', id, method, request })),
  })
}

export interface ReceivedFrame {
  opcode: number
  payload: Buffer
}

export interface RawConnection {
  socket: Socket
  /** The frames the host has sent so far (a host's frames are never masked). */
  received: ReceivedFrame[]
  /** Resolves when the connection has ended, with the code of the host's close frame if it sent one. */
  ended: Promise<{ closeCode: number | undefined }>
}

/**
 * Sends the handshake for `/api` offering `protocols`, as the browser would from the host's own
 * page; resolves with the response's status and, on 101, the open connection.
 */
export function openRawWebSocket(
  port: number,
  protocols: string[],
): Promise<{ status: number; connection?: RawConnection }> {
  const authority = `127.0.0.1:${port}`
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    let head = Buffer.alloc(0)
    const onHead = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk])
      const end = head.indexOf('\r\n\r\n')
      if (end === -1) return
      socket.off('data', onHead)
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head.toString('latin1'))?.[1] ?? 0)
      if (status !== 101) {
        socket.destroy()
        return resolve({ status })
      }
      resolve({ status, connection: readFrames(socket, head.subarray(end + 4)) })
    }
    socket.on('data', onHead)
    socket.once('error', reject)
    socket.write(
      [
        'GET /api HTTP/1.1',
        `Host: ${authority}`,
        `Origin: http://${authority}`,
        'Upgrade: websocket',
        'Connection: Upgrade',
        `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`,
        'Sec-WebSocket-Version: 13',
        `Sec-WebSocket-Protocol: ${protocols.join(', ')}`,
        '',
        '',
      ].join('\r\n'),
    )
  })
}

function readFrames(socket: Socket, alreadyRead: Buffer): RawConnection {
  const received: ReceivedFrame[] = []
  let unparsed = alreadyRead
  const parse = () => {
    for (;;) {
      if (unparsed.length < 2) return
      const shortLength = (unparsed[1] as number) & 0x7f
      const headerLength = shortLength === 126 ? 4 : shortLength === 127 ? 10 : 2
      if (unparsed.length < headerLength) return
      const length =
        shortLength === 126
          ? unparsed.readUInt16BE(2)
          : shortLength === 127
            ? Number(unparsed.readBigUInt64BE(2))
            : shortLength
      if (unparsed.length < headerLength + length) return
      received.push({
        opcode: (unparsed[0] as number) & 0x0f,
        payload: unparsed.subarray(headerLength, headerLength + length),
      })
      unparsed = unparsed.subarray(headerLength + length)
    }
  }
  parse()
  socket.on('data', (chunk: Buffer) => {
    unparsed = unparsed.length === 0 ? chunk : Buffer.concat([unparsed, chunk])
    parse()
  })
  // A reset after the host's close frame is still an end; what counts is what was received.
  socket.on('error', () => {})
  const ended = new Promise<{ closeCode: number | undefined }>((resolve) =>
    socket.once('close', () => {
      const close = received.find((frame) => frame.opcode === CLOSE_FRAME)
      resolve({ closeCode: close && close.payload.length >= 2 ? close.payload.readUInt16BE(0) : undefined })
    }),
  )
  return { socket, received, ended }
}
