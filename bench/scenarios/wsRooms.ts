/**
 * ws-rooms: audio rooms over WebSocket (TLS). Rooms of 4 terminals, all 4 talking, each sending a
 * ~100-byte frame 50 times a second; every frame is delivered to the 3 others (issue 4's shape).
 * Headline: deliveries per second, latency from the send time inside each frame. Hark's side is
 * the real gateway (token-authenticated terminals mapped to rooms, terminal protocol v1 framing,
 * room router); the peer is bare uWS pub/sub with no auth and no framing, the ceiling.
 * Goal (issue 4): ≥ 1500 talkers on the server's core at p99 ≤ 15 ms, ≥ 0.8× the bare server.
 */
import { join } from 'node:path'
import { defineScenario } from '../scenario.js'
import { loadTls, type TlsMaterial } from '../../core/tls.js'
import { serverCpus } from '../harness/cores.js'
import { seededClient, seedHark, startHark, type HarkSeed } from '../harness/hark.js'
import { roomMembers, roomsFor, runRoomLoad } from '../generators/rooms.js'
import { protocols } from '../generators/generator.js'
import { startPeer } from '../peers/start.js'

interface Fixture {
  readonly tls: TlsMaterial
  readonly seed: HarkSeed
}

export const ROOM_SIZE = 4
export const TALKERS_PER_ROOM = 4
/** Largest load the sweep may ask for; the seed holds this many clients. */
const MAX_TALKERS = 3000
const GOAL_TALKERS = 1500

const shape = (talkers: number) => roomsFor(talkers, ROOM_SIZE, TALKERS_PER_ROOM)

export default defineScenario<Fixture>({
  name: 'ws-rooms',
  description: `rooms of ${ROOM_SIZE} over WSS, all ${TALKERS_PER_ROOM} talking at 50 frames/s (~100 B), fan-out to the other ${ROOM_SIZE - 1}`,
  unit: 'deliveries/s',
  higherIsBetter: true,
  goal: {
    value: GOAL_TALKERS * 50 * (ROOM_SIZE - 1),
    p99Ms: 15,
    text: `≥ ${GOAL_TALKERS} talkers per core (${(GOAL_TALKERS * 50 * (ROOM_SIZE - 1)) / 1000}k deliveries/s) at p99 ≤ 15 ms, ≥ 0.8× bare uWS`,
  },
  load: { quick: 200, full: GOAL_TALKERS, unit: 'talkers' },
  sweep: { start: 200, factor: 1.4, maxLevel: MAX_TALKERS, maxSteps: 10, p99LimitMs: 15, minDeliveryRatio: 0.99 },
  setup: async (ctx) => {
    const tls = await loadTls({ certFile: null, keyFile: null, dataDir: ctx.dir, host: '127.0.0.1' })
    const seed = await seedHark(ctx, {
      dataDir: join(ctx.dir, 'hark-data'),
      clients: MAX_TALKERS,
      tokensPerClient: 1,
      roomSize: ROOM_SIZE,
    })
    return { tls, seed }
  },
  hark: {
    name: 'hark',
    label: 'Hark WebSocket gateway (uWS 20.30 SSLApp, token auth, protocol v1, room router)',
    measure: async (ctx, f) => {
      const hark = await startHark(ctx, { dataDir: f.seed.dataDir, cpus: serverCpus(ctx.cores) })
      return runRoomLoad(ctx, {
        protocol: protocols.harkWs,
        target: { host: '127.0.0.1', port: hark.ports.gateway, options: {} },
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
      name: 'uws',
      label: 'bare uWebSockets.js 20.30 SSLApp pub/sub fan-out',
      measure: async (ctx, f) => {
        const peer = await startPeer(ctx, { name: 'uws', module: 'peers/uwsFanout', args: ['--cert', f.tls.certFile, '--key', f.tls.keyFile] })
        return runRoomLoad(ctx, {
          protocol: protocols.wsPubSub,
          target: { host: '127.0.0.1', port: peer.port, options: { tls: true, path: '/v1/connect' } },
          members: roomMembers(shape(ctx.load)),
          serverPids: [peer.pid],
        })
      },
    },
  ],
})
