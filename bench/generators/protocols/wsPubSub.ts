/**
 * Room protocol "ws-pubsub": one WebSocket per terminal to
 * `wss://host:port{path}?room=R&client=C[&token=T]`, each binary message a bench frame as is,
 * every message re-sent to the other members of the room. Spoken by the bare uWS fan-out peer.
 * Options: path (default /v1/connect), tls (default true; self-signed certificates accepted).
 */
import WebSocket from 'ws'
import type { RoomProtocol } from '../roomProtocol.js'

const protocol: RoomProtocol = {
  name: 'ws-pubsub',
  connect: (member, target, onFrame) =>
    new Promise((resolve, reject) => {
      const tls = target.options.tls !== false
      const path = String(target.options.path ?? '/v1/connect')
      const q = new URLSearchParams({ room: member.room, client: member.clientId })
      if (member.credential) q.set('token', member.credential)
      const ws = new WebSocket(`${tls ? 'wss' : 'ws'}://${target.host}:${target.port}${path}?${q}`, {
        rejectUnauthorized: false,
        perMessageDeflate: false,
      })
      ws.binaryType = 'nodebuffer'
      ws.on('message', (data: Buffer, isBinary: boolean) => {
        if (isBinary) onFrame(data)
      })
      ws.once('open', () => {
        // Later errors end in lost frames, which the delivery ratio shows.
        ws.on('error', () => {})
        resolve({
          send: (frame) => ws.send(frame),
          backlog: () => ws.bufferedAmount,
          close: () => ws.terminate(),
        })
      })
      ws.once('unexpected-response', (_req, res) => {
        reject(new Error(`upgrade refused: HTTP ${res.statusCode}`))
        ws.terminate()
      })
      ws.once('error', (e) => reject(e))
    }),
}

export default protocol
