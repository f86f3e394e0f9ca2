/**
 * connect-storm: terminals connected per second over WSS, 64 connections opening at a time per
 * generator process. Hark's side verifies each terminal's token (HS256, revocation, client
 * lookup) before the upgrade, then opens a session and places it in its room (actors, presence,
 * `session` event); the bare uWS peer upgrades anyone and subscribes it to a topic. Both pay the
 * same TLS handshakes (EC P-256 certificate).
 */
import { join } from 'node:path'
import { defineScenario } from '../scenario.js'
import { loadTls, type TlsMaterial } from '../../core/tls.js'
import { serverCpus } from '../harness/cores.js'
import { seedHark, startHark, type HarkSeed } from '../harness/hark.js'
import { benchModule } from '../harness/paths.js'
import { runConnectStorm } from '../generators/connections.js'
import { roomMembers } from '../generators/rooms.js'
import { startPeer } from '../peers/start.js'

interface Fixture {
  readonly tls: TlsMaterial
  readonly seed: HarkSeed
}

const ROOM_SIZE = 4
const FULL = 3000

const shape = (terminals: number) => ({ rooms: Math.ceil(terminals / ROOM_SIZE), roomSize: ROOM_SIZE, talkersPerRoom: 0 })

export default defineScenario<Fixture>({
  name: 'connect-storm',
  description: 'WSS terminals connected per second (TLS handshake, token check, upgrade, session in its room), 64 at a time',
  unit: 'connects/s',
  higherIsBetter: true,
  load: { quick: 1000, full: FULL, unit: 'terminals' },
  setup: async (ctx) => {
    const tls = await loadTls({ certFile: null, keyFile: null, dataDir: ctx.dir, host: '127.0.0.1' })
    const seed = await seedHark(ctx, { dataDir: join(ctx.dir, 'hark-data'), clients: FULL, tokensPerClient: 1, roomSize: ROOM_SIZE })
    return { tls, seed }
  },
  hark: {
    name: 'hark',
    label: 'Hark WebSocket gateway (token verified before the upgrade)',
    measure: async (ctx, f) => {
      const hark = await startHark(ctx, { dataDir: f.seed.dataDir, cpus: serverCpus(ctx.cores) })
      return runConnectStorm(ctx, {
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
      label: 'bare uWebSockets.js 20.30 SSLApp (no auth, subscribe to a topic)',
      measure: async (ctx, f) => {
        const peer = await startPeer(ctx, { name: 'uws', module: 'peers/uwsFanout', args: ['--cert', f.tls.certFile, '--key', f.tls.keyFile] })
        return runConnectStorm(ctx, {
          protocol: benchModule('generators/protocols/wsPubSub'),
          target: { host: '127.0.0.1', port: peer.port, options: { tls: true, path: '/v1/connect' } },
          members: roomMembers(shape(ctx.load)).slice(0, ctx.load),
          serverPids: [peer.pid],
        })
      },
    },
  ],
})
