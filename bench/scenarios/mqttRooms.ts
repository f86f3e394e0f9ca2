/**
 * mqtt-rooms: audio rooms over MQTT 3.1.1 (plain TCP, QoS 0). Rooms of 4 terminals, every one
 * talking at 50 frames/s (~100 B) — devices stream their microphone continuously and mark voice
 * in the level byte — and every frame delivered to the 3 others. The load level counts clients.
 * Headline: deliveries per second; the goal is 1500 clients on one core (225k deliveries/s) at
 * p99 ≤ 20 ms, and ≥ 1.2× mosquitto and ≥ 3× aedes. Every side runs the same cheap raw client
 * (protocols/rawMqtt.ts): Hark with its own topic scheme (spec/mqtt.md), mosquitto (apt) and
 * aedes as plain brokers with every terminal publishing to and subscribed on its room's topic.
 */
import { join } from 'node:path'
import { defineScenario } from '../scenario.js'
import { serverCpus } from '../harness/cores.js'
import { seededClient, seedHark, startHark, type HarkSeed } from '../harness/hark.js'
import { roomMembers, runRoomLoad } from '../generators/rooms.js'
import { protocols } from '../generators/generator.js'
import { ensureMosquitto, mosquittoVersion, startMosquitto } from '../peers/mosquitto.js'
import { startPeer } from '../peers/start.js'

interface Fixture {
  readonly mosquitto: string
  readonly seed: HarkSeed
}

const ROOM_SIZE = 4
const TALKERS_PER_ROOM = 4
const FRAMES_PER_SECOND = 50
/** Clients seeded for Hark: the sweep's ceiling. */
const MAX_CLIENTS = 6000

/** Rooms of 4, all talking, for a load of `clients` (rounded up to whole rooms). */
const shape = (clients: number) => ({
  rooms: Math.max(1, Math.ceil(clients / ROOM_SIZE)),
  roomSize: ROOM_SIZE,
  talkersPerRoom: TALKERS_PER_ROOM,
})

const peerTarget = (port: number) => ({ host: '127.0.0.1', port, options: { scheme: 'pubsub', topic: 'rooms/{room}' } })

export default defineScenario<Fixture>({
  name: 'mqtt-rooms',
  description: 'rooms of 4 over MQTT 3.1.1 (QoS 0), all 4 talking at 50 frames/s (~100 B), fan-out to the other 3',
  unit: 'deliveries/s',
  higherIsBetter: true,
  goal: {
    value: 1500 * TALKERS_PER_ROOM * FRAMES_PER_SECOND * (ROOM_SIZE - 1) / ROOM_SIZE,
    p99Ms: 20,
    text: '≥ 1500 clients/core at p99 ≤ 20 ms (225k deliveries/s)',
  },
  load: { quick: 200, full: 1500, unit: 'clients' },
  sweep: { start: 200, factor: 1.4, maxLevel: MAX_CLIENTS, maxSteps: 10, p99LimitMs: 20, minDeliveryRatio: 0.99 },
  setup: async (ctx) => {
    const mosquitto = await ensureMosquitto(ctx)
    ctx.phase(mosquittoVersion(mosquitto))
    const seed = await seedHark(ctx, {
      dataDir: join(ctx.dir, 'hark-data'),
      // Whole rooms: a load that is not a multiple of the room size fills its last room too.
      clients: ctx.quick && !ctx.sweep ? shape(Math.max(200, ctx.load)).rooms * ROOM_SIZE : MAX_CLIENTS,
      tokensPerClient: 1,
      roomSize: ROOM_SIZE,
    })
    return { mosquitto, seed }
  },
  hark: {
    name: 'hark',
    label: 'Hark MQTT transport (mqtt-packet on net, per-turn batched writes)',
    measure: async (ctx, f) => {
      const { rooms } = shape(ctx.load)
      if (rooms * ROOM_SIZE > f.seed.clients.length) {
        throw new Error(`load of ${ctx.load} clients exceeds the ${f.seed.clients.length} seeded`)
      }
      const hark = await startHark(ctx, { dataDir: f.seed.dataDir, cpus: serverCpus(ctx.cores) })
      return runRoomLoad(ctx, {
        protocol: protocols.rawMqtt,
        target: { host: '127.0.0.1', port: hark.ports.mqtt, options: { scheme: 'hark' } },
        members: roomMembers({
          ...shape(ctx.load),
          clientOf: seededClient(f.seed),
        }),
        serverPids: [hark.proc.pid],
      })
    },
  },
  peers: [
    {
      name: 'mosquitto',
      label: 'mosquitto (Debian package, default settings, persistence off)',
      measure: async (ctx, f) => {
        const m = await startMosquitto(ctx, f.mosquitto)
        return runRoomLoad(ctx, {
          protocol: protocols.rawMqtt,
          target: peerTarget(m.port),
          members: roomMembers(shape(ctx.load)),
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
          protocol: protocols.rawMqtt,
          target: peerTarget(peer.port),
          members: roomMembers(shape(ctx.load)),
          serverPids: [peer.pid],
        })
      },
    },
  ],
})
