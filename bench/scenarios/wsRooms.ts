/**
 * ws-rooms: audio rooms over WebSocket (TLS). Rooms of 10 terminals, 2 talkers each sending a
 * ~100-byte frame 50 times a second; every frame is delivered to the 9 others. Headline:
 * deliveries per second, latency from the send time inside each frame.
 * Hark's side needs the WebSocket gateway; the bare uWS fan-out peer runs now (--peers-only).
 */
import { defineScenario } from '../scenario.js'
import { loadTls, type TlsMaterial } from '../../core/tls.js'
import { benchModule } from '../harness/paths.js'
import { roomMembers, roomsFor, runRoomLoad } from '../generators/rooms.js'
import { startPeer } from '../peers/start.js'

interface Fixture {
  readonly tls: TlsMaterial
}

export default defineScenario<Fixture>({
  name: 'ws-rooms',
  description: 'rooms of 10 over WSS, 2 talkers per room at 50 frames/s (~100 B), fan-out to the other 9',
  unit: 'deliveries/s',
  higherIsBetter: true,
  needs: 'the WebSocket gateway (wss /v1/connect) and its frame format',
  load: { quick: 40, full: 200, unit: 'talkers' },
  sweep: { start: 20, factor: 1.5, maxLevel: 2000, maxSteps: 10, p99LimitMs: 50, minDeliveryRatio: 0.99 },
  setup: async (ctx) => ({ tls: await loadTls({ certFile: null, keyFile: null, dataDir: ctx.dir, host: '127.0.0.1' }) }),
  peers: [
    {
      name: 'uws',
      label: 'bare uWebSockets.js 20.30 SSLApp pub/sub fan-out',
      measure: async (ctx, f) => {
        const peer = await startPeer(ctx, { name: 'uws', module: 'peers/uwsFanout', args: ['--cert', f.tls.certFile, '--key', f.tls.keyFile] })
        return runRoomLoad(ctx, {
          protocol: benchModule('generators/protocols/wsPubSub'),
          target: { host: '127.0.0.1', port: peer.port, options: { tls: true, path: '/v1/connect' } },
          members: roomMembers(roomsFor(ctx.load)),
          serverPids: [peer.pid],
        })
      },
    },
  ],
})
