/**
 * rest: REST requests per second under closed-loop load (autocannon). Hark's side will issue
 * tokens (POST /api/v1/clients/{id}/token) and read client detail (GET /api/v1/clients/{id})
 * with an API key; the peer is a bare fastify hello-world, which runs now (--peers-only).
 */
import { defineScenario } from '../scenario.js'
import { runHttpLoad } from '../generators/http.js'
import { startPeer } from '../peers/start.js'

export default defineScenario<undefined>({
  name: 'rest',
  description: 'REST req/s with autocannon: token issue and client detail vs a fastify hello-world',
  unit: 'req/s',
  higherIsBetter: true,
  needs: 'the REST plugin (POST /api/v1/clients/{id}/token, GET /api/v1/clients/{id})',
  load: { quick: 32, full: 64, unit: 'connections' },
  peers: [
    {
      name: 'fastify',
      label: 'bare fastify 5 hello-world (GET / → {"hello":"world"})',
      measure: async (ctx) => {
        const peer = await startPeer(ctx, { name: 'fastify', module: 'peers/fastifyHello' })
        return runHttpLoad(ctx, { url: `http://127.0.0.1:${peer.port}`, requests: [{ path: '/' }], serverPids: [peer.pid] })
      },
    },
  ],
})
