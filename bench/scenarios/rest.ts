/**
 * rest-token and rest-detail: REST requests per second under closed-loop load (autocannon, its
 * own process on the generator core) for the two calls a back end makes most — issue a client
 * token (POST /api/v1/clients/{id}/token) and read a client's detail (GET /api/v1/clients/{id}) —
 * over 10 seeded clients with a real API key, the rate limit lifted so it is not what is
 * measured. Both have a bare fastify hello-world as the ceiling of the framework they stand on.
 * rest-token's goal peer (jose stays the signer: issue 39, "Decision on JWTs") is a bare fastify
 * route doing only the token's work — the bearer key checked, the same claims signed with jose 6
 * (peers/fastifyToken.ts) —, judged per server CPU-second: Hark ≥ 0.8× of it means its REST
 * plugin (schemas, client lookup, rate limit, the token's record) costs at most a quarter more
 * CPU per token than signing it. `npm run bench -- rest` runs both.
 */
import { join } from 'node:path'
import { defineScenario, type Goal, type SideDef } from '../scenario.js'
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

/** rest-token's goal peer: the bare token route, on the same requests as Hark's side. */
const tokenPeer: SideDef<Fixture> = {
  name: 'fastify-jose',
  label: 'bare fastify 5 route + jose 6 SignJWT (bearer key hash checked, same claims, CryptoKey imported once; no schema, storage or rate limit)',
  measure: async (ctx, f) => {
    if (!f.seed) throw new Error('no seed')
    const peer = await startPeer(ctx, { name: 'fastify-jose', module: 'peers/fastifyToken', args: ['--data', f.seed.dataDir, '--workspace', f.seed.workspaceId] })
    return runHttpLoad(ctx, { url: `http://127.0.0.1:${peer.port}`, requests: harkRequests(f.seed, 'token'), serverPids: [peer.pid] })
  },
}

const restScenario = (call: Call, description: string, goal?: Goal, extraPeers: ReadonlyArray<SideDef<Fixture>> = []) =>
  defineScenario<Fixture>({
    name: `rest-${call}`,
    description,
    unit: 'req/s',
    higherIsBetter: true,
    ...(goal === undefined ? {} : { goal }),
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
      ...extraPeers,
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

export const restToken = restScenario(
  'token',
  'REST token issue req/s (autocannon) vs a bare fastify + jose token route and a fastify hello-world',
  { perCpuRatios: { 'fastify-jose': 0.8 }, text: '≥ 0.8× the bare fastify + jose token route per server CPU-second' },
  [tokenPeer],
)
export const restDetail = restScenario('detail', 'REST client detail req/s (autocannon) vs a fastify hello-world')
