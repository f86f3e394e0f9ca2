/**
 * Room protocol "raw-mqtt": one MQTT 3.1.1 connection per terminal on a plain socket, with a
 * hand-written encoder for the few packets it sends and a scanner for what it receives — far
 * cheaper per message than mqtt.js, so a generator core can keep a server core saturated. The
 * same hook drives Hark and the brokers, differing only in topic scheme (`options.scheme`):
 *
 *   - "hark":   publish uplink frames (V|level byte + bench frame) on hark/{clientId}/up/audio;
 *               nothing to subscribe (Hark does it at CONNECT); frames arrive on
 *               hark/{clientId}/down/audio behind a 6-byte source header (spec/mqtt.md); ready
 *               once the `session` event arrived on hark/{clientId}/down/events (QoS 1, acknowledged).
 *   - "pubsub": publish bench frames to `options.topic` ({room} replaced) and subscribe to it at
 *               QoS 0; ready after SUBACK. A broker echoes a publisher's own frames; the generator
 *               ignores those by sender index.
 *
 * User name = clientId and password = the credential when the member has one; clean session,
 * keepalive 120 s (the run is shorter), no reconnect.
 */
import { connect as netConnect, type Socket } from 'node:net'
import { varint, varintSize, writeVarint } from '../../../transports/mqtt/varint.js'
import type { RoomProtocol } from '../roomProtocol.js'

const LEVEL_BYTE = 0x80 | 20
const DOWNLINK_HEADER_BYTES = 6

const utf8 = (s: string): Buffer => {
  const b = Buffer.from(s, 'utf8')
  return Buffer.concat([Buffer.from([b.length >> 8, b.length & 0xff]), b])
}

const packet = (first: number, body: Buffer): Buffer => Buffer.concat([Buffer.from([first, ...varint(body.length)]), body])

const connectPacket = (clientId: string, credential: string | null): Buffer => {
  const flags = 0x02 | (credential !== null ? 0xc0 : 0)
  return packet(
    0x10,
    Buffer.concat([
      utf8('MQTT'),
      Buffer.from([4, flags, 0, 120]),
      utf8(clientId),
      ...(credential !== null ? [utf8(clientId), utf8(credential)] : []),
    ]),
  )
}

const protocol: RoomProtocol = {
  name: 'raw-mqtt',
  connect: (member, target, onFrame) =>
    new Promise((resolve, reject) => {
      const hark = target.options.scheme === 'hark'
      const roomTopic = String(target.options.topic ?? 'rooms/{room}').replaceAll('{room}', member.room)
      const publishTopic = hark ? `hark/${member.clientId}/up/audio` : roomTopic
      const audioTopic = Buffer.from(hark ? `hark/${member.clientId}/down/audio` : roomTopic)
      const eventsTopic = Buffer.from(`hark/${member.clientId}/down/events`)
      const topicBytes = utf8(publishTopic)
      const prefix = hark ? 1 : 0
      const skip = hark ? DOWNLINK_HEADER_BYTES : 0

      const socket: Socket = netConnect({ host: target.host, port: target.port, noDelay: true })
      let ready = false
      let pending: Buffer | null = null
      const fail = (e: Error) => {
        socket.destroy()
        reject(e)
      }
      const done = () => {
        ready = true
        socket.removeListener('error', fail)
        // Later errors end in lost frames, which the delivery ratio shows.
        socket.on('error', () => {})
        resolve({
          send: (frame) => {
            const remaining = topicBytes.length + prefix + frame.length
            const out = Buffer.allocUnsafe(1 + varintSize(remaining) + remaining)
            out[0] = 0x30
            let pos = writeVarint(out, 1, remaining)
            pos += topicBytes.copy(out, pos)
            if (hark) out[pos++] = LEVEL_BYTE
            frame.copy(out, pos)
            socket.write(out)
          },
          backlog: () => socket.writableLength,
          close: () => void socket.destroy(),
        })
      }
      socket.once('error', fail)
      socket.once('close', () => {
        if (!ready) reject(new Error(`${member.clientId}: connection closed before it was ready`))
      })
      socket.once('connect', () => socket.write(connectPacket(member.clientId, member.credential)))
      socket.on('data', (chunk: Buffer) => {
        const buf = pending === null ? chunk : Buffer.concat([pending, chunk])
        pending = null
        let at = 0
        while (at + 2 <= buf.length) {
          let remaining = 0
          let multiplier = 1
          let i = at + 1
          let byte = 0
          do {
            if (i >= buf.length) break
            byte = buf[i++]!
            remaining += (byte & 0x7f) * multiplier
            multiplier *= 128
          } while ((byte & 0x80) !== 0)
          if ((byte & 0x80) !== 0 || i + remaining > buf.length) break
          const type = buf[at]! >> 4
          const end = i + remaining
          if (type === 3) {
            const qos = (buf[at]! >> 1) & 3
            const topicLength = buf.readUInt16BE(i)
            const topic = buf.subarray(i + 2, i + 2 + topicLength)
            let body = i + 2 + topicLength
            if (qos > 0) {
              // Hark's events are QoS 1: acknowledge them so its inflight window never fills.
              socket.write(Buffer.from([0x40, 0x02, buf[body]!, buf[body + 1]!]))
              body += 2
            }
            if (topic.equals(audioTopic)) {
              if (end - body > skip) onFrame(buf.subarray(body + skip, end))
            } else if (!ready && hark && topic.equals(eventsTopic)) {
              const event = JSON.parse(buf.toString('utf8', body, end)) as { type: string; room?: string | null }
              if (event.type === 'session') {
                if (event.room !== member.room) return fail(new Error(`${member.clientId} is in ${event.room}, not ${member.room}`))
                done()
              }
            }
          } else if (type === 2) {
            const code = buf[i + 1]!
            if (code !== 0) return fail(new Error(`${member.clientId}: CONNACK ${code}`))
            if (!hark) socket.write(packet(0x82, Buffer.concat([Buffer.from([0, 1]), utf8(roomTopic), Buffer.from([0])])))
          } else if (type === 9 && !ready) {
            if (buf[end - 1]! >= 0x80) return fail(new Error(`subscription to ${roomTopic} refused`))
            done()
          }
          at = end
        }
        if (at < buf.length) pending = buf.subarray(at)
      })
    }),
}

export default protocol
