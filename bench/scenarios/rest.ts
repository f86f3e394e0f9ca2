/**
 * rest-token and rest-detail: REST requests per second under closed-loop load (autocannon, its
 * own process on the generator core) for the two calls a back end makes most — issue a client
 * token (POST /api/v1/clients/{id}/token) and read a client's detail (GET /api/v1/clients/{id}) —
 * over 10 seeded clients with a real API key, the rate limit lifted so it is not what is
 * measured. The peer is a bare fastify hello-world: the floor of the framework both stand on.
 * `npm run bench -- rest` runs both.
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

type Call = 'token' | 'detail'

const harkRequests = (seed: HarkSeed, call: Call): HttpRequestSpec[] => {
  const auth = { authorization: `Bearer ${seed.apiKey}` }
  return seed.clients.slice(0, CLIENTS).map((c): HttpRequestSpec =>
    call === 'token'
      ? {
          method: 'POST',
          path: `/api/v1/clients/${encodeURIComponent(c.clientId)}/token`,
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ ttlSeconds: 3600 }),
        }
      : { method: 'GET', path: `/api/v1/clients/${encodeURIComponent(c.clientId)}`, headers: auth },
  )
}

const restScenario = (call: Call, description: string, goal?: number) =>
  defineScenario<Fixture>({
    name: `rest-${call}`,
    description,
    unit: 'req/s',
    higherIsBetter: true,
    ...(goal === undefined ? {} : { goal: { ratios: { fastify: goal }, text: `≥ ${goal}× hello-world req/s` } }),
    load: { quick: 32, full: 64, unit: 'connections' },
    setup: async (ctx) => {
      const seed = await seedHark(ctx, { dataDir: join(ctx.dir, 'hark-data'), clients: CLIENTS, tokensPerClient: 0, roomSize: 5 })
      return { seed }
    },
    hark: {
      name: 'hark',
      label: `Hark REST plugin, ${call === 'token' ? 'POST /clients/{id}/token' : 'GET /clients/{id}'} (API-key auth, libSQL)`,
      measure: async (ctx, f) => {
        if (!f.seed) throw new Error('no seed')
        const hark = await startHark(ctx, {
          dataDir: f.seed.dataDir,
          cpus: serverCpus(ctx.cores),
          extraArgs: ['--rest-rate-limit-max', '1000000000'],
        })
        return runHttpLoad(ctx, { url: hark.restUrl, requests: harkRequests(f.seed, call), serverPids: [hark.proc.pid] })
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

export const restToken = restScenario('token', 'REST token issue req/s (autocannon) vs a fastify hello-world', 0.4)
export const restDetail = restScenario('detail', 'REST client detail req/s (autocannon) vs a fastify hello-world')
