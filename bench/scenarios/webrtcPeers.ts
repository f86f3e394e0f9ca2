/**
 * webrtc-peers: how many WebRTC audio peers one core carries. Werift client peers (the load
 * generator's, on the other core) in rooms of 2, both talking — a call: each peer sends a ~100-byte
 * "Opus" packet 50 times a second and receives its partner's, so every peer moves 50 packets/s each
 * way through SRTP, and the server forwards (Hark: mixed mode with one active other source, so
 * the partner's packets untouched, re-stamped on the peer's one track). Headline: peers per core
 * = peers ÷ the server's CPU share over the window (per-peer CPU is its inverse), peers counted
 * at the share of their packets the generator managed to send.
 * Hark's side is the real transport (token-authenticated signalling over HTTPS, the room router,
 * the hub session, level-derived voice activity, the outbound RTP clock); the peer is a bare
 * werift forwarder with the same werift and peer configuration, no rooms logic and no auth.
 * Goal (issue 6): ≥ 150 peers per core.
 */
import { join } from 'node:path'
import type { MeasureContext, Measurement } from '../scenario.js'
import { defineScenario } from '../scenario.js'
import { serverCpus } from '../harness/cores.js'
import { seededClient, seedHark, startHark, type HarkSeed } from '../harness/hark.js'
import { roomMembers, runRoomLoad, type RoomLoadSpec } from '../generators/rooms.js'
import { protocols } from '../generators/generator.js'
import { startPeer } from '../peers/start.js'

interface Fixture {
  readonly seed: HarkSeed
}

const ROOM_SIZE = 2
const GOAL_PEERS_PER_CORE = 150
/** Largest load the sweep may ask for; the seed holds this many clients. */
const MAX_PEERS = 400

const shape = (peers: number) => ({ rooms: Math.max(1, Math.ceil(peers / ROOM_SIZE)), roomSize: ROOM_SIZE, talkersPerRoom: ROOM_SIZE })

/**
 * Run the room load and turn it into peers per core (deliveries/s kept in `extra`). When the
 * generator could not send every scheduled packet (its core is shared), the server had less to do:
 * the peers are counted at the share of their packets that was sent, so the figure stays "peers at
 * 50 packets/s each way" (the raw count is in `extra.peers`).
 */
const peersPerCore = async (ctx: MeasureContext, spec: RoomLoadSpec): Promise<Measurement> => {
  const m = await runRoomLoad(ctx, { connectConcurrency: 8, connectTimeoutMs: 120_000, ...spec })
  const peers = spec.members.length - (m.extra.connectFailures ?? 0)
  const scheduled = m.extra.framesScheduled ?? 0
  const sentShare = scheduled > 0 ? Math.min(1, (m.extra.framesSent ?? 0) / scheduled) : 0
  const effectivePeers = peers * sentShare
  const cpu = m.server.cpuPercent
  return {
    ...m,
    value: cpu > 0 ? effectivePeers / (cpu / 100) : 0,
    extra: {
      ...m.extra,
      peers,
      effectivePeers,
      deliveriesPerSecond: m.value,
      serverCpuPercentPerPeer: effectivePeers > 0 ? cpu / effectivePeers : 0,
    },
  }
}

export default defineScenario<Fixture>({
  name: 'webrtc-peers',
  description: `WebRTC audio peers per core: werift clients in rooms of ${ROOM_SIZE}, both talking (50 RTP packets/s each way per peer, ~100 B)`,
  unit: 'peers/core',
  higherIsBetter: true,
  goal: { value: GOAL_PEERS_PER_CORE, text: `≥ ${GOAL_PEERS_PER_CORE} peers per core` },
  load: { quick: 60, full: 150, unit: 'peers' },
  timing: { quick: { warmupMs: 500, durationMs: 2000 }, full: { warmupMs: 3000, durationMs: 10_000 } },
  sweep: { start: 40, factor: 1.5, maxLevel: MAX_PEERS, maxSteps: 6, p99LimitMs: 50, minDeliveryRatio: 0.99 },
  setup: async (ctx) => ({
    seed: await seedHark(ctx, { dataDir: join(ctx.dir, 'hark-data'), clients: MAX_PEERS, tokensPerClient: 1, roomSize: ROOM_SIZE }),
  }),
  hark: {
    name: 'hark',
    label: 'Hark WebRTC transport (werift 0.24, HTTPS signalling with token auth, hub session, mixed stream, outbound RTP clock)',
    measure: async (ctx, f) => {
      const hark = await startHark(ctx, { dataDir: f.seed.dataDir, cpus: serverCpus(ctx.cores) })
      return peersPerCore(ctx, {
        protocol: protocols.webrtcPeer,
        target: { host: '127.0.0.1', port: hark.ports.gateway, options: {} },
        members: roomMembers({
          ...shape(ctx.load),
          clientOf: seededClient(f.seed),
        }).slice(0, ctx.load),
        serverPids: [hark.proc.pid],
      })
    },
  },
  peers: [
    {
      name: 'werift',
      label: 'bare werift 0.24 forwarder (same peer configuration, HTTP signalling, no auth, no rooms logic)',
      measure: async (ctx) => {
        const peer = await startPeer(ctx, { name: 'werift', module: 'peers/weriftForwarder' })
        return peersPerCore(ctx, {
          protocol: protocols.webrtcPeer,
          target: { host: '127.0.0.1', port: peer.port, options: { path: '/offer', tls: false, auth: false } },
          members: roomMembers(shape(ctx.load)).slice(0, ctx.load),
          serverPids: [peer.pid],
        })
      },
    },
  ],
})
