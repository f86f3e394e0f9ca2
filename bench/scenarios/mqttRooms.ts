/**
 * mqtt-rooms: audio rooms over MQTT 3.1.1 (plain TCP, QoS 0). Rooms of 10 terminals, 2 talkers
 * each at 50 frames/s (~100 B), every frame delivered to the 9 others. Headline: deliveries per
 * second. Hark's side needs the MQTT transport; mosquitto (apt) and aedes run now (--peers-only).
 */
import { defineScenario } from '../scenario.js'
import { benchModule } from '../harness/paths.js'
import { roomMembers, roomsFor, runRoomLoad } from '../generators/rooms.js'
import { ensureMosquitto, mosquittoVersion, startMosquitto } from '../peers/mosquitto.js'
import { startPeer } from '../peers/start.js'

interface Fixture {
  readonly mosquitto: string
}

const target = (port: number) => ({ host: '127.0.0.1', port, options: { topic: 'rooms/{room}' } })

export default defineScenario<Fixture>({
  name: 'mqtt-rooms',
  description: 'rooms of 10 over MQTT (QoS 0), 2 talkers per room at 50 frames/s (~100 B), fan-out to the other 9',
  unit: 'deliveries/s',
  higherIsBetter: true,
  needs: 'the MQTT transport (port 2883) and its topic scheme',
  load: { quick: 40, full: 200, unit: 'talkers' },
  sweep: { start: 20, factor: 1.5, maxLevel: 2000, maxSteps: 10, p99LimitMs: 50, minDeliveryRatio: 0.99 },
  setup: async (ctx) => {
    const mosquitto = await ensureMosquitto(ctx)
    ctx.phase(mosquittoVersion(mosquitto))
    return { mosquitto }
  },
  peers: [
    {
      name: 'mosquitto',
      label: 'mosquitto (Debian package, default settings, persistence off)',
      measure: async (ctx, f) => {
        const m = await startMosquitto(ctx, f.mosquitto)
        return runRoomLoad(ctx, {
          protocol: benchModule('generators/protocols/mqttPubSub'),
          target: target(m.port),
          members: roomMembers(roomsFor(ctx.load)),
          serverPids: [m.pid],
        })
      },
    },
    {
      name: 'aedes',
      label: 'aedes 1.2 (in-memory persistence, plain TCP)',
      measure: async (ctx) => {
        const peer = await startPeer(ctx, { name: 'aedes', module: 'peers/aedesBroker' })
        return runRoomLoad(ctx, {
          protocol: benchModule('generators/protocols/mqttPubSub'),
          target: target(peer.port),
          members: roomMembers(roomsFor(ctx.load)),
          serverPids: [peer.pid],
        })
      },
    },
  ],
})
