/**
 * rest: REST requests per second under closed-loop load (autocannon, its own process on the
 * generator core). Hark's side alternates the two calls a back end makes most — issue a client
 * token (POST /api/v1/clients/{id}/token) and read a client's detail (GET /api/v1/clients/{id}) —
 * over 10 seeded clients with a real API key, the rate limit lifted so it is not what is measured.
 * The peer is a bare fastify hello-world: the floor of the framework both stand on.
 */
import { join } from 'node:path'
import { defineScenario } from '../scenario.js'
import { serverCpus } from '../harness/cores.js'
import { seedHark, startHark, type HarkSeed } from '../harness/hark.js'
import { runHttpLoad } from '../generators/http.js'
import type { HttpRequestSpec } from '../generators/httpWorker.js'
import { startPeer } from '../peers/start.js'

interface Fixture {
  readonly seed: HarkSeed | null
}

/** Clients whose tokens and details the load cycles through. */
const CLIENTS = 10

const harkRequests = (seed: HarkSeed): HttpRequestSpec[] => {
  const auth = { authorization: `Bearer ${seed.apiKey}` }
  return seed.clients.slice(0, CLIENTS).flatMap((c): HttpRequestSpec[] => [
    {
      method: 'POST',
      path: `/api/v1/clients/${encodeURIComponent(c.clientId)}/token`,
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ ttlSeconds: 3600 }),
    },
    { method: 'GET', path: `/api/v1/clients/${encodeURIComponent(c.clientId)}`, headers: auth },
  ])
}

export default defineScenario<Fixture>({
  name: 'rest',
  description: 'REST req/s with autocannon: token issue + client detail (1:1) vs a fastify hello-world',
  unit: 'req/s',
  higherIsBetter: true,
  load: { quick: 32, full: 64, unit: 'connections' },
  setup: async (ctx) => {
    const seed = await seedHark(ctx, { dataDir: join(ctx.dir, 'hark-data'), clients: CLIENTS, tokensPerClient: 0, roomSize: 5 })
    return { seed }
  },
  hark: {
    name: 'hark',
    label: 'Hark REST plugin (fastify 5, API-key auth, libSQL, jose signing)',
    measure: async (ctx, f) => {
      if (!f.seed) throw new Error('no seed')
      const hark = await startHark(ctx, {
        dataDir: f.seed.dataDir,
        cpus: serverCpus(ctx.cores),
        extraArgs: ['--rest-rate-limit-max', '1000000000'],
      })
      return runHttpLoad(ctx, { url: hark.restUrl, requests: harkRequests(f.seed), serverPids: [hark.proc.pid] })
    },
  },
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
