/**
 * Peer: aedes, the in-repo Node MQTT broker (in-memory persistence, plain TCP), beside
 * mosquitto for the mqtt-rooms scenario. Usage: node dist/bench/peers/aedesBroker.js --port N
 * (IPC: ready).
 */
import { createServer } from 'node:net'
import { parseArgs } from 'node:util'
import { Aedes } from 'aedes'
import { serveWorker } from '../harness/worker.js'

const { values } = parseArgs({ options: { port: { type: 'string' } } })
const port = Number(values.port)
if (!port) throw new Error('--port is required')

const broker = await Aedes.createBroker()
const server = createServer(broker.handle)
const send = serveWorker({
  deadlineMs: 60 * 60_000,
  onMessage: () => {},
  onStop: () => new Promise<void>((resolve) => broker.close(() => server.close(() => resolve()))),
})
server.listen(port, '127.0.0.1', () => send({ type: 'ready', port }))
