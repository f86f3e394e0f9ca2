/**
 * Peer: a bare fastify hello-world, the floor for Hark's REST plugin (same framework, no auth,
 * no storage, no schema work). Usage: node dist/bench/peers/fastifyHello.js --port N (IPC: ready).
 */
import { parseArgs } from 'node:util'
import { fastify } from 'fastify'
import { serveWorker } from '../harness/worker.js'

const { values } = parseArgs({ options: { port: { type: 'string' } } })
const port = Number(values.port)
if (!port) throw new Error('--port is required')

const app = fastify({ logger: false })
app.get('/', async () => ({ hello: 'world' }))
const send = serveWorker({ deadlineMs: 60 * 60_000, onMessage: () => {}, onStop: () => app.close() })
await app.listen({ host: '127.0.0.1', port })
send({ type: 'ready', port })
