/**
 * The load of churn-memory: connect/disconnect cycles, each a WSS terminal (connect with its
 * token, hear `session`, close) then an MQTT 3.1.1 device (CONNECT with the token as password,
 * hear CONNACK, DISCONNECT), each waiting until the server has closed its side, `lanes` cycles at
 * a time. Cycle i uses client i of the list (modulo its length), so a run of N cycles on N seeded
 * clients opens N distinct sessions in N rooms' worth of room actors.
 *
 * Usage: node dist/bench/workers/churnClients.js (IPC: init {clients, gateway, mqtt}, churn {from, to, lanes} → churned).
 */
import { connect as netConnect } from 'node:net'
import WebSocket from 'ws'
import { serveWorker } from '../harness/worker.js'

interface Client {
  readonly clientId: string
  readonly token: string
}

const CYCLE_TIMEOUT_MS = 15_000
const DISCONNECT = Buffer.from([0xe0, 0x00])

const utf8 = (s: string): Buffer => {
  const b = Buffer.from(s, 'utf8')
  return Buffer.concat([Buffer.from([b.length >> 8, b.length & 0xff]), b])
}

/** CONNECT, MQTT 3.1.1, clean session, keepalive 60 s, user name = client id, password = token. */
const connectPacket = (c: Client): Buffer => {
  const body = Buffer.concat([utf8('MQTT'), Buffer.from([4, 0xc2, 0, 60]), utf8(c.clientId), utf8(c.clientId), utf8(c.token)])
  const length: number[] = []
  let n = body.length
  do {
    length.push((n & 0x7f) | (n > 0x7f ? 0x80 : 0))
    n >>= 7
  } while (n > 0)
  return Buffer.concat([Buffer.from([0x10, ...length]), body])
}

const withTimeout = <T>(what: string, run: (done: (v: T) => void, fail: (e: Error) => void) => () => void): Promise<T> =>
  new Promise((resolve, reject) => {
    let cleanup = () => {}
    const timer = setTimeout(() => {
      cleanup()
      reject(new Error(`${what}: no answer within ${CYCLE_TIMEOUT_MS} ms`))
    }, CYCLE_TIMEOUT_MS)
    const settle = (f: () => void) => {
      clearTimeout(timer)
      f()
    }
    cleanup = run(
      (v) => settle(() => resolve(v)),
      (e) => settle(() => reject(e)),
    )
  })

/** Open, hear `session`, close, and wait for the close handshake. */
const wsCycle = (port: number, c: Client): Promise<void> =>
  withTimeout(`ws ${c.clientId}`, (done, fail) => {
    const ws = new WebSocket(`wss://127.0.0.1:${port}/v1/connect?token=${encodeURIComponent(c.token)}`, {
      rejectUnauthorized: false,
      perMessageDeflate: false,
    })
    let heard = false
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      if (heard || isBinary || !data.toString().includes('"session"')) return
      heard = true
      ws.close(1000)
    })
    ws.on('error', fail)
    ws.on('close', () => (heard ? done() : fail(new Error(`ws ${c.clientId}: closed before its session event`))))
    return () => ws.terminate()
  })

/** CONNECT, hear CONNACK 0, DISCONNECT, and wait for the server to close the socket. */
const mqttCycle = (port: number, c: Client): Promise<void> =>
  withTimeout(`mqtt ${c.clientId}`, (done, fail) => {
    const socket = netConnect({ host: '127.0.0.1', port, noDelay: true })
    let acked = false
    socket.once('connect', () => socket.write(connectPacket(c)))
    socket.on('data', (chunk: Buffer) => {
      if (acked) return
      if (chunk[0] !== 0x20 || chunk[3] !== 0) return fail(new Error(`mqtt ${c.clientId}: refused (${chunk.subarray(0, 4).toString('hex')})`))
      acked = true
      socket.end(DISCONNECT)
    })
    socket.on('error', fail)
    socket.on('close', () => (acked ? done() : fail(new Error(`mqtt ${c.clientId}: closed before CONNACK`))))
    return () => socket.destroy()
  })

let clients: readonly Client[] = []
let ports = { gateway: 0, mqtt: 0 }

serveWorker({
  deadlineMs: 60 * 60_000,
  onMessage: async (m, reply) => {
    if (m.type === 'init') {
      clients = m.clients as Client[]
      ports = { gateway: Number(m.gateway), mqtt: Number(m.mqtt) }
      reply({ type: 'ready' })
      return
    }
    if (m.type !== 'churn') return
    const from = Number(m.from)
    const to = Number(m.to)
    let next = from
    let ok = 0
    let failed = 0
    let firstError: string | null = null
    const t0 = performance.now()
    const lane = async () => {
      while (next < to) {
        const c = clients[next++ % clients.length]!
        try {
          await wsCycle(ports.gateway, c)
          await mqttCycle(ports.mqtt, c)
          ok++
        } catch (e) {
          failed++
          firstError ??= e instanceof Error ? e.message : String(e)
        }
      }
    }
    await Promise.all(Array.from({ length: Math.max(1, Number(m.lanes) || 1) }, lane))
    reply({ type: 'churned', ok, failed, firstError, ms: performance.now() - t0 })
  },
})
