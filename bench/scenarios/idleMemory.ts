/**
 * idle-memory: server memory per connected idle terminal over WSS. Connect N terminals (rooms
 * of 4, nobody talking), hold them for the window, and divide the growth of the server's RSS by
 * N. Hark keeps per terminal a session, its client actor, presence, a room membership and its
 * socket; the bare uWS peer keeps a socket subscribed to a topic.
 */
import { join } from 'node:path'
import { defineScenario } from '../scenario.js'
import { loadTls, type TlsMaterial } from '../../core/tls.js'
import { serverCpus } from '../harness/cores.js'
import { seedHark, startHark, type HarkSeed } from '../harness/hark.js'
import { benchModule } from '../harness/paths.js'
import { runIdleMemory } from '../generators/connections.js'
import { roomMembers } from '../generators/rooms.js'
import { startPeer } from '../peers/start.js'

interface Fixture {
  readonly tls: TlsMaterial
  readonly seed: HarkSeed
}

const ROOM_SIZE = 4
const FULL = 5000

const shape = (terminals: number) => ({ rooms: Math.ceil(terminals / ROOM_SIZE), roomSize: ROOM_SIZE, talkersPerRoom: 0 })

export default defineScenario<Fixture>({
  name: 'idle-memory',
  description: 'KB of server RSS per idle connected WSS terminal (rooms of 4, nobody talking)',
  unit: 'KB/client',
  higherIsBetter: false,
  load: { quick: 1000, full: FULL, unit: 'terminals' },
  timing: { quick: { warmupMs: 1000, durationMs: 2000 }, full: { warmupMs: 2000, durationMs: 5000 } },
  setup: async (ctx) => {
    const tls = await loadTls({ certFile: null, keyFile: null, dataDir: ctx.dir, host: '127.0.0.1' })
    const seed = await seedHark(ctx, { dataDir: join(ctx.dir, 'hark-data'), clients: FULL, tokensPerClient: 1, roomSize: ROOM_SIZE })
    return { tls, seed }
  },
  hark: {
    name: 'hark',
    label: 'Hark WebSocket gateway (session, client actor, presence, room membership)',
    measure: async (ctx, f) => {
      const hark = await startHark(ctx, { dataDir: f.seed.dataDir, cpus: serverCpus(ctx.cores) })
      return runIdleMemory(ctx, {
        protocol: benchModule('generators/protocols/harkWs'),
        target: { host: '127.0.0.1', port: hark.ports.gateway, options: {} },
        members: roomMembers({
          ...shape(ctx.load),
          clientOf: (i) => {
            const c = f.seed.clients[i]!
            return { clientId: c.clientId, room: c.room!, credential: c.tokens[0]! }
          },
        }).slice(0, ctx.load),
        serverPids: [hark.proc.pid],
      })
    },
  },
  peers: [
    {
      name: 'uws',
      label: 'bare uWebSockets.js 20.30 SSLApp (a socket subscribed to a topic)',
      measure: async (ctx, f) => {
        const peer = await startPeer(ctx, { name: 'uws', module: 'peers/uwsFanout', args: ['--cert', f.tls.certFile, '--key', f.tls.keyFile] })
        return runIdleMemory(ctx, {
          protocol: benchModule('generators/protocols/wsPubSub'),
          target: { host: '127.0.0.1', port: peer.port, options: { tls: true, path: '/v1/connect' } },
          members: roomMembers(shape(ctx.load)).slice(0, ctx.load),
          serverPids: [peer.pid],
        })
      },
    },
  ],
})
