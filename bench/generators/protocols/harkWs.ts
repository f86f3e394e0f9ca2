/**
 * Room protocol "hark-ws": Hark's WebSocket binding of terminal protocol v1 (spec/websocket.md).
 * One connection per terminal to `wss://host:port/v1/connect?token=T`, ready once the `session`
 * event arrives (the terminal is in its room then). A bench frame goes up as an uplink frame
 * (V|level byte, then the frame as the "Opus packet") and comes down behind the 6-byte downlink
 * header, which the hook strips. The room comes from the seeded client-to-room mapping, not from
 * the hook. Options: path (default /v1/connect).
 */
import WebSocket from 'ws'
import type { RoomProtocol } from '../roomProtocol.js'

/** Voiced, −20 dBov: what a talking terminal sends. */
const LEVEL_BYTE = 0x80 | 20
const DOWNLINK_HEADER_BYTES = 6

const protocol: RoomProtocol = {
  name: 'hark-ws',
  connect: (member, target, onFrame) =>
    new Promise((resolve, reject) => {
      if (!member.credential) {
        reject(new Error(`${member.clientId} has no token`))
        return
      }
      const path = String(target.options.path ?? '/v1/connect')
      const ws = new WebSocket(`wss://${target.host}:${target.port}${path}?token=${encodeURIComponent(member.credential)}`, {
        rejectUnauthorized: false,
        perMessageDeflate: false,
      })
      ws.binaryType = 'nodebuffer'
      let ready = false
      ws.on('message', (data: Buffer, isBinary: boolean) => {
        if (isBinary) {
          if (data.length > DOWNLINK_HEADER_BYTES && data[0] === 0x01) onFrame(data.subarray(DOWNLINK_HEADER_BYTES))
          return
        }
        if (ready) return
        const event = JSON.parse(data.toString()) as { type: string; room?: string | null }
        if (event.type !== 'session') return
        if (event.room === null) {
          reject(new Error(`${member.clientId} has no room mapping`))
          ws.terminate()
          return
        }
        ready = true
        // Later errors end in lost frames, which the delivery ratio shows.
        ws.on('error', () => {})
        resolve({
          send: (frame) => {
            const up = Buffer.allocUnsafe(frame.length + 1)
            up[0] = LEVEL_BYTE
            frame.copy(up, 1)
            ws.send(up, { binary: true })
          },
          backlog: () => ws.bufferedAmount,
          close: () => ws.terminate(),
        })
      })
      ws.once('unexpected-response', (_req, res) => {
        reject(new Error(`upgrade refused: HTTP ${res.statusCode}`))
        ws.terminate()
      })
      ws.once('close', (code, reason) => {
        if (!ready) reject(new Error(`closed before session: ${code} ${reason.toString()}`))
      })
      ws.once('error', (e) => {
        if (!ready) reject(e)
      })
    }),
}

export default protocol
