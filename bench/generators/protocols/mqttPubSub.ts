/**
 * Room protocol "mqtt-pubsub": one MQTT 3.1.1 connection per terminal (mqtt.js, clean session,
 * no reconnect), subscribed at QoS 0 to its room's topic and publishing bench frames there as
 * QoS 0 payloads. Username = clientId, password = the member's credential when it has one.
 * Options: topic (template, default "rooms/{room}"). A broker echoes a publisher's own frames
 * to it; the generator ignores those by sender index.
 */
import mqtt from 'mqtt'
import type { Writable } from 'node:stream'
import type { RoomProtocol } from '../roomProtocol.js'

const protocol: RoomProtocol = {
  name: 'mqtt-pubsub',
  connect: (member, target, onFrame) =>
    new Promise((resolve, reject) => {
      const topic = String(target.options.topic ?? 'rooms/{room}').replaceAll('{room}', member.room)
      const client = mqtt.connect({
        host: target.host,
        port: target.port,
        protocol: 'mqtt',
        protocolVersion: 4,
        clientId: member.clientId,
        clean: true,
        keepalive: 120,
        reconnectPeriod: 0,
        connectTimeout: 15_000,
        ...(member.credential ? { username: member.clientId, password: member.credential } : {}),
      })
      const fail = (e: Error) => {
        client.end(true)
        reject(e)
      }
      client.once('error', fail)
      client.on('message', (_topic, payload) => onFrame(payload))
      client.once('connect', () => {
        client.subscribe(topic, { qos: 0 }, (err, granted) => {
          if (err) return fail(err)
          if (granted?.[0]?.qos === 128) return fail(new Error(`subscription to ${topic} refused`))
          client.removeListener('error', fail)
          // Later errors end in lost frames, which the delivery ratio shows.
          client.on('error', () => {})
          const stream = client.stream as unknown as Writable
          resolve({
            send: (frame) => void client.publish(topic, frame, { qos: 0 }),
            backlog: () => stream.writableLength ?? 0,
            close: () => void client.end(true),
          })
        })
      })
    }),
}

export default protocol
